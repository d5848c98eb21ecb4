//go:build !js && !noquorum

package broker

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/cluster"
	"github.com/gregor-kafka/gregor/core/config"
	"github.com/gregor-kafka/gregor/core/quota"
	"github.com/gregor-kafka/gregor/core/store"
	"github.com/gregor-kafka/gregor/core/wire"
)

// envelopeNode is a clustered broker with an authorizer, whose requests
// to other nodes and answers to its clients are recorded.
type envelopeNode struct {
	t    *testing.T
	b    *Broker
	sent []Send
	out  []Response
}

func newEnvelopeNode(t *testing.T, id int32) *envelopeNode {
	t.Helper()
	n := &envelopeNode{t: t}
	cfg := Config{NodeID: id, Settings: config.NewBroker(), Rand: rand.New(rand.NewPCG(1, 2)), Authorizer: &cluster.Authorizer{},
		Cluster: &ClusterConfig{}}
	b, err := New(cfg, store.NewMem(), 1000)
	if err != nil {
		t.Fatal(err)
	}
	n.b = b
	return n
}

// take sorts what the broker produced (Ready) into sent and out.
func (n *envelopeNode) take() {
	for _, e := range n.b.Ready().Effects {
		if e.Send.Req != nil {
			n.sent = append(n.sent, e.Send)
		} else {
			n.out = append(n.out, e.Response)
		}
	}
}

// lastSent is the one request the node sent since the last call.
func (n *envelopeNode) lastSent() Send {
	n.take()
	return takeOne(n.t, "requests sent", &n.sent)
}

// answer is the one answer the node produced since the last call.
func (n *envelopeNode) answer() Response {
	n.take()
	return takeOne(n.t, "answers", &n.out)
}

// takeOne empties a list that must hold one item, and returns it.
func takeOne[T any](t *testing.T, what string, list *[]T) T {
	t.Helper()
	if len(*list) != 1 {
		t.Fatalf("%d %s, want 1", len(*list), what)
	}
	one := (*list)[0]
	*list = nil
	return one
}

func createTopicsReq(v int16, partitions map[string]int32, names ...string) *kmsg.CreateTopicsRequest {
	req := kmsg.NewPtrCreateTopicsRequest()
	req.SetVersion(v)
	for _, name := range names {
		rt := kmsg.NewCreateTopicsRequestTopic()
		rt.Topic, rt.NumPartitions, rt.ReplicationFactor = name, partitions[name], 1
		req.Topics = append(req.Topics, rt)
	}
	return req
}

