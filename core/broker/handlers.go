package broker

import (
	"fmt"
	"sort"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/wire"
)

// api is all the broker knows of one Kafka API, registered together by
// the API's file (produce.go: Produce, key 0). Its text for a learner and
// its error answer are registered by the API's file in core/describe and
// core/wire, which this package imports.
type api struct {
	min, max int16 // the versions served
	// serve returns the response, or nil when the response comes later
	// (a pending operation) or never (acks=0).
	serve func(*Broker, *Request) kmsg.Response
	// resolve, where set, completes the request before it is authorized
	// and served, or answers it: a Fetch gets its session (KIP-227,
	// fetch_session.go).
	resolve func(*Broker, *Request) kmsg.Response
	// acl is what a client's request needs to pass the authorizer
	// (authorize.go); nil is CLUSTER_ACTION, for what only brokers send.
	acl rule
	// ops sets the authorized operations its answer carries (KIP-430,
	// authorized_ops.go); nil for an answer that carries none.
	ops func(b *Broker, r *Request, resp kmsg.Response)
	// addresses hands set the broker addresses its answer carries, for
	// another listener's (listeners.go, KIP-103); nil for none.
	addresses func(resp kmsg.Response, set func(id int32, host *string, port *int32))
	// group names the group a group coordinator's request is routed by
	// (ok false: none, as for a many-group request): a group another
	// broker coordinates is NOT_COORDINATOR (group_coordinator.go).
	group func(kmsg.Request) (id string, ok bool)
	// txnID names the transactional id a transaction coordinator's
	// request is routed by (ok false: none): another broker's is
	// NOT_COORDINATOR, as is one whose __transaction_state is not there
	// yet COORDINATOR_NOT_AVAILABLE (txn_coordinator.go).
	txnID func(kmsg.Request) (id string, ok bool)
	// joins is set for the requests that join a member to a classic or
	// KIP-848 group, where a share group's id is GROUP_ID_NOT_FOUND
	// (KIP-932).
	joins bool
	// manyGroups is set for the requests that name many groups, each
	// routed alone: the answer's groups another broker coordinates are
	// NOT_COORDINATOR (coordinator.Groups.MarkForeign).
	manyGroups bool
}

// handlers is filled by each API's file; ApiVersions reports exactly these.
var handlers = map[int16]api{}

// register records what the broker knows of API key; each key is
// registered once, by its API's file.
func register(key int16, a api) {
	if _, dup := handlers[key]; dup {
		panic(fmt.Sprintf("broker: API key %d registered twice", key))
	}
	handlers[key] = a
}

// routedBy routes a coordinator's request by one of its fields (its
// group, or its transactional id).
func routedBy[Q kmsg.Request](group func(Q) string) func(kmsg.Request) (string, bool) {
	return func(req kmsg.Request) (string, bool) { return group(req.(Q)), true }
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
