package broker

import (
	"sort"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/wire"
)

// handler serves one API over a range of versions.
type handler struct {
	min, max int16
	// fn returns the response, or nil when the response comes later (a
	// pending operation) or never (acks=0).
	fn func(*Broker, *Request) kmsg.Response
}

// handlers is filled by each API's file; ApiVersions reports exactly these.
var handlers = map[int16]handler{}

func register(key int16, min, max int16, fn func(*Broker, *Request) kmsg.Response) {
	handlers[key] = handler{min, max, fn}
}

// SupportedVersions lists the served APIs, sorted by key.
func SupportedVersions() []kmsg.ApiVersionsResponseApiKey {
	out := make([]kmsg.ApiVersionsResponseApiKey, 0, len(handlers))
	for key, h := range handlers {
		k := kmsg.NewApiVersionsResponseApiKey()
		k.ApiKey, k.MinVersion, k.MaxVersion = key, h.min, h.max
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ApiKey < out[j].ApiKey })
	return out
}

// Serves reports whether this broker serves an API at a version; the
// native server closes a connection that asks for anything else.
func Serves(key, version int16) bool {
	h, ok := handlers[key]
	return ok && version >= h.min && version <= h.max
}

// unsupported answers a request whose version this broker does not serve
// with UNSUPPORTED_VERSION, encoded at the version the client asked for
// (wire.ErrorResponse; best effort: the client learns the cause, and
// ApiVersions tells it what to use instead).
func unsupported(req kmsg.Request) kmsg.Response {
	if _, ok := req.(*kmsg.ApiVersionsRequest); ok {
		return ApiVersionsFallback()
	}
	return wire.ErrorResponse(req, kerr.UnsupportedVersion.Code)
}
