package group_test

import (
	"math/rand/v2"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/broker"
	"github.com/gregor-kafka/gregor/core/config"
	"github.com/gregor-kafka/gregor/core/group/assign"
	"github.com/gregor-kafka/gregor/core/store"
	"github.com/gregor-kafka/gregor/core/wire"
)

// harness drives a broker on the memory store with a fake clock.
type harness struct {
	t        *testing.T
	st       *store.Mem
	settings map[string]string
	b        *broker.Broker
	now      int64
	corr     int32
	got      map[int32]kmsg.Response // by correlation id
}

func newHarness(t *testing.T, settings map[string]string) *harness {
	h := &harness{t: t, st: store.NewMem(), settings: settings, now: 1_000_000}
	h.open()
	return h
}

func (h *harness) open() {
	h.t.Helper()
	s := config.NewBroker()
	for k, v := range map[string]string{"group.initial.rebalance.delay.ms": "0", "offsets.topic.num.partitions": "5"} {
		if err := s.SetStatic(k, v); err != nil {
			h.t.Fatal(err)
		}
	}
	for k, v := range h.settings {
		if err := s.SetStatic(k, v); err != nil {
			h.t.Fatal(err)
		}
	}
	h.got = map[int32]kmsg.Response{}
	b, err := broker.New(broker.Config{NodeID: 1, Host: "localhost", Port: 9092, Settings: s, Rand: rand.New(rand.NewPCG(1, 2))},
		h.st, h.now)
	if err != nil {
		h.t.Fatal(err)
	}
	h.b = b
}

// restart closes the broker and opens a new one on the same store.
func (h *harness) restart() {
	h.t.Helper()
	if err := h.b.Close(); err != nil {
		h.t.Fatal(err)
	}
	h.open()
}

// send issues a request; the returned id collects its answer with answer.
func (h *harness) send(client string, req kmsg.Request) int32 {
	h.corr++
	h.b.Handle(h.now, broker.Request{Conn: uint64(h.corr), Header: wire.Header{Key: req.Key(), Version: req.GetVersion(), CorrelationID: h.corr, ClientID: client}, Msg: req})
	h.commit()
	return h.corr
}

// commit ends a call into the broker: it syncs, then keeps the answers
// the broker produced (Broker.Ready) by correlation id.
func (h *harness) commit() {
	if err := h.b.Commit(); err != nil {
		h.t.Fatal(err)
	}
	for _, e := range h.b.Ready().Effects {
		h.got[e.Response.CorrelationID] = e.Response.Msg
	}
}

// answer returns the answer to request id, or nil while it waits.
func (h *harness) answer(id int32) kmsg.Response {
	r := h.got[id]
	delete(h.got, id)
	return r
}

// do sends a request that must be answered at once.
func (h *harness) do(client string, req kmsg.Request) kmsg.Response {
	h.t.Helper()
	r := h.answer(h.send(client, req))
	if r == nil {
		h.t.Fatalf("%s got no immediate answer", kmsg.NameForKey(req.Key()))
	}
	return r
}

func (h *harness) advance(ms int64) {
	h.now += ms
	h.b.Tick(h.now)
	h.commit()
}

func topicReq(t *testing.T, h *harness, name string, partitions int32) {
	req := kmsg.NewPtrCreateTopicsRequest()
	rt := kmsg.NewCreateTopicsRequestTopic()
	rt.Topic, rt.NumPartitions, rt.ReplicationFactor = name, partitions, 1
	req.Topics = append(req.Topics, rt)
	resp := h.do("admin", req).(*kmsg.CreateTopicsResponse)
	if c := resp.Topics[0].ErrorCode; c != 0 {
		t.Fatalf("create %s: %v", name, kerr.ErrorForCode(c))
	}
}

func joinReq(group, memberID string, instance *string, topics ...string) *kmsg.JoinGroupRequest {
	req := kmsg.NewPtrJoinGroupRequest()
	req.Version = 9
	req.Group, req.MemberID, req.InstanceID = group, memberID, instance
	req.SessionTimeoutMillis, req.RebalanceTimeoutMillis = 10000, 30000
	req.ProtocolType = "consumer"
	for _, name := range []string{"cooperative-sticky", "range"} {
		p := kmsg.NewJoinGroupRequestProtocol()
		p.Name = name
		p.Metadata = assign.EncodeSubscription(name, assign.Member{Topics: topics, Generation: -1})
		req.Protocols = append(req.Protocols, p)
	}
	return req
}

func syncReq(group, memberID string, gen int32, assignments []kmsg.SyncGroupRequestGroupAssignment) *kmsg.SyncGroupRequest {
	req := kmsg.NewPtrSyncGroupRequest()
	req.Version = 5
	req.Group, req.MemberID, req.Generation = group, memberID, gen
	pt, p := "consumer", "cooperative-sticky"
	req.ProtocolType, req.Protocol = &pt, &p
	req.GroupAssignment = assignments
	return req
}

func heartbeatReq(group, memberID string, gen int32) *kmsg.HeartbeatRequest {
	req := kmsg.NewPtrHeartbeatRequest()
	req.Version = 4
	req.Group, req.MemberID, req.Generation = group, memberID, gen
	return req
}

// joinNew does the KIP-394 two-step join and returns the member id and
// the pending join's request id.
func (h *harness) joinNew(client, group string, topics ...string) (string, int32) {
	h.t.Helper()
	r := h.do(client, joinReq(group, "", nil, topics...)).(*kmsg.JoinGroupResponse)
	if r.ErrorCode != kerr.MemberIDRequired.Code || r.MemberID == "" {
		h.t.Fatalf("first join: %v member %q, want MEMBER_ID_REQUIRED", kerr.ErrorForCode(r.ErrorCode), r.MemberID)
	}
	return r.MemberID, h.send(client, joinReq(group, r.MemberID, nil, topics...))
}

func errName(code int16) string {
	if code == 0 {
		return "NONE"
	}
	return kerr.ErrorForCode(code).(*kerr.Error).Message
}

func wantCode(t *testing.T, what string, got int16, want *kerr.Error) {
	t.Helper()
	w := int16(0)
	if want != nil {
		w = want.Code
	}
	if got != w {
		t.Fatalf("%s: error %s, want %s", what, errName(got), errName(w))
	}
}
