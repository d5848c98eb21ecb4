package broker

import (
	"fmt"
	"slices"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// sessionFetch is a Fetch v12 of topic t's partitions at their offsets in
// session id at epoch, waiting for nothing.
func sessionFetch(id, epoch int32, offsets map[int32]int64) *kmsg.FetchRequest {
	req := kmsg.NewPtrFetchRequest()
	req.SetVersion(12)
	req.MaxBytes, req.SessionID, req.SessionEpoch = 1<<20, id, epoch
	if len(offsets) == 0 {
		return req
	}
	rt := kmsg.NewFetchRequestTopic()
	rt.Topic = "t"
	for _, p := range sortedKeys(offsets) {
		rp := kmsg.NewFetchRequestTopicPartition()
		rp.Partition, rp.FetchOffset, rp.PartitionMaxBytes = p, offsets[p], 1<<20
		rt.Partitions = append(rt.Partitions, rp)
	}
	req.Topics = append(req.Topics, rt)
	return req
}

func sortedKeys(m map[int32]int64) []int32 {
	var ks []int32
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// listed lists an answer's partitions as "p:records-bytes:error".
func listed(f *kmsg.FetchResponse) []string {
	var out []string
	for _, rt := range f.Topics {
		for _, rp := range rt.Partitions {
			out = append(out, fmt.Sprintf("%d:%d:%d", rp.Partition, len(rp.RecordBatches), rp.ErrorCode))
		}
	}
	return out
}

// partsOf names an answer's partitions, in order.
func partsOf(f *kmsg.FetchResponse) []int32 {
	var out []int32
	for _, rt := range f.Topics {
		for _, rp := range rt.Partitions {
			out = append(out, rp.Partition)
		}
	}
	return out
}

// TestFetchSessionSendsOnlyNews: KIP-227 on the wire. A full fetch of
// three partitions opens a session and answers all three; an empty
// incremental fetch (a request of a few bytes) answers none while
// nothing changed, then only the partition that was written to, with
// its records; a fetch that waits answers when the partition it waits
// for is written, with that partition alone.
func TestFetchSessionSendsOnlyNews(t *testing.T) {
	h := newHarness(t, nil)
	h.createTopic("t", 3, nil)
	for p := range int32(3) {
		call[*kmsg.ProduceResponse](h, produceReq("t", p, -1, batchOf("a")))
	}
	full := call[*kmsg.FetchResponse](h, sessionFetch(0, 0, map[int32]int64{0: 0, 1: 0, 2: 0}))
	if full.ErrorCode != 0 || full.SessionID == 0 || len(listed(full)) != 3 {
		t.Fatalf("full fetch: error %d session %d partitions %v", full.ErrorCode, full.SessionID, listed(full))
	}
	id := full.SessionID
	// The consumer moves its offsets past what it read.
	moved := call[*kmsg.FetchResponse](h, sessionFetch(id, 1, map[int32]int64{0: 1, 1: 1, 2: 1}))
	if moved.ErrorCode != 0 || moved.SessionID != id || len(moved.Topics) != 0 {
		t.Fatalf("incremental fetch with nothing new: error %d session %d partitions %v, want none", moved.ErrorCode, moved.SessionID, listed(moved))
	}
	empty := sessionFetch(id, 2, nil)
	wire := empty.AppendTo(nil)
	if len(wire) > 32 {
		t.Errorf("an empty incremental fetch is %d bytes on the wire", len(wire))
	}
	if idle := call[*kmsg.FetchResponse](h, empty); len(idle.Topics) != 0 {
		t.Errorf("idle session: %v, want no partitions", listed(idle))
	}
	call[*kmsg.ProduceResponse](h, produceReq("t", 1, -1, batchOf("b")))
	news := call[*kmsg.FetchResponse](h, sessionFetch(id, 3, nil))
	if got := listed(news); len(got) != 1 || news.Topics[0].Partitions[0].Partition != 1 || news.Topics[0].Partitions[0].HighWatermark != 2 {
		t.Fatalf("after a write to p1: %v, want p1 alone with its record", got)
	}
	// The bytes as sent decode to the same one partition.
	back := kmsg.NewPtrFetchResponse()
	back.SetVersion(12)
	if err := back.ReadFrom(news.AppendTo(nil)); err != nil || len(listed(back)) != 1 {
		t.Fatalf("decoded answer: %v %v", listed(back), err)
	}
	// A fetch that waits is answered by the write to p2, with p2 alone
	// (p1's offset moved on, so it has nothing new).
	wait := sessionFetch(id, 4, map[int32]int64{1: 2})
	wait.MinBytes, wait.MaxWaitMillis = 1, 5000
	if out := h.send(wait); len(out) != 0 {
		t.Fatalf("a fetch with nothing to read answered at once: %v", listed(out[0].Msg.(*kmsg.FetchResponse)))
	}
	var woke *kmsg.FetchResponse
	for _, r := range h.send(produceReq("t", 2, -1, batchOf("c"))) {
		if f, ok := r.Msg.(*kmsg.FetchResponse); ok {
			woke = f
		}
	}
	if woke == nil || !slices.Equal(partsOf(woke), []int32{2}) || woke.SessionID != id {
		t.Fatalf("the waiting fetch after a write to p2: %+v", woke)
	}
}

// TestFetchSessionErrors: an unknown session, a wrong epoch and a change
// between topic names and ids are refused with no partitions, and a
// refused epoch leaves the session usable; epoch -1 closes the session
// it names, and epoch 0 closes it and opens another.
func TestFetchSessionErrors(t *testing.T) {
	h := newHarness(t, nil)
	h.createTopic("t", 1, nil)
	call[*kmsg.ProduceResponse](h, produceReq("t", 0, -1, batchOf("a")))
	open := func() int32 {
		f := call[*kmsg.FetchResponse](h, sessionFetch(0, 0, map[int32]int64{0: 0}))
		if f.SessionID == 0 {
			t.Fatal("no session opened")
		}
		return f.SessionID
	}
	refused := func(name string, req *kmsg.FetchRequest, want *kerr.Error) {
		t.Helper()
		f := call[*kmsg.FetchResponse](h, req)
		if f.ErrorCode != want.Code || len(f.Topics) != 0 {
			t.Errorf("%s: error %v partitions %v, want %s and none", name, kerr.ErrorForCode(f.ErrorCode), listed(f), want.Message)
		}
	}
	id := open()
	refused("unknown session", sessionFetch(id+1, 1, nil), kerr.FetchSessionIDNotFound)
	refused("epoch 5 of a session at 1", sessionFetch(id, 5, nil), kerr.InvalidFetchSessionEpoch)
	byID := sessionFetch(id, 1, nil)
	byID.SetVersion(13)
	refused("topic ids in a session of names", byID, kerr.FetchSessionTopicIDError)
	if f := call[*kmsg.FetchResponse](h, sessionFetch(id, 1, nil)); f.ErrorCode != 0 || f.SessionID != id {
		t.Errorf("the right epoch after refusals: error %d session %d", f.ErrorCode, f.SessionID)
	}
	// Sessionless fetches still read, whatever session id they carry.
	for _, c := range []struct{ id, epoch int32 }{{0, -1}, {-1, -1}} {
		f := call[*kmsg.FetchResponse](h, sessionFetch(c.id, c.epoch, map[int32]int64{0: 0}))
		if f.ErrorCode != 0 || f.SessionID != 0 || len(listed(f)) != 1 {
			t.Errorf("session %d epoch %d: error %d session %d %v", c.id, c.epoch, f.ErrorCode, f.SessionID, listed(f))
		}
	}
	if f := call[*kmsg.FetchResponse](h, sessionFetch(id, -1, map[int32]int64{0: 0})); f.SessionID != 0 || len(listed(f)) != 1 {
		t.Errorf("closing full fetch: session %d %v", f.SessionID, listed(f))
	}
	refused("a closed session", sessionFetch(id, 2, nil), kerr.FetchSessionIDNotFound)
	id = open()
	reopened := call[*kmsg.FetchResponse](h, sessionFetch(id, 0, map[int32]int64{0: 0}))
	if reopened.SessionID == 0 || reopened.SessionID == id {
		t.Errorf("epoch 0 naming session %d: session %d, want a new one", id, reopened.SessionID)
	}
	refused("a session replaced by epoch 0", sessionFetch(id, 1, nil), kerr.FetchSessionIDNotFound)
	// Fetches before v7 know no sessions.
	old := sessionFetch(0, 0, map[int32]int64{0: 0})
	old.SetVersion(6)
	if f := call[*kmsg.FetchResponse](h, old); f.SessionID != 0 || len(listed(f)) != 1 {
		t.Errorf("Fetch v6: session %d %v", f.SessionID, listed(f))
	}
}

// TestFetchSessionForgetsAndRepeatsErrors: a forgotten partition is read
// no more; a partition in error is in every answer until the error
// clears, then once more with its high watermark; forgetting every
// partition ends the session.
func TestFetchSessionForgetsAndRepeatsErrors(t *testing.T) {
	h := newHarness(t, nil)
	h.createTopic("t", 2, nil)
	call[*kmsg.ProduceResponse](h, produceReq("t", 0, -1, batchOf("a")))
	id := call[*kmsg.FetchResponse](h, sessionFetch(0, 0, map[int32]int64{0: 1, 1: 0})).SessionID
	forget := func(req *kmsg.FetchRequest, ps ...int32) *kmsg.FetchRequest {
		ft := kmsg.NewFetchRequestForgottenTopic()
		ft.Topic, ft.Partitions = "t", ps
		req.ForgottenTopics = append(req.ForgottenTopics, ft)
		return req
	}
	call[*kmsg.ProduceResponse](h, produceReq("t", 1, -1, batchOf("b")))
	if f := call[*kmsg.FetchResponse](h, forget(sessionFetch(id, 1, nil), 1)); len(f.Topics) != 0 {
		t.Errorf("after forgetting p1, which was written to: %v, want none", listed(f))
	}
	epoch := int32(2)
	next := func(offsets map[int32]int64) *kmsg.FetchResponse {
		f := call[*kmsg.FetchResponse](h, sessionFetch(id, epoch, offsets))
		epoch++
		return f
	}
	bad := next(map[int32]int64{0: 99})
	again := next(nil)
	for _, f := range []*kmsg.FetchResponse{bad, again} {
		if got := listed(f); !slices.Equal(got, []string{fmt.Sprintf("0:0:%d", kerr.OffsetOutOfRange.Code)}) {
			t.Errorf("p0 at offset 99: %v, want OFFSET_OUT_OF_RANGE every time", got)
		}
	}
	if cleared := next(map[int32]int64{0: 1}); !slices.Equal(listed(cleared), []string{"0:0:0"}) || cleared.Topics[0].Partitions[0].HighWatermark != 1 {
		t.Errorf("p0 back at offset 1: %v, want p0 once with its high watermark", listed(cleared))
	}
	if quiet := next(nil); len(quiet.Topics) != 0 {
		t.Errorf("then: %v, want none", listed(quiet))
	}
	if f := call[*kmsg.FetchResponse](h, forget(sessionFetch(id, epoch, nil), 0)); f.ErrorCode != 0 || f.SessionID != 0 {
		t.Errorf("forgetting the last partition: error %d session %d, want a sessionless answer", f.ErrorCode, f.SessionID)
	}
	if f := call[*kmsg.FetchResponse](h, sessionFetch(id, epoch+1, nil)); f.ErrorCode != kerr.FetchSessionIDNotFound.Code {
		t.Errorf("the emptied session: error %d, want FETCH_SESSION_ID_NOT_FOUND", f.ErrorCode)
	}
}

// TestFetchSessionTurns: a partition that returned records in an
// incremental answer goes behind the others, so a byte limit that fits
// one batch reads each partition in turn rather than the first one dry.
func TestFetchSessionTurns(t *testing.T) {
	h := newHarness(t, nil)
	h.createTopic("t", 3, nil)
	for p := range int32(3) {
		call[*kmsg.ProduceResponse](h, produceReq("t", p, -1, batchOf("a")))
		call[*kmsg.ProduceResponse](h, produceReq("t", p, -1, batchOf("b")))
	}
	at := map[int32]int64{0: 0, 1: 0, 2: 0}
	req := sessionFetch(0, 0, at)
	var order []int32
	for epoch := int32(1); epoch <= 4; epoch++ {
		req.MaxBytes = 1 // the first batch only (the first is always whole)
		f := call[*kmsg.FetchResponse](h, req)
		moved := map[int32]int64{}
		for _, rt := range f.Topics {
			for _, rp := range rt.Partitions {
				if len(rp.RecordBatches) > 0 {
					order = append(order, rp.Partition)
					at[rp.Partition]++
					moved[rp.Partition] = at[rp.Partition]
				}
			}
		}
		req = sessionFetch(f.SessionID, epoch, moved)
	}
	// The full fetch reads p0; the first incremental one p0 again, which
	// then goes last; then p1, then p2.
	if !slices.Equal(order, []int32{0, 0, 1, 2}) {
		t.Errorf("partitions read: %v, want 0 0 1 2", order)
	}
}

// TestFetchSessionEviction: with one slot, a new session evicts the old
// one only when it is stale (idle over 120 s), or no longer new and
// smaller than the newcomer; a follower's session evicts a consumer's
// at once, and a consumer's never evicts a new follower's.
func TestFetchSessionEviction(t *testing.T) {
	h := newHarness(t, map[string]string{"max.incremental.fetch.session.cache.slots": "1"})
	h.createTopic("t", 3, nil)
	opens := func(offsets map[int32]int64, replica int32) bool {
		req := sessionFetch(0, 0, offsets)
		req.ReplicaID = replica
		return call[*kmsg.FetchResponse](h, req).SessionID != 0
	}
	one, three := map[int32]int64{0: 0}, map[int32]int64{0: 0, 1: 0, 2: 0}
	if !opens(one, -1) {
		t.Fatal("the first session found no slot")
	}
	if opens(three, -1) {
		t.Error("a larger session evicted one 0 s old")
	}
	h.now += 100_000
	if opens(three, -1) {
		t.Error("a larger session evicted one 100 s old")
	}
	h.now += 30_000 // 130 s old, and idle since it opened: stale
	if !opens(one, -1) {
		t.Error("a session evicted no stale one")
	}
	if !opens(one, 2) {
		t.Error("a follower's session did not evict a consumer's")
	}
	h.now += 60_000
	if opens(three, -1) {
		t.Error("a consumer's session evicted a follower's 60 s old")
	}
}
