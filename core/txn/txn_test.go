package txn

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/record"
)

// memLog keeps the records appended per partition.
type memLog struct{ recs map[int32][][2][]byte }

func (l *memLog) Append(p int32, b record.Batch) (int64, error) {
	rs, err := b.Records()
	if err != nil {
		return 0, err
	}
	off := int64(len(l.recs[p]))
	for _, r := range rs {
		l.recs[p] = append(l.recs[p], [2][]byte{r.Key, r.Value})
	}
	return off, nil
}

// markers answers every marker with the code fail (0: written).
type markers struct {
	fail    int16
	written []string
}

func (m *markers) WriteTxnMarkers(req *kmsg.WriteTxnMarkersRequest, done func(*kmsg.WriteTxnMarkersResponse)) {
	resp := req.ResponseKind().(*kmsg.WriteTxnMarkersResponse)
	for _, mk := range req.Markers {
		rm := kmsg.NewWriteTxnMarkersResponseMarker()
		for _, t := range mk.Topics {
			rt := kmsg.NewWriteTxnMarkersResponseMarkerTopic()
			rt.Topic = t.Topic
			for _, p := range t.Partitions {
				rt.Partitions = append(rt.Partitions, kmsg.WriteTxnMarkersResponseMarkerTopicPartition{Partition: p, ErrorCode: m.fail})
				if m.fail == 0 {
					m.written = append(m.written, t.Topic)
				}
			}
			rm.Topics = append(rm.Topics, rt)
		}
		resp.Markers = append(resp.Markers, rm)
	}
	done(resp)
}

func newCoord(l *memLog, mk *markers) *Coordinator {
	next := int64(100)
	return New(Config{Partitions: 3, Log: l, Markers: mk, ProducerIDs: func() (int64, error) { next++; return next, nil }}, 0)
}

func initPID(c *Coordinator, id string, now int64) *kmsg.InitProducerIDResponse {
	req := kmsg.NewPtrInitProducerIDRequest()
	req.SetVersion(4)
	req.TransactionalID, req.TransactionTimeoutMillis = &id, 1000
	return c.Handle(now, req).(*kmsg.InitProducerIDResponse)
}

func addPart(c *Coordinator, id string, pid int64, epoch int16, now int64) int16 {
	req := kmsg.NewPtrAddPartitionsToTxnRequest()
	req.SetVersion(3)
	req.TransactionalID, req.ProducerID, req.ProducerEpoch = id, pid, epoch
	req.Topics = []kmsg.AddPartitionsToTxnRequestTopic{{Topic: "t", Partitions: []int32{0}}}
	return c.Handle(now, req).(*kmsg.AddPartitionsToTxnResponse).Topics[0].Partitions[0].ErrorCode
}

func endTxn(c *Coordinator, id string, pid int64, epoch int16, commit bool, now int64) int16 {
	req := kmsg.NewPtrEndTxnRequest()
	req.SetVersion(3)
	req.TransactionalID, req.ProducerID, req.ProducerEpoch, req.Commit = id, pid, epoch, commit
	return c.Handle(now, req).(*kmsg.EndTxnResponse).ErrorCode
}

func TestRecordRoundTrip(t *testing.T) {
	m := &Metadata{TransactionalID: "app", ProducerID: 7, ProducerEpoch: 3, LastProducerEpoch: -1, TimeoutMs: 60000,
		State: PrepareCommit, Partitions: []TopicPartition{{"a", 0}, {"a", 2}, {"b", 1}}, StartTimestamp: 10, LastUpdateTimestamp: 20}
	id, got, err := Decode(EncodeKey("app"), EncodeValue(m))
	if err != nil || id != "app" {
		t.Fatal(id, err)
	}
	if got.Describe() != m.Describe() || got.StartTimestamp != 10 || got.LastUpdateTimestamp != 20 {
		t.Fatalf("got %s, want %s", got.Describe(), m.Describe())
	}
	if _, tomb, err := Decode(EncodeKey("app"), nil); err != nil || tomb != nil {
		t.Fatalf("tombstone: %v %v", tomb, err)
	}
}