// TestForwardSealsTheClient: a broker of a cluster neither authorizes nor
// serves CreateTopics: it sends it to the controller in an Envelope
// carrying the request with its header, the client's principal as Kafka
// serializes it (a version-prefixed DefaultPrincipalData) and the
// client's address; the answer in the EnvelopeResponse, throttle time
// included, goes to the client as it is, and an error of the Envelope
// itself as Kafka's ForwardingManager maps it.
func TestForwardSealsTheClient(t *testing.T) {
	n := newEnvelopeNode(t, 2) // no ACL at all: alice would be refused here
	client := Request{Conn: 7, Principal: "User:alice", Host: "/10.1.2.3",
		Header: wire.Header{Key: 19, Version: 7, CorrelationID: 41, ClientID: "cli"}, Msg: createTopicsReq(7, map[string]int32{"a": 3}, "a")}
	n.b.Handle(1000, client)
	if n.take(); len(n.out) != 0 {
		t.Fatalf("answered at the receiving broker: %v", n.out[0].Msg)
	}
	s := n.lastSent()
	env, ok := s.Req.(*kmsg.EnvelopeRequest)
	if s.To != ToController || !ok {
		t.Fatalf("sent %T to %d, want an Envelope to the controller", s.Req, s.To)
	}
	wantPrincipal := []byte{0, 0, 5, 'U', 's', 'e', 'r', 6, 'a', 'l', 'i', 'c', 'e', 0, 0}
	if !bytes.Equal(env.RequestPrincipal, wantPrincipal) {
		t.Errorf("principal % x, want % x", env.RequestPrincipal, wantPrincipal)
	}
	if !bytes.Equal(env.ClientHostAddress, []byte{10, 1, 2, 3}) {
		t.Errorf("client host % x, want 10.1.2.3", env.ClientHostAddress)
	}
	h, inner, err := wire.ParseRequest(env.RequestData)
	if err != nil {
		t.Fatal(err)
	}
	ct, _ := inner.(*kmsg.CreateTopicsRequest)
	if h.CorrelationID != 41 || h.ClientID != "cli" || h.Version != 7 || ct == nil || len(ct.Topics) != 1 || ct.Topics[0].NumPartitions != 3 {
		t.Fatalf("inner request %+v %+v", h, inner)
	}

	answer := kmsg.NewPtrCreateTopicsResponse()
	answer.SetVersion(7)
	answer.ThrottleMillis = 900
	topic := kmsg.NewCreateTopicsResponseTopic()
	topic.Topic, topic.ErrorCode = "a", kerr.ThrottlingQuotaExceeded.Code
	answer.Topics = append(answer.Topics, topic)
	resp := kmsg.NewPtrEnvelopeResponse()
	resp.ResponseData = wire.AppendForwardedResponse(nil, 41, answer)
	n.b.Receive(1001, s.ID, resp)
	got := n.answer()
	cr, _ := got.Msg.(*kmsg.CreateTopicsResponse)
	if got.Conn != 7 || got.CorrelationID != 41 || cr == nil || cr.ThrottleMillis != 900 || len(cr.Topics) != 1 || cr.Topics[0].ErrorCode != kerr.ThrottlingQuotaExceeded.Code {
		t.Fatalf("client got %+v %+v", got, got.Msg)
	}

	for _, c := range []struct{ envelope, client int16 }{
		{kerr.NotController.Code, kerr.NotController.Code},
		{kerr.InvalidRequest.Code, kerr.UnknownServerError.Code},
	} {
		client.Header.CorrelationID++
		n.b.Handle(1002, client)
		s := n.lastSent()
		n.b.Receive(1003, s.ID, &kmsg.EnvelopeResponse{ErrorCode: c.envelope})
		cr, _ := n.answer().Msg.(*kmsg.CreateTopicsResponse)
		if cr == nil || len(cr.Topics) != 1 || cr.Topics[0].ErrorCode != c.client {
			t.Errorf("Envelope error %d: client got %+v, want %d", c.envelope, cr, c.client)
		}
	}
}

