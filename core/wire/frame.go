package wire

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// Sentinel errors for malformed frames.
var (
	ErrShortHeader = errors.New("wire: frame shorter than a request header")
	ErrBadTags     = errors.New("wire: malformed tagged fields in request header")
	ErrBody        = errors.New("wire: request body does not parse")
)

// VersionError says the header named an API or version kmsg cannot decode.
type VersionError struct {
	Key, Version int16
}

func (e *VersionError) Error() string {
	return fmt.Sprintf("wire: unsupported api key %d (%s) version %d", e.Key, kmsg.NameForKey(e.Key), e.Version)
}

// Header is a request header (v1, or v2 for flexible requests).
type Header struct {
	Key           int16
	Version       int16
	CorrelationID int32
	ClientID      string
}

// ParseRequest decodes one request frame (without its 4-byte size prefix).
func ParseRequest(frame []byte) (Header, kmsg.Request, error) {
	return parseRequest(frame, kmsg.RequestForKey, func(r kmsg.Request, b []byte) error { return r.ReadFrom(b) })
}

// parseRequest decodes a request frame into what newReq makes for its
// key (nil: an unsupported key) with read.
func parseRequest(frame []byte, newReq func(int16) kmsg.Request, read func(kmsg.Request, []byte) error) (Header, kmsg.Request, error) {
	var h Header
	if len(frame) < 10 {
		return h, nil, ErrShortHeader
	}
	h.Key = int16(binary.BigEndian.Uint16(frame[0:]))
	h.Version = int16(binary.BigEndian.Uint16(frame[2:]))
	h.CorrelationID = int32(binary.BigEndian.Uint32(frame[4:]))
	idLen := int(int16(binary.BigEndian.Uint16(frame[8:])))
	rest := frame[10:]
	if idLen > 0 {
		if idLen > len(rest) {
			return h, nil, ErrShortHeader
		}
		h.ClientID = string(rest[:idLen])
		rest = rest[idLen:]
	}
	req := newReq(h.Key)
	if req == nil || h.Version < 0 || h.Version > req.MaxVersion() {
		return h, nil, &VersionError{h.Key, h.Version}
	}
	req.SetVersion(h.Version)
	if req.IsFlexible() {
		var err error
		if rest, err = skipTags(rest); err != nil {
			return h, nil, err
		}
	}
	if err := read(req, rest); err != nil {
		return h, nil, fmt.Errorf("%w: %s v%d: %v", ErrBody, kmsg.NameForKey(h.Key), h.Version, err)
	}
	return h, req, nil
}

// skipTags skips a tagged-field section: a uvarint count, then per field a
// uvarint tag, a uvarint size and that many bytes.
func skipTags(p []byte) ([]byte, error) {
	n, p, ok := uvarint(p)
	if !ok {
		return nil, ErrBadTags
	}
	for ; n > 0; n-- {
		var size uint64
		if _, p, ok = uvarint(p); !ok {
			return nil, ErrBadTags
		}
		if size, p, ok = uvarint(p); !ok || size > uint64(len(p)) {
			return nil, ErrBadTags
		}
		p = p[size:]
	}
	return p, nil
}

func uvarint(p []byte) (uint64, []byte, bool) {
	v, n := binary.Uvarint(p)
	if n <= 0 {
		return 0, nil, false
	}
	return v, p[n:], true
}

// AppendResponse appends a whole response frame, size prefix included, to dst.
func AppendResponse(dst []byte, correlationID int32, resp kmsg.Response) []byte {
	start := len(dst)
	dst = append(dst, 0, 0, 0, 0)
	dst = binary.BigEndian.AppendUint32(dst, uint32(correlationID))
	if resp.IsFlexible() && resp.Key() != (*kmsg.ApiVersionsResponse)(nil).Key() {
		dst = append(dst, 0)
	}
	dst = resp.AppendTo(dst)
	binary.BigEndian.PutUint32(dst[start:], uint32(len(dst)-start-4))
	return dst
}

// AppendErrorOnly appends a frame for an API kmsg cannot encode: the
// correlation id and a bare int16 error code. Kafka clients that sent an
// unknown key cannot decode anything richer anyway.
func AppendErrorOnly(dst []byte, correlationID int32, code int16) []byte {
	dst = binary.BigEndian.AppendUint32(dst, 6)
	dst = binary.BigEndian.AppendUint32(dst, uint32(correlationID))
	return binary.BigEndian.AppendUint16(dst, uint16(code))
}
