package share

import (
	"fmt"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

var lim = Limits{LockMs: 30000, MaxLocks: 100, MaxDelivery: 5}

// logOf is a log of n one-record batches from offset 0, as the broker's
// more function reads it.
func logOf(n int64) func(from int64, want int) []Span {
	return func(from int64, want int) []Span {
		var out []Span
		for off := from; off < n && len(out) < want; off++ {
			out = append(out, Span{First: off, Last: off})
		}
		return out
	}
}

func ranges(rs []kmsg.ShareFetchResponseTopicPartitionAcquiredRecord) string {
	var b strings.Builder
	for _, r := range rs {
		fmt.Fprintf(&b, "%d-%d#%d ", r.FirstOffset, r.LastOffset, r.DeliveryCount)
	}
	return strings.TrimSpace(b.String())
}

func states(p *Partition) string {
	var b strings.Builder
	fmt.Fprintf(&b, "start=%d", p.Start)
	for i, r := range p.Records() {
		fmt.Fprintf(&b, " %d:%s/%d%s", p.Start+int64(i), r.State, r.Count, r.Owner)
	}
	return b.String()
}

func TestLockTimeoutRedelivers(t *testing.T) {
	p := NewPartition(0)
	if got := ranges(p.Acquire("a", 0, lim, 10, logOf(3))); got != "0-2#1" {
		t.Fatalf("first acquire: %s", got)
	}
	if got := ranges(p.Acquire("b", 1000, lim, 10, logOf(3))); got != "" {
		t.Fatalf("b acquired records a holds: %s", got)
	}
	if got := p.Expire(29999, lim); len(got) != 0 {
		t.Fatalf("a lock expired before its time: %+v", got)
	}
	if got := p.Expire(30000, lim); len(got) != 3 || got[0] != (Released{0, "a", Available, 1}) {
		t.Fatalf("the locks did not expire at 30 s: %+v", got)
	}
	if got := ranges(p.Acquire("b", 30000, lim, 10, logOf(3))); got != "0-2#2" {
		t.Fatalf("redelivery: %s", got)
	}
	if code := p.Ack("a", []AckBatch{{0, 0, []int8{AckAccept}}}, lim, 0); code != kerr.InvalidRecordState.Code {
		t.Fatalf("a acknowledged a record b holds: code %d", code)
	}
}

func TestDeliveryLimitArchives(t *testing.T) {
	p := NewPartition(0)
	for i := 1; i <= 5; i++ {
		if got, want := ranges(p.Acquire("a", 0, lim, 10, logOf(2))), fmt.Sprintf("0-0#%d", i); i > 1 && got != want {
			t.Fatalf("delivery %d: %s, want %s", i, got, want)
		}
		batches := []AckBatch{{0, 0, []int8{AckRelease}}}
		if i == 1 {
			batches = append(batches, AckBatch{1, 1, []int8{AckAccept}})
		}
		if code := p.Ack("a", batches, lim, 0); code != 0 {
			t.Fatalf("ack %d: %d", i, code)
		}
	}
	// Offset 0 was released five times: it is archived, the start moves.
	if got := states(p); got != "start=2" {
		t.Fatalf("after five releases: %s", got)
	}
}

func TestDeliveryLimitOnLockExpiry(t *testing.T) {
	p := NewPartition(0)
	now := int64(0)
	for i := 1; i <= 5; i++ {
		if got := ranges(p.Acquire("a", now, lim, 10, logOf(1))); got != fmt.Sprintf("0-0#%d", i) {
			t.Fatalf("delivery %d: %s", i, got)
		}
		now += lim.LockMs
		p.Expire(now, lim)
	}
	if got := states(p); got != "start=1" {
		t.Fatalf("after five expired locks: %s", got)
	}
	if got := ranges(p.Acquire("a", now, lim, 10, logOf(1))); got != "" {
		t.Fatalf("an archived record was delivered: %s", got)
	}
}

func TestRejectArchivesAndGapsAreDone(t *testing.T) {
	p := NewPartition(0)
	p.Acquire("a", 0, lim, 10, logOf(4))
	code := p.Ack("a", []AckBatch{{0, 3, []int8{AckReject, AckAccept, AckRelease, AckGap}}}, lim, 0)
	if code != 0 {
		t.Fatalf("ack: %d", code)
	}
	if got := states(p); got != "start=2 2:available/1 3:archived/1" {
		t.Fatalf("states: %s", got)
	}
	if got := ranges(p.Acquire("b", 0, lim, 10, logOf(4))); got != "2-2#2" {
		t.Fatalf("only the released record comes back: %s", got)
	}
}

func TestAckIsAllOrNone(t *testing.T) {
	p := NewPartition(0)
	p.Acquire("a", 0, lim, 2, logOf(4))
	p.Acquire("b", 0, lim, 2, logOf(4))
	code := p.Ack("a", []AckBatch{{0, 1, []int8{AckAccept}}, {2, 2, []int8{AckAccept}}}, lim, 0)
	if code != kerr.InvalidRecordState.Code {
		t.Fatalf("a acked b's record: code %d", code)
	}
	if got := states(p); got != "start=0 0:acquired/1a 1:acquired/1a 2:acquired/1b 3:acquired/1b" {
		t.Fatalf("a refused ack changed state: %s", got)
	}
	for _, bad := range [][]AckBatch{
		{{1, 0, []int8{AckAccept}}},               // first after last
		{{0, 1, []int8{AckAccept, AckAccept, 1}}}, // types do not match the range
		{{0, 0, []int8{4}}},                       // renew is v2
		{{0, 9, []int8{AckAccept}}},               // beyond the window
		{{1, 1, []int8{1}}, {0, 0, []int8{1}}},    // out of order
	} {
		if code := p.Ack("a", bad, lim, 0); code != kerr.InvalidRequest.Code {
			t.Errorf("%v: code %d, want INVALID_REQUEST", bad, code)
		}
	}
}

// Two members acquiring in turn, with locks expiring and releases, never
// hold the same record at once, and every record ends up done.
func TestMembersNeverShareARecord(t *testing.T) {
	p := NewPartition(0)
	members := []string{"a", "b", "c"}
	now := int64(0)
	held := map[int64]string{}
	for step := 0; step < 400; step++ {
		m := members[step%len(members)]
		now += 7000
		p.Expire(now, lim)
		for off, owner := range held {
			if r := p.Records(); off >= p.Start && r[off-p.Start].State != Acquired {
				delete(held, off)
			} else if off < p.Start {
				delete(held, off)
			} else if r[off-p.Start].Owner != owner {
				t.Fatalf("offset %d moved from %s to %s while locked", off, owner, r[off-p.Start].Owner)
			}
		}
		for _, r := range p.Acquire(m, now, lim, 3, logOf(60)) {
			for off := r.FirstOffset; off <= r.LastOffset; off++ {
				if o, ok := held[off]; ok {
					t.Fatalf("step %d: %s acquired offset %d that %s holds", step, m, off, o)
				}
				held[off] = m
			}
		}
		// Members accept even steps' records, release every fifth step's.
		var mine []AckBatch
		for off, owner := range held {
			if owner == m && step%2 == 0 {
				typ := AckAccept
				if step%5 == 0 {
					typ = AckRelease
				}
				mine = append(mine, AckBatch{off, off, []int8{typ}})
			}
		}
		sortBatches(mine)
		if code := p.Ack(m, mine, lim, 0); code != 0 {
			t.Fatalf("step %d: ack %v: %d", step, mine, code)
		}
	}
	if p.Start != 60 {
		t.Fatalf("not every record is done: %s", states(p))
	}
}

func sortBatches(bs []AckBatch) {
	for i := range bs {
		for j := i + 1; j < len(bs); j++ {
			if bs[j].First < bs[i].First {
				bs[i], bs[j] = bs[j], bs[i]
			}
		}
	}
}

func TestWindowIsBounded(t *testing.T) {
	small := Limits{LockMs: 1000, MaxLocks: 3, MaxDelivery: 5}
	p := NewPartition(0)
	if got := ranges(p.Acquire("a", 0, small, 10, logOf(10))); got != "0-2#1" {
		t.Fatalf("acquire: %s", got)
	}
	if got := ranges(p.Acquire("b", 0, small, 10, logOf(10))); got != "" {
		t.Fatalf("acquired beyond max.record.locks: %s", got)
	}
	p.Ack("a", []AckBatch{{0, 0, []int8{AckAccept}}}, small, 0)
	if got := ranges(p.Acquire("b", 0, small, 10, logOf(10))); got != "3-3#1" {
		t.Fatalf("after the start moved: %s", got)
	}
}

// A window that is empty starts where the log does: records removed by
// retention are not tracked one by one.
func TestEmptyWindowJumpsToTheLog(t *testing.T) {
	p := NewPartition(0)
	more := func(from int64, want int) []Span { return []Span{{First: 5000, Last: 5001}} }
	if got := ranges(p.Acquire("a", 0, Limits{LockMs: 1, MaxLocks: 3, MaxDelivery: 5}, 10, more)); got != "5000-5001#1" {
		t.Fatalf("acquire: %s (%s)", got, states(p))
	}
}

func TestSkippedSpansAndGapsAreArchived(t *testing.T) {
	p := NewPartition(0)
	more := func(from int64, want int) []Span {
		return []Span{{First: 0, Last: 1}, {First: 2, Last: 2, Skip: true}, {First: 5, Last: 6}}
	}
	if got := ranges(p.Acquire("a", 0, lim, 10, more)); got != "0-1#1 5-6#1" {
		t.Fatalf("acquire: %s", got)
	}
	p.Ack("a", []AckBatch{{0, 1, []int8{AckAccept}}}, lim, 0)
	if got := states(p); got != "start=5 5:acquired/1a 6:acquired/1a" {
		t.Fatalf("states: %s", got)
	}
}

// A snapshot keeps the start offset, states and delivery counts; a lock
// is not kept: an acquired record comes back available.
func TestSnapshotRoundTrip(t *testing.T) {
	p := NewPartition(10)
	p.Acquire("a", 0, lim, 10, func(from int64, _ int) []Span { return []Span{{First: from, Last: from + 3}} })
	p.Ack("a", []AckBatch{{11, 12, []int8{AckAccept, AckReject}}}, lim, 0)
	p.StateEpoch, p.LeaderEpoch = 2, 7
	k := Key{Group: "g", TopicID: [16]byte{1, 2}, Partition: 3}
	key, value := EncodeSnapshot(k, p, 5)
	gotK, got, ok, err := DecodeSnapshot(key, value)
	if err != nil || !ok || gotK != k {
		t.Fatalf("decode: %v %v %+v", err, ok, gotK)
	}
	if got.StateEpoch != 2 || got.LeaderEpoch != 7 {
		t.Fatalf("epochs: state %d leader %d, want 2 and 7", got.StateEpoch, got.LeaderEpoch)
	}
	if want := "start=10 10:available/1 11:acknowledged/1 12:archived/1 13:available/1"; states(got) != want {
		t.Fatalf("restored %s, want %s", states(got), want)
	}
	if _, tomb, ok, err := DecodeSnapshot(key, nil); tomb != nil || !ok || err != nil {
		t.Fatalf("tombstone: %v %v %v", tomb, ok, err)
	}
	if _, _, _, err := DecodeSnapshot(key, value[:len(value)-3]); err == nil {
		t.Fatal("a truncated value decoded")
	}
}

// Kafka's coordinator key prints the topic id as a Uuid: URL-safe base64
// without padding.
func TestCoordinatorKey(t *testing.T) {
	k := Key{Group: "g", TopicID: [16]byte{0xfb, 0xff, 0, 1}, Partition: 4}
	if got, want := k.CoordinatorKey(), "g:-_8AAQAAAAAAAAAAAAAAAA:4"; got != want {
		t.Fatalf("%q, want %q", got, want)
	}
}

// TestRenewExtendsTheLock: a Renew acknowledgement (KIP-1222) keeps the
// record acquired by its member past the lock's first expiry, and only
// when the request allows renewals; another member cannot renew it.
func TestRenewExtendsTheLock(t *testing.T) {
	p := NewPartition(0)
	p.Acquire("a", 0, lim, 2, logOf(2))
	renew := []AckBatch{{0, 0, []int8{AckRenew}}}
	if code := p.Ack("b", renew, lim, 2*lim.LockMs); code != kerr.InvalidRecordState.Code {
		t.Fatalf("b renewed a's record: code %d", code)
	}
	if code := p.Ack("a", renew, lim, 2*lim.LockMs); code != 0 {
		t.Fatalf("renew: code %d", code)
	}
	p.Expire(lim.LockMs, lim)
	if got := states(p); got != "start=0 0:acquired/1a 1:available/1" {
		t.Fatalf("after the first lock's expiry: %s (want offset 0 still a's, 1 released)", got)
	}
	if code := p.Ack("a", []AckBatch{{0, 0, []int8{AckAccept}}}, lim, 0); code != 0 {
		t.Fatalf("accept after renew: code %d", code)
	}
	if got := states(p); got != "start=1 1:available/1" {
		t.Fatalf("after accept: %s", got)
	}
}
