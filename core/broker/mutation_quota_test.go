package broker

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/store"
	"github.com/gregor-kafka/gregor/core/wire"
)

// setQuota sets quota values on the default client-id.
func (h *harness) setQuota(kv ...any) {
	h.t.Helper()
	alter := kmsg.NewPtrAlterClientQuotasRequest()
	entry := kmsg.NewAlterClientQuotasRequestEntry()
	entry.Entity = []kmsg.AlterClientQuotasRequestEntryEntity{{Type: "client-id"}}
	for i := 0; i < len(kv); i += 2 {
		entry.Ops = append(entry.Ops, kmsg.AlterClientQuotasRequestEntryOp{Key: kv[i].(string), Value: kv[i+1].(float64)})
	}
	alter.Entries = append(alter.Entries, entry)
	if r := call[*kmsg.AlterClientQuotasResponse](h, alter); r.Entries[0].ErrorCode != 0 {
		h.t.Fatalf("AlterClientQuotas: %d", r.Entries[0].ErrorCode)
	}
}

// createTopics sends CreateTopics of version v for topics of n
// partitions each and returns the answer.
func (h *harness) createTopics(v int16, topics map[string]int32) *kmsg.CreateTopicsResponse {
	req := kmsg.NewPtrCreateTopicsRequest()
	req.SetVersion(v)
	for _, name := range []string{"a", "b", "c", "d", "e", "f"} {
		if n, ok := topics[name]; ok {
			rt := kmsg.NewCreateTopicsRequestTopic()
			rt.Topic, rt.NumPartitions, rt.ReplicationFactor = name, n, 1
			req.Topics = append(req.Topics, rt)
		}
	}
	return call[*kmsg.CreateTopicsResponse](h, req)
}

func codes(resp *kmsg.CreateTopicsResponse) map[string]int16 {
	out := map[string]int16{}
	for _, t := range resp.Topics {
		out[t.Topic] = t.ErrorCode
	}
	return out
}

// TestMutationQuota: controller_mutation_rate 1 gives a bucket of 11
// partitions (KIP-599). A strict CreateTopics (v6) passes topics while
// the bucket is not in debt, the one that puts it in debt included, and
// refuses the rest with THROTTLING_QUOTA_EXCEEDED and the time to repay;
// a permissive one (v5) creates everything and only throttles; a strict
// DeleteTopics and CreatePartitions in debt are refused, and pass once
// the debt is repaid on the clock.
func TestMutationQuota(t *testing.T) {
	h := newHarness(t, nil)
	h.setQuota("controller_mutation_rate", 1.0)
	throttling := kerr.ThrottlingQuotaExceeded.Code

	r := h.createTopics(6, map[string]int32{"a": 8, "b": 7, "c": 1})
	if got := codes(r); got["a"] != 0 || got["b"] != 0 || got["c"] != throttling || len(r.Topics) != 3 {
		t.Fatalf("strict CreateTopics: %v, want a and b created, c refused", got)
	}
	if r.ThrottleMillis != 4000 { // 11 - 15 = -4 tokens at 1/s
		t.Errorf("strict CreateTopics throttle %d ms, want 4000", r.ThrottleMillis)
	}
	if h.b.Topic("c") != nil || h.b.Topic("b") == nil {
		t.Errorf("the refused topic exists, or the admitted one does not")
	}

	r = h.createTopics(5, map[string]int32{"c": 2})
	if got := codes(r); got["c"] != 0 || r.ThrottleMillis != 6000 {
		t.Errorf("permissive CreateTopics: %v throttle %d, want created and 6000 ms", got, r.ThrottleMillis)
	}

	del := kmsg.NewPtrDeleteTopicsRequest()
	del.SetVersion(5)
	del.TopicNames = []string{"c"}
	d := call[*kmsg.DeleteTopicsResponse](h, del)
	if len(d.Topics) != 1 || d.Topics[0].ErrorCode != throttling || h.b.Topic("c") == nil {
		t.Errorf("strict DeleteTopics in debt: %+v, want refused and the topic kept", d.Topics)
	}

	grow := func() *kmsg.CreatePartitionsRequest { // a refused topic is taken out of the request
		req := kmsg.NewPtrCreatePartitionsRequest()
		req.SetVersion(3)
		req.Topics = []kmsg.CreatePartitionsRequestTopic{{Topic: "c", Count: 3}}
		return req
	}
	if g := call[*kmsg.CreatePartitionsResponse](h, grow()); g.Topics[0].ErrorCode != throttling || g.ThrottleMillis != 6000 {
		t.Errorf("strict CreatePartitions in debt: %+v throttle %d", g.Topics, g.ThrottleMillis)
	}

	h.now += 6000 // the debt is repaid; one partition more is 1 s of debt
	if g := call[*kmsg.CreatePartitionsResponse](h, grow()); g.Topics[0].ErrorCode != 0 || g.ThrottleMillis != 1000 || len(h.b.Topic("c").Partitions) != 3 {
		t.Errorf("CreatePartitions after the debt: %+v throttle %d", g.Topics, g.ThrottleMillis)
	}
	h.now += 2000
	del.SetVersion(6) // by name in Topics
	del.TopicNames, del.Topics = nil, []kmsg.DeleteTopicsRequestTopic{{Topic: kmsg.StringPtr("c")}}
	if d = call[*kmsg.DeleteTopicsResponse](h, del); d.Topics[0].ErrorCode != 0 || h.b.Topic("c") != nil {
		t.Errorf("DeleteTopics after the debt: %+v", d.Topics)
	}
	if d.ThrottleMillis != 2000 { // 1 token left, 3 partitions deleted
		t.Errorf("DeleteTopics throttle %d ms, want 2000", d.ThrottleMillis)
	}
}