// TestEnvelopeAtController: the controller's node serves the request of
// an Envelope as the client's: the ACLs of the principal in it refuse a
// topic alone (the rest goes on to the quorum controller, as it is), and
// the principal's controller_mutation_rate is one bucket whichever broker
// forwarded: spent through one broker, it refuses the same user's next
// topic that came through another, THROTTLING_QUOTA_EXCEEDED with a
// throttle time. The answers go back in EnvelopeResponses on the
// forwarding broker's connection, with the client's correlation id.
func TestEnvelopeAtController(t *testing.T) {
	ctl := newEnvelopeNode(t, 1)
	allow := &cluster.ACL{ResourceType: int8(kmsg.ACLResourceTypeTopic), ResourceName: "a", PatternType: int8(kmsg.ACLResourcePatternTypePrefixed),
		Principal: "User:alice", Host: "*", Operation: int8(kmsg.ACLOperationCreate), Permission: int8(kmsg.ACLPermissionTypeAllow)}
	ctl.b.cl.image.ACLs = map[string]*cluster.ACL{cluster.ACLKey(allow): allow}
	alice := "alice"
	ctl.b.cl.image.Quotas = quota.Quotas{quota.Entity{{Type: quota.User, Name: &alice}}.Key(): {quota.ControllerMutationRate: 1}}

	// Forwarded by broker 2 and broker 3 (two edges of the same node).
	fwd2, fwd3 := newEnvelopeNode(t, 2), newEnvelopeNode(t, 3)
	seal := func(fwd *envelopeNode, corr int32, req *kmsg.CreateTopicsRequest) *kmsg.EnvelopeRequest {
		fwd.b.Handle(1000, Request{Conn: 9, Principal: "User:alice", Host: "/10.0.0.9",
			Header: wire.Header{Key: 19, Version: req.Version, CorrelationID: corr, ClientID: "cli"}, Msg: req})
		return fwd.lastSent().Req.(*kmsg.EnvelopeRequest)
	}
	open := func(r Response, corr int32) *kmsg.CreateTopicsResponse {
		t.Helper()
		env, ok := r.Msg.(*kmsg.EnvelopeResponse)
		if !ok || env.ErrorCode != 0 {
			t.Fatalf("answer %+v, want an EnvelopeResponse", r.Msg)
		}
		resp := kmsg.NewPtrCreateTopicsResponse()
		resp.SetVersion(6)
		got, err := wire.ParseForwardedResponse(env.ResponseData, resp)
		if err != nil || got != corr {
			t.Fatalf("inner answer: corr %d (want %d), %v", got, corr, err)
		}
		return resp
	}

	env := seal(fwd2, 50, createTopicsReq(6, map[string]int32{"a1": 20, "b": 1}, "a1", "b"))
	ctl.b.HandleEnvelope(2000, Request{Conn: peer(2), Header: wire.Header{Key: 58, CorrelationID: 500}, Msg: env})
	s := ctl.lastSent()
	plain, ok := s.Req.(*kmsg.CreateTopicsRequest)
	if s.To != ToController || !ok || len(plain.Topics) != 1 || plain.Topics[0].Topic != "a1" {
		t.Fatalf("sent %T %+v to %d, want CreateTopics a1 alone to the controller", s.Req, s.Req, s.To)
	}
	done := kmsg.NewPtrCreateTopicsResponse()
	done.SetVersion(6)
	done.Topics = append(done.Topics, kmsg.CreateTopicsResponseTopic{Topic: "a1", NumPartitions: 20, ReplicationFactor: 1})
	ctl.b.Receive(2001, s.ID, done)
	r := ctl.answer()
	if r.Conn != peer(2) || r.CorrelationID != 500 {
		t.Fatalf("answered conn %d corr %d, want broker 2's Envelope", r.Conn, r.CorrelationID)
	}
	first := codes(open(r, 50))
	if len(first) != 2 || first["a1"] != 0 || first["b"] != kerr.TopicAuthorizationFailed.Code {
		t.Errorf("a1 and b through broker 2: %v, want a1 created and b TOPIC_AUTHORIZATION_FAILED", first)
	}

	// 20 partitions put alice's bucket (burst 11) in debt: her next topic,
	// through broker 3, is refused at once.
	env = seal(fwd3, 60, createTopicsReq(6, map[string]int32{"a2": 1}, "a2"))
	ctl.b.HandleEnvelope(2002, Request{Conn: peer(3), Header: wire.Header{Key: 58, CorrelationID: 600}, Msg: env})
	s = ctl.lastSent()
	if plain, ok := s.Req.(*kmsg.CreateTopicsRequest); !ok || len(plain.Topics) != 0 {
		t.Fatalf("sent %+v on to the controller, want a CreateTopics without the refused topic", s.Req)
	}
	none := kmsg.NewPtrCreateTopicsResponse()
	none.SetVersion(6)
	ctl.b.Receive(2003, s.ID, none)
	second := open(ctl.answer(), 60)
	if c := codes(second); len(c) != 1 || c["a2"] != kerr.ThrottlingQuotaExceeded.Code || second.ThrottleMillis <= 0 {
		t.Errorf("a2 through broker 3: %v throttle %dms, want THROTTLING_QUOTA_EXCEEDED and a throttle", c, second.ThrottleMillis)
	}
}

// TestEnvelopeRefused: an Envelope whose request is not one brokers
// forward, or whose principal does not parse, is answered
// INVALID_REQUEST and goes no further; a client cannot send an Envelope
// (ApiVersions does not list it).
func TestEnvelopeRefused(t *testing.T) {
	ctl := newEnvelopeNode(t, 1)
	create := wire.AppendForwarded(nil, wire.Header{CorrelationID: 1}, createTopicsReq(6, nil))
	produce := append([]byte{0, 0}, create[2:]...) // key 0: Produce, which no broker forwards
	bad := []*kmsg.EnvelopeRequest{
		{RequestData: produce},
		{RequestData: create, RequestPrincipal: []byte{0, 0, 9}},
		{RequestData: []byte{0, 19}},
	}
	for i, env := range bad {
		ctl.b.HandleEnvelope(1000, Request{Conn: peer(2), Header: wire.Header{Key: 58, CorrelationID: int32(i)}, Msg: env})
		if r, ok := ctl.answer().Msg.(*kmsg.EnvelopeResponse); !ok || r.ErrorCode != kerr.InvalidRequest.Code {
			t.Errorf("Envelope %d: answer %+v, want INVALID_REQUEST", i, r)
		}
		if len(ctl.sent) != 0 {
			t.Errorf("Envelope %d went on to the controller", i)
		}
	}
	if Serves(58, 0) {
		t.Error("a client port serves Envelope")
	}
}

