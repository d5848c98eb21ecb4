package broker

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/store"
)

// pinStore is a Storage whose files pin (store.Ranger), counting the
// spans held, as the file store's do.
type pinStore struct {
	store.Storage
	held *int
}

func (s pinStore) Open(name string) (store.File, error) { return s.wrap(s.Storage.Open(name)) }

func (s pinStore) Create(name string) (store.File, error) { return s.wrap(s.Storage.Create(name)) }

func (s pinStore) wrap(f store.File, err error) (store.File, error) {
	if err != nil {
		return nil, err
	}
	return pinFile{f, s.held}, nil
}

type pinFile struct {
	store.File
	held *int
}

func (f pinFile) Span(off int64, n int) (store.Span, error) {
	*f.held++
	return &heldSpan{f: f, off: off, n: n}, nil
}

type heldSpan struct {
	f        pinFile
	off      int64
	n        int
	released bool
}

func (s *heldSpan) Len() int { return s.n }

func (s *heldSpan) Release() {
	if !s.released {
		s.released = true
		*s.f.held--
	}
}

func (s *heldSpan) bytes(t *testing.T) []byte {
	b := make([]byte, s.n)
	if _, err := s.f.ReadAt(b, s.off); err != nil {
		t.Fatal(err)
	}
	return b
}

// pinningHarness is a broker on a store whose files pin.
func pinningHarness(t *testing.T) (*harness, *int) {
	held := new(int)
	h := &harness{t: t, st: store.NewMem(), now: 1_000_000, wrap: func(st store.Storage) store.Storage { return pinStore{st, held} }}
	h.open()
	h.createTopic("t", 1, nil)
	return h, held
}

// TestZeroCopyFetchPins: a ZeroCopy fetch gets its batches as a pinned
// span holding exactly the bytes a copying fetch gets, with the same
// aborted transactions for read_committed; the broker keeps no pin once
// it answered, nor while a fetch waits, and the driver's Release frees
// what it was handed.
func TestZeroCopyFetchPins(t *testing.T) {
	h, held := pinningHarness(t)
	for _, v := range []string{"a", "bb", "ccc"} {
		call[*kmsg.ProduceResponse](h, produceReq("t", 0, -1, batchOf(v)))
	}
	for _, iso := range []int8{0, 1} {
		req := fetchReq("t", 0, 1, 1, 0)
		req.IsolationLevel = iso
		copied := call[*kmsg.FetchResponse](h, req).Topics[0].Partitions[0]
		h.zeroCopy = true
		out := h.send(req)
		h.zeroCopy = false
		if len(out) != 1 || len(out[0].Ranged) != 1 || *held != 1 || len(h.b.pins) != 0 {
			t.Fatalf("isolation %d: %d answers, %+v ranged, %d held, %d kept by the broker; want one span handed over",
				iso, len(out), out[0].Ranged, *held, len(h.b.pins))
		}
		p := out[0].Msg.(*kmsg.FetchResponse).Topics[0].Partitions[0]
		span := out[0].Ranged[0].Span.(*heldSpan)
		if got := span.bytes(t); !bytes.Equal(got, copied.RecordBatches) || len(p.RecordBatches) != 0 {
			t.Fatalf("isolation %d: span of %d bytes, partition keeps %d; the copy has %d", iso, len(got), len(p.RecordBatches), len(copied.RecordBatches))
		}
		if (p.AbortedTransactions == nil) != (copied.AbortedTransactions == nil) {
			t.Fatalf("isolation %d: aborted transactions %v, the copy's %v", iso, p.AbortedTransactions, copied.AbortedTransactions)
		}
		Release(out[0].Ranged)
		if *held != 0 {
			t.Fatalf("isolation %d: %d spans held after Release", iso, *held)
		}
	}

	h.zeroCopy = true
	if out := h.send(fetchReq("t", 0, 0, 1000, 500)); len(out) != 0 || *held != 0 {
		t.Fatalf("a waiting fetch: %d answers, %d spans held; want none", len(out), *held)
	}
	h.zeroCopy = false
	out := h.send(produceReq("t", 0, -1, batchOf(strings.Repeat("x", 2000))))
	if len(out) != 2 || len(out[0].Ranged) != 1 || *held != 1 {
		t.Fatalf("the woken fetch: %d answers, %d spans held; want its span", len(out), *held)
	}
	Release(out[0].Ranged)
}