// TestRequestPercentage: with request_percentage 10 a client may use
// 10% of a thread, 1 s of handler time in the 10 s span. Each request
// here takes 25 ms on the injected clock: the 41st is past the quota and
// is throttled by the excess, at most one window (1 s), beside its answer
// for the driver to write in (Response.Throttle).
func TestRequestPercentage(t *testing.T) {
	var ns int64
	h := &harness{t: t, st: store.NewMem(), now: 1_000_000, clock: func() int64 { ns += 25_000_000; return ns }}
	h.open()
	h.setQuota("request_percentage", 10.0)
	send := func() Response {
		h.corr++
		h.reset()
		req := kmsg.NewPtrMetadataRequest()
		h.b.Handle(h.now, Request{Conn: 1, Host: "/127.0.0.1", Header: wire.Header{Key: 3, Version: req.Version, CorrelationID: h.corr, ClientID: "c"}, Msg: req})
		return h.answers()[0]
	}
	for i := range 40 {
		if r := send(); r.Throttle != 0 {
			t.Fatalf("request %d throttled %d ms under quota", i+1, r.Throttle)
		}
	}
	if r := send(); r.Throttle != 250 { // 1.025 s / 10 s = 10.25%: (10.25-10)/10 × 10 s
		t.Errorf("41st request throttled %d ms, want 250", r.Throttle)
	}
	for range 10 {
		send()
	}
	if r := send(); r.Throttle != 1000 {
		t.Errorf("far over quota: throttled %d ms, want the 1000 ms bound", r.Throttle)
	}
}

// TestConnectionThrottle: the default ip entity allows 2 connections a
// second (20 in the 10 s span); the 21st is held and closed, and not
// counted; an address with its own quota is measured against it.
func TestConnectionThrottle(t *testing.T) {
	h := newHarness(t, nil)
	alter := kmsg.NewPtrAlterClientQuotasRequest()
	for _, ip := range []*string{nil, kmsg.StringPtr("10.0.0.9")} {
		entry := kmsg.NewAlterClientQuotasRequestEntry()
		entry.Entity = []kmsg.AlterClientQuotasRequestEntryEntity{{Type: "ip", Name: ip}}
		entry.Ops = []kmsg.AlterClientQuotasRequestEntryOp{{Key: "connection_creation_rate", Value: 2}}
		if ip != nil {
			entry.Ops[0].Value = 100
		}
		alter.Entries = append(alter.Entries, entry)
	}
	call[*kmsg.AlterClientQuotasResponse](h, alter)
	for i := range 20 {
		if ms := h.b.ConnectionThrottle(h.now, "10.0.0.1"); ms != 0 {
			t.Fatalf("connection %d held %d ms under quota", i+1, ms)
		}
	}
	for range 2 { // not counted: the same answer twice
		if ms := h.b.ConnectionThrottle(h.now, "10.0.0.1"); ms != 500 { // 21/10 s - 2/s over 2/s, × 10 s
			t.Errorf("21st connection held %d ms, want 500", ms)
		}
	}
	for i := range 30 {
		if ms := h.b.ConnectionThrottle(h.now, "10.0.0.9"); ms != 0 {
			t.Fatalf("connection %d of the address with its own quota held %d ms", i+1, ms)
		}
	}
}

// TestAlterReplicaLogDirs: the broker's one directory holds its replicas
// already; any other directory is LOG_DIR_NOT_FOUND, a partition the
// metadata does not have UNKNOWN_TOPIC_OR_PARTITION; a topic named under
// two directories is answered once.
func TestAlterReplicaLogDirs(t *testing.T) {
	h := newHarness(t, nil)
	h.createTopic("t", 2, nil)
	req := kmsg.NewPtrAlterReplicaLogDirsRequest()
	req.SetVersion(2)
	for _, dir := range []string{"/data", "/elsewhere"} {
		d := kmsg.NewAlterReplicaLogDirsRequestDir()
		d.Dir = dir
		d.Topics = []kmsg.AlterReplicaLogDirsRequestDirTopic{{Topic: "t", Partitions: []int32{0, 1, 2}}}
		req.Dirs = append(req.Dirs, d)
	}
	r := call[*kmsg.AlterReplicaLogDirsResponse](h, req)
	if len(r.Topics) != 1 {
		t.Errorf("t is answered in %d entries, want one with all its partitions (kadm keeps a topic's last entry only)", len(r.Topics))
	}
	var got []int16
	for _, rt := range r.Topics {
		for _, p := range rt.Partitions {
			got = append(got, p.ErrorCode)
		}
	}
	unknown, notFound := kerr.UnknownTopicOrPartition.Code, kerr.LogDirNotFound.Code
	want := []int16{0, 0, unknown, notFound, notFound, notFound}
	if len(got) != len(want) {
		t.Fatalf("codes %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("codes %v, want %v", got, want)
			break
		}
	}
}