func TestPartitionForMatchesJava(t *testing.T) {
	// "app".hashCode() = 96801; 96801 % 50 = 1.
	if p := PartitionFor("app", 50); p != 1 {
		t.Fatalf("partition %d", p)
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(EncodeKey("x"), EncodeValue(&Metadata{TransactionalID: "x", State: Ongoing, Partitions: []TopicPartition{{"t", 1}}}))
	f.Fuzz(func(t *testing.T, key, value []byte) {
		id, m, err := Decode(key, value)
		if err != nil || m == nil {
			return
		}
		if _, m2, err := Decode(EncodeKey(id), EncodeValue(m)); err != nil || m2.Describe() != m.Describe() {
			t.Fatalf("re-encode: %v", err)
		}
	})
}

// TestTransitions walks the state machine and checks that a replay of the
// log gives the same transactions.
func TestTransitions(t *testing.T) {
	l, mk := &memLog{recs: map[int32][][2][]byte{}}, &markers{}
	c := newCoord(l, mk)
	r := initPID(c, "app", 1)
	if r.ErrorCode != 0 || r.ProducerID != 101 || r.ProducerEpoch != 0 {
		t.Fatalf("init: %+v", r)
	}
	if code := endTxn(c, "app", 101, 0, true, 2); code != kerr.InvalidTxnState.Code {
		t.Fatalf("EndTxn on Empty: %v", kerr.ErrorForCode(code))
	}
	if code := addPart(c, "app", 101, 0, 3); code != 0 {
		t.Fatal(kerr.ErrorForCode(code))
	}
	if code := endTxn(c, "app", 101, 0, true, 4); code != 0 {
		t.Fatal(kerr.ErrorForCode(code))
	}
	if got, _ := c.Get("app"); got.State != PrepareCommit {
		t.Fatalf("after EndTxn: %s", got.State)
	}
	if code := addPart(c, "app", 101, 0, 5); code != kerr.ConcurrentTransactions.Code {
		t.Fatalf("add while preparing: %v", kerr.ErrorForCode(code))
	}
	// A marker that cannot be written keeps the transaction prepared.
	mk.fail = kerr.NotLeaderForPartition.Code
	c.WriteMarkers(6)
	if got, _ := c.Get("app"); got.State != PrepareCommit || c.MarkersDue() {
		t.Fatalf("after failed markers: %s, due %v", got.State, c.MarkersDue())
	}
	if at, ok := c.NextDeadline(); !ok || at != 6+markerRetryBackoffMs {
		t.Fatalf("retry at %d %v, want %d", at, ok, 6+markerRetryBackoffMs)
	}
	// A coordinator rebuilt from the log now finishes it too.
	c2 := newCoord(l, &markers{})
	for p, rs := range l.recs {
		for i, r := range rs {
			c2.Replay(p, int64(i), r[0], r[1])
		}
		c2.Recover(p)
	}
	c2.WriteMarkers(7)
	if got, _ := c2.Get("app"); got.State != CompleteCommit {
		t.Fatalf("rebuilt: %s", got.State)
	}
	mk.fail = 0
	c.WriteMarkers(6 + markerRetryBackoffMs)
	if got, _ := c.Get("app"); got.State != CompleteCommit || len(mk.written) != 1 {
		t.Fatalf("retried: %s markers %v", got.State, mk.written)
	}
	// Fencing: Ongoing + InitProducerId aborts with a bump, then bumps again.
	addPart(c, "app", 101, 0, 9)
	if r := initPID(c, "app", 10); r.ErrorCode != kerr.ConcurrentTransactions.Code {
		t.Fatalf("init while ongoing: %v", kerr.ErrorForCode(r.ErrorCode))
	}
	c.WriteMarkers(11)
	if got, _ := c.Get("app"); got.State != CompleteAbort || got.ProducerEpoch != 1 {
		t.Fatalf("fenced: %s epoch %d", got.State, got.ProducerEpoch)
	}
	if r := initPID(c, "app", 12); r.ErrorCode != 0 || r.ProducerEpoch != 2 {
		t.Fatalf("re-init: %+v", r)
	}
	if code := addPart(c, "app", 101, 0, 13); code != kerr.ProducerFenced.Code {
		t.Fatalf("zombie add: %v", kerr.ErrorForCode(code))
	}
	// Timeout: Tick aborts after the interval.
	addPart(c, "app", 101, 2, 14)
	c.Tick(20000)
	c.WriteMarkers(20000)
	if got, _ := c.Get("app"); got.State != CompleteAbort || got.ProducerEpoch != 3 {
		t.Fatalf("timed out: %s epoch %d", got.State, got.ProducerEpoch)
	}
	c3 := newCoord(l, &markers{})
	for p, rs := range l.recs {
		for i, r := range rs {
			c3.Replay(p, int64(i), r[0], r[1])
		}
	}
	a, _ := c.Get("app")
	b, _ := c3.Get("app")
	if a.Describe() != b.Describe() {
		t.Fatalf("replayed %s, live %s", b.Describe(), a.Describe())
	}
}