// TestZeroCopyFetchQuota: pinned bytes count against consumer_byte_rate
// as copied ones do, and a throttled answer releases its pins.
func TestZeroCopyFetchQuota(t *testing.T) {
	h, held := pinningHarness(t)
	alter := kmsg.NewPtrAlterClientQuotasRequest()
	entry := kmsg.NewAlterClientQuotasRequestEntry()
	entry.Entity = []kmsg.AlterClientQuotasRequestEntryEntity{{Type: "client-id"}}
	entry.Ops = []kmsg.AlterClientQuotasRequestEntryOp{{Key: "consumer_byte_rate", Value: 1000}}
	alter.Entries = append(alter.Entries, entry)
	call[*kmsg.AlterClientQuotasResponse](h, alter)
	batch := batchOf(strings.Repeat("x", 5950))
	for range 2 {
		call[*kmsg.ProduceResponse](h, produceReq("t", 0, -1, batch))
	}
	h.zeroCopy = true
	first := h.send(fetchReq("t", 0, 0, 1, 0))
	if len(first[0].Ranged) != 1 || first[0].Msg.(*kmsg.FetchResponse).ThrottleMillis != 0 {
		t.Fatalf("first fetch: %+v ranged; want the first batch pinned, unthrottled", first[0].Ranged)
	}
	Release(first[0].Ranged)
	over := h.send(fetchReq("t", 0, 1, 1, 0))
	f := over[0].Msg.(*kmsg.FetchResponse)
	if f.ThrottleMillis == 0 || f.Topics != nil || over[0].Ranged != nil || *held != 0 {
		t.Fatalf("fetch over quota: throttle %d, %d topics, %d ranged, %d held; want throttled, empty, nothing pinned",
			f.ThrottleMillis, len(f.Topics), len(over[0].Ranged), *held)
	}
}

// TestZeroCopyFetchSession: an incremental fetch session's answer keeps
// a partition whose batches are pinned (it has records) and renumbers its
// span to where the partition now sits; an answer a later fetch of the
// session overtook is refused and releases its pins.
func TestZeroCopyFetchSession(t *testing.T) {
	held := new(int)
	h := &harness{t: t, st: store.NewMem(), now: 1_000_000, wrap: func(st store.Storage) store.Storage { return pinStore{st, held} }}
	h.open()
	h.createTopic("t", 3, nil)
	for p := range int32(3) {
		call[*kmsg.ProduceResponse](h, produceReq("t", p, -1, batchOf("a")))
	}
	h.zeroCopy = true
	out := h.send(sessionFetch(0, 0, map[int32]int64{0: 0, 1: 0, 2: 0}))
	id := out[0].Msg.(*kmsg.FetchResponse).SessionID
	if len(out[0].Ranged) != 3 || id == 0 {
		t.Fatalf("opening fetch: %d spans, session %d", len(out[0].Ranged), id)
	}
	Release(out[0].Ranged)
	call[*kmsg.ProduceResponse](h, produceReq("t", 2, -1, batchOf("late")))
	out = h.send(sessionFetch(id, 1, map[int32]int64{0: 1, 1: 1, 2: 1}))
	f := out[0].Msg.(*kmsg.FetchResponse)
	if !slices.Equal(partsOf(f), []int32{2}) || len(out[0].Ranged) != 1 || out[0].Ranged[0].Topic != 0 || out[0].Ranged[0].Partition != 0 {
		t.Fatalf("incremental answer: partitions %v, ranged %+v; want p2 alone with its span at [0][0]", partsOf(f), out[0].Ranged)
	}
	h.zeroCopy = false
	copied := call[*kmsg.FetchResponse](h, sessionFetch(0, -1, map[int32]int64{2: 1})).Topics[0].Partitions[0].RecordBatches
	h.zeroCopy = true
	if got := out[0].Ranged[0].Span.(*heldSpan).bytes(t); !bytes.Equal(got, copied) {
		t.Errorf("p2's span holds %d bytes, not the %d a copying fetch reads", len(got), len(copied))
	}
	Release(out[0].Ranged)
	wait := sessionFetch(id, 2, map[int32]int64{2: 2})
	wait.MinBytes, wait.MaxWaitMillis = 1, 5000
	if out := h.send(wait); len(out) != 0 {
		t.Fatal("a fetch with nothing new answered at once")
	}
	h.send(sessionFetch(id, 3, nil)) // overtakes the waiting one
	var overtaken *Response
	for _, r := range h.send(produceReq("t", 2, -1, batchOf("b"))) {
		if _, ok := r.Msg.(*kmsg.FetchResponse); ok {
			overtaken = &r
		}
	}
	if overtaken == nil || overtaken.Msg.(*kmsg.FetchResponse).ErrorCode != kerr.InvalidFetchSessionEpoch.Code || len(overtaken.Ranged) != 0 || *held != 0 {
		t.Fatalf("the overtaken fetch: %+v, %d spans held; want INVALID_FETCH_SESSION_EPOCH and none", overtaken, *held)
	}
}
