package wire

import (
	"encoding/binary"
	"fmt"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// The requests a broker of a cluster forwards to the controller in an
// Envelope (KIP-590; Kafka's ApiKeys "forwardable", listed in
// forwardable_quorum.go), and their answers, are encoded and decoded here
// through their concrete types only: an encoding through the
// kmsg.Request interface (req.AppendTo, or kmsg.RequestForKey) would link
// every message kmsg knows into the browser's bundles. The single-broker
// bundle (-tags noquorum) has no cluster and forwards nothing
// (forwardable_noquorum.go).

// codec encodes and decodes one forwardable API.
type codec struct {
	newReq     func() kmsg.Request
	readReq    func(kmsg.Request, []byte) error
	appendReq  func(kmsg.Request, []byte) []byte
	readResp   func(kmsg.Response, []byte) error
	appendResp func(kmsg.Response, []byte) []byte
}

// Forwardable reports whether a broker of a cluster forwards an API to
// the controller in an Envelope.
func Forwardable(key int16) bool {
	_, ok := forwardable[key]
	return ok
}

// AppendForwarded appends a forwardable request with its header (v1, or
// v2 for a flexible request) and no size prefix: an Envelope's request
// data. It panics on a request of another API: callers check Forwardable.
func AppendForwarded(dst []byte, h Header, req kmsg.Request) []byte {
	c, ok := forwardable[req.Key()]
	if !ok {
		panic(fmt.Sprintf("wire: %s is not forwardable", kmsg.NameForKey(req.Key())))
	}
	dst = binary.BigEndian.AppendUint16(dst, uint16(req.Key()))
	dst = binary.BigEndian.AppendUint16(dst, uint16(req.GetVersion()))
	dst = binary.BigEndian.AppendUint32(dst, uint32(h.CorrelationID))
	dst = binary.BigEndian.AppendUint16(dst, uint16(len(h.ClientID)))
	dst = append(dst, h.ClientID...)
	if req.IsFlexible() {
		dst = append(dst, 0)
	}
	return c.appendReq(req, dst)
}

// ParseForwarded decodes an Envelope's request data (what
// AppendForwarded writes, and ParseRequest reads); a request of an API
// that is not forwardable is a VersionError.
func ParseForwarded(frame []byte) (Header, kmsg.Request, error) {
	newReq := func(key int16) kmsg.Request {
		if c, ok := forwardable[key]; ok {
			return c.newReq()
		}
		return nil
	}
	return parseRequest(frame, newReq, func(r kmsg.Request, b []byte) error { return forwardable[r.Key()].readReq(r, b) })
}

// AppendForwardedResponse appends the answer to a forwardable request
// with its header (v0, or v1 when flexible) and no size prefix: an
// EnvelopeResponse's response data.
func AppendForwardedResponse(dst []byte, correlationID int32, resp kmsg.Response) []byte {
	dst = binary.BigEndian.AppendUint32(dst, uint32(correlationID))
	if resp.IsFlexible() {
		dst = append(dst, 0)
	}
	return forwardable[resp.Key()].appendResp(resp, dst)
}

// ParseForwardedResponse decodes an EnvelopeResponse's response data
// into resp (of a forwardable API, its version set) and returns its
// correlation id.
func ParseForwardedResponse(data []byte, resp kmsg.Response) (int32, error) {
	c, ok := forwardable[resp.Key()]
	if !ok || len(data) < 4 {
		return 0, ErrShortHeader
	}
	corr, rest := int32(binary.BigEndian.Uint32(data)), data[4:]
	if resp.IsFlexible() {
		var err error
		if rest, err = skipTags(rest); err != nil {
			return corr, err
		}
	}
	if err := c.readResp(resp, rest); err != nil {
		return corr, fmt.Errorf("%w: %s v%d: %v", ErrBody, kmsg.NameForKey(resp.Key()), resp.GetVersion(), err)
	}
	return corr, nil
}
