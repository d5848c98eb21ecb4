//go:build !noquorum

package broker

import (
	"net/netip"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/cluster"
	"github.com/gregor-kafka/gregor/core/wire"
)

// Forwarding with the client (KIP-590 Envelope, API 58), as Kafka 4 does
// it: in a cluster a broker does not serve the admin APIs that change the
// metadata (wire.Forwardable: CreateTopics, DeleteTopics,
// CreatePartitions, the config, ACL, quota, SCRAM, feature, election and
// reassignment requests) and does not authorize them either. It wraps the
// client's request, header included, in an Envelope with the client's
// principal (serialized as Kafka's DefaultKafkaPrincipalBuilder does: a
// version-prefixed DefaultPrincipalData) and address, and sends it to the
// active controller. The node hosting the active controller unwraps it
// (HandleEnvelope) and serves the inner request as if the client had sent
// it there: authorized against the cluster's ACLs for that principal and
// host (per part: authorize.go), counted against the principal's
// controller_mutation_rate in the one bucket the controller keeps for the
// whole cluster (mutation_quota.go), then handed to its quorum controller.
// The answer, with its header and throttle_time_ms, goes back in the
// EnvelopeResponse, and the forwarding broker answers the client with it
// (the client's connection is muted for the throttle there, KIP-219).
//
// # Invariants
//
//   - Only brokers send Envelopes: it is not in ApiVersions and a client
//     port does not serve it (the native server closes a connection that
//     asks for an API it does not serve, as Kafka's broker listener does);
//     the drivers hand the broker Envelopes that came over the controller
//     port, addressed to the controller.
//   - An Envelope reaching a node that is not the active controller is
//     answered NOT_CONTROLLER (by the driver), and the client gets
//     NOT_CONTROLLER to retry; one whose inner request is not forwardable
//     or does not parse, or whose principal does not, INVALID_REQUEST, and
//     the client UNKNOWN_SERVER_ERROR (Kafka's ForwardingManager).
//   - A request that arrived in an Envelope is never wrapped again: its
//     handler hands it to the controller as it is.
//   - With an authorizer, every Envelope is checked, as Kafka's
//     controller checks it, before anything in it is read: the principal
//     of the connection it came on (req.Principal: a peer node's, given by
//     the driver) must CLUSTER_ACTION the cluster, else the Envelope is
//     answered CLUSTER_AUTHORIZATION_FAILED (and the client
//     UNKNOWN_SERVER_ERROR). An Envelope without a principal (the
//     simulator's) is not checked. The request-time quota is charged by the forwarding
//     broker only.

// enveloped is what a request that arrived in an Envelope needs to be
// answered in one.
type enveloped struct {
	correlationID int32 // the client's, echoed in the inner answer's header
	version       int16 // the Envelope's
}

// forwards reports whether r goes to the controller in an Envelope.
func (b *Broker) forwards(r *Request) bool {
	return b.cl != nil && r.envelope == nil && wire.Forwardable(r.Msg.Key())
}

// seal wraps a client's request in an Envelope.
func seal(r Request) *kmsg.EnvelopeRequest {
	env := kmsg.NewPtrEnvelopeRequest()
	env.RequestData = wire.AppendForwarded(nil, r.Header, r.Msg)
	if typ, name, ok := strings.Cut(r.Principal, ":"); ok {
		p := kmsg.DefaultPrincipalData{Type: typ, Name: name}
		env.RequestPrincipal = p.AppendTo(nil)
	}
	if ip, err := netip.ParseAddr(strings.TrimPrefix(r.Host, "/")); err == nil {
		env.ClientHostAddress = ip.AsSlice()
	} else {
		env.ClientHostAddress = []byte{}
	}
	return env
}

// unseal reads the controller's answer to a forwarded request.
func unseal(req kmsg.Request, env *kmsg.EnvelopeResponse) kmsg.Response {
	switch env.ErrorCode {
	case 0:
	case kerr.NotController.Code:
		return wire.ErrorResponse(req, env.ErrorCode) // the client asks again
	default:
		return wire.ErrorResponse(req, kerr.UnknownServerError.Code)
	}
	resp := req.ResponseKind()
	resp.SetVersion(req.GetVersion())
	if _, err := wire.ParseForwardedResponse(env.ResponseData, resp); err != nil {
		return wire.ErrorResponse(req, kerr.UnknownServerError.Code)
	}
	return resp
}

// HandleEnvelope serves a request another broker forwarded to this node's
// active controller: req is the Envelope, on the connection of that
// broker, with that connection's principal; the answer goes back there as an EnvelopeResponse.
func (b *Broker) HandleEnvelope(now int64, req Request) {
	b.advance(now)
	env := req.Msg.(*kmsg.EnvelopeRequest)
	if !b.allows(&req, check{kmsg.ACLResourceTypeCluster, cluster.ClusterResource, kmsg.ACLOperationClusterAction}) {
		b.respond(Response{Conn: req.Conn, CorrelationID: req.Header.CorrelationID, Msg: EnvelopeError(env, kerr.ClusterAuthorizationFailed.Code)})
		return
	}
	h, inner, err := wire.ParseForwarded(env.RequestData)
	principal, ok := principalOf(env.RequestPrincipal)
	if err != nil || !ok {
		b.respond(Response{Conn: req.Conn, CorrelationID: req.Header.CorrelationID, Msg: EnvelopeError(env, kerr.InvalidRequest.Code)})
		return
	}
	host := ""
	if ip, ok := netip.AddrFromSlice(env.ClientHostAddress); ok {
		host = "/" + ip.String()
	}
	b.serve(Request{Conn: req.Conn, Msg: inner, Host: host, Principal: principal,
		Header:   wire.Header{Key: h.Key, Version: h.Version, CorrelationID: req.Header.CorrelationID, ClientID: h.ClientID},
		envelope: &enveloped{correlationID: h.CorrelationID, version: env.Version}})
}

// EnvelopeError answers an Envelope with an error of its own.
func EnvelopeError(env *kmsg.EnvelopeRequest, code int16) *kmsg.EnvelopeResponse {
	resp := kmsg.NewPtrEnvelopeResponse()
	resp.SetVersion(env.Version)
	resp.ErrorCode = code
	return resp
}

// principalOf reads a serialized principal ("Type:Name"); none is the
// empty principal of a request that is not authorized (the simulator's).
func principalOf(data []byte) (string, bool) {
	if data == nil {
		return "", true
	}
	var p kmsg.DefaultPrincipalData
	if err := p.ReadFrom(data); err != nil || p.Type == "" {
		return "", false
	}
	return p.Type + ":" + p.Name, true
}

// wrap puts the answer to an enveloped request in an EnvelopeResponse.
func (e *enveloped) wrap(msg kmsg.Response) *kmsg.EnvelopeResponse {
	resp := kmsg.NewPtrEnvelopeResponse()
	resp.SetVersion(e.version)
	resp.ResponseData = wire.AppendForwardedResponse(nil, e.correlationID, msg)
	return resp
}