// TestEnvelopeSenderClusterAction: each Envelope is checked, as Kafka's
// controller checks it, for CLUSTER_ACTION on the cluster by the
// principal of the connection it came on: a peer without it is answered
// CLUSTER_AUTHORIZATION_FAILED and its request goes no further, whatever
// the client's principal inside; with an ALLOW of CLUSTER_ACTION (or ALL)
// the same Envelope goes on to the controller, and one without a
// principal (the simulator's) is not checked.
func TestEnvelopeSenderClusterAction(t *testing.T) {
	ctl := newEnvelopeNode(t, 1)
	fwd := newEnvelopeNode(t, 2)
	fwd.b.Handle(1000, Request{Conn: 9, Principal: "User:admin", Host: "/10.0.0.9",
		Header: wire.Header{Key: 19, Version: 6, CorrelationID: 5, ClientID: "cli"}, Msg: createTopicsReq(6, map[string]int32{"t": 1}, "t")})
	env := fwd.lastSent().Req.(*kmsg.EnvelopeRequest)
	ctl.b.cfg.Authorizer.SuperUsers = []string{"User:admin"} // the client inside may do anything
	send := func(sender string) {
		ctl.b.HandleEnvelope(2000, Request{Conn: peer(2), Principal: sender, Host: "/10.0.0.2", Header: wire.Header{Key: 58, CorrelationID: 7}, Msg: env})
	}
	allow := func(op kmsg.ACLOperation) {
		a := &cluster.ACL{ResourceType: int8(kmsg.ACLResourceTypeCluster), ResourceName: cluster.ClusterResource, PatternType: int8(kmsg.ACLResourcePatternTypeLiteral),
			Principal: "User:broker", Host: "*", Operation: int8(op), Permission: int8(kmsg.ACLPermissionTypeAllow)}
		ctl.b.cl.image.ACLs = map[string]*cluster.ACL{cluster.ACLKey(a): a}
	}
	for _, op := range []kmsg.ACLOperation{-1, kmsg.ACLOperationAlter, kmsg.ACLOperationDescribe} {
		if op >= 0 {
			allow(op)
		}
		send("User:broker")
		if r, ok := ctl.answer().Msg.(*kmsg.EnvelopeResponse); !ok || r.ErrorCode != kerr.ClusterAuthorizationFailed.Code || r.ResponseData != nil {
			t.Errorf("sender with %v on the cluster: answer %+v, want CLUSTER_AUTHORIZATION_FAILED", op, r)
		}
		if len(ctl.sent) != 0 {
			t.Fatalf("sender with %v on the cluster: the request went on to the controller", op)
		}
	}
	for _, op := range []kmsg.ACLOperation{kmsg.ACLOperationClusterAction, kmsg.ACLOperationAll} {
		allow(op)
		send("User:broker")
		if s := ctl.lastSent(); s.To != ToController || s.Req.Key() != 19 {
			t.Errorf("sender with %v on the cluster: sent %T to %d, want the CreateTopics to the controller", op, s.Req, s.To)
		}
	}
	ctl.b.cl.image.ACLs = nil
	send("")
	if s := ctl.lastSent(); s.Req.Key() != 19 {
		t.Errorf("an Envelope without a principal: sent %T, want the CreateTopics", s.Req)
	}
}

// TestForwardableServed: every API a broker forwards in an Envelope has
// a handler, which the controller's node runs on the request inside.
func TestForwardableServed(t *testing.T) {
	n := 0
	for key := range int16(100) {
		if wire.Forwardable(key) {
			n++
			if _, ok := handlers[key]; !ok {
				t.Errorf("%s is forwardable and has no handler", kmsg.NameForKey(key))
			}
		}
	}
	if n != 13 {
		t.Errorf("%d forwardable APIs, want 13", n)
	}
}

func peer(id int32) uint64 { return 1<<62 + uint64(id) }
