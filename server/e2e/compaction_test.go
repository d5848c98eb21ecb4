package e2e

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gregor-kafka/gregor/core/record"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kversion"
)

// compactedTopicConfigs makes a topic whose segments roll every 4 KiB and
// whose cleaner runs as soon as anything is dirty, with tombstones kept
// for three seconds.
func compactedTopicConfigs() map[string]*string {
	return map[string]*string{
		"cleanup.policy":            kadm.StringPtr("compact"),
		"segment.bytes":             kadm.StringPtr("4096"),
		"delete.retention.ms":       kadm.StringPtr("3000"),
		"min.cleanable.dirty.ratio": kadm.StringPtr("0.01"),
	}
}

// createCompacted creates a one-partition compacted topic with kadm and
// checks that DescribeConfigs reports the policy.
func createCompacted(t *testing.T, b *Broker, topic string, extra ...string) {
	t.Helper()
	adm := b.Admin(t)
	configs := compactedTopicConfigs()
	for i := 0; i+1 < len(extra); i += 2 {
		configs[extra[i]] = kadm.StringPtr(extra[i+1])
	}
	resp, err := adm.CreateTopic(testCtx(t, opTimeout), 1, 1, configs, topic)
	if err != nil || resp.Err != nil {
		t.Fatalf("CreateTopic cleanup.policy=compact: err=%v resp.Err=%v (%s)", err, resp.Err, resp.ErrMessage)
	}
	if c := topicConfig(t, adm, topic, "cleanup.policy"); c.MaybeValue() != "compact" {
		v := c.MaybeValue()
		t.Fatalf("cleanup.policy = %q, want compact", v)
	}
}

// produceRounds writes rounds of keys k00..k(keys-1), value "r<round>", then
// tombstones for the first `deleted` keys, then fillers that roll the
// segments holding them (the active segment is never cleaned). Each
// round is its own produce, so its own batch: segments roll between them.
func produceRounds(t *testing.T, cl *kgo.Client, topic string, rounds, keys, deleted int) {
	t.Helper()
	ctx := testCtx(t, opTimeout)
	send := func(recs []*kgo.Record) {
		t.Helper()
		if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
			t.Fatalf("produce: %v", err)
		}
	}
	for r := range rounds {
		var recs []*kgo.Record
		for k := range keys {
			recs = append(recs, &kgo.Record{Topic: topic, Key: fmt.Appendf(nil, "k%02d", k), Value: fmt.Appendf(nil, "r%d", r)})
		}
		send(recs)
	}
	var tombs []*kgo.Record
	for k := range deleted {
		tombs = append(tombs, &kgo.Record{Topic: topic, Key: fmt.Appendf(nil, "k%02d", k)})
	}
	if len(tombs) > 0 {
		send(tombs)
	}
	for i := range 40 { // franz-go compresses: 40 batches of about 200 bytes
		var recs []*kgo.Record
		for j := range 10 {
			recs = append(recs, &kgo.Record{Topic: topic, Key: []byte("filler"), Value: fmt.Appendf(nil, "%040d", i*10+j)})
		}
		send(recs)
	}
}

// readCompacted reads the partition from the start up to its high watermark and
// returns key -> values in offset order (a tombstone is "<nil>").
func readCompacted(t *testing.T, b *Broker, topic string, opts ...kgo.Opt) map[string][]string {
	t.Helper()
	cl := b.Client(t, append([]kgo.Opt{
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: {0: kgo.NewOffset().AtStart()}}),
		kgo.FetchMaxWait(100 * time.Millisecond),
	}, opts...)...)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	got := map[string][]string{}
	for {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("reading %s: no end before the deadline (%d keys so far)", topic, len(got))
		}
		fs.EachError(func(_ string, _ int32, err error) { t.Fatalf("fetch %s: %v", topic, err) })
		done := false
		fs.EachPartition(func(p kgo.FetchTopicPartition) {
			for _, r := range p.Records {
				v := "<nil>"
				if r.Value != nil {
					v = string(r.Value)
				}
				got[string(r.Key)] = append(got[string(r.Key)], v)
			}
			// The last stable offset bounds a read_committed fetch.
			end := p.HighWatermark
			if p.LastStableOffset >= 0 {
				end = min(end, p.LastStableOffset)
			}
			if n := len(p.Records); n > 0 && p.Records[n-1].Offset+1 >= end {
				done = true
			}
		})
		if done {
			return got
		}
	}
}

// checkLatest checks that every key k00..k(keys-1) appears once, with the
// last round's value, or as a tombstone (or not at all, when
// tombstonesGone) for the first `deleted` keys.
func checkLatest(got map[string][]string, rounds, keys, deleted int, tombstonesGone bool) error {
	for k := range keys {
		key := fmt.Sprintf("k%02d", k)
		want := []string{fmt.Sprintf("r%d", rounds-1)}
		if k < deleted {
			want = []string{"<nil>"}
			if tombstonesGone {
				want = nil
			}
		}
		if !slices.Equal(got[key], want) {
			return fmt.Errorf("%s: %q, want %q", key, got[key], want)
		}
	}
	return nil
}

// TestCompaction: a compacted topic created with kadm, written by franz-go's
// idempotent producer (keys overwritten and deleted) and by a
// transactional one; a consumer from the beginning sees the latest value
// of each key, the tombstones until delete.retention.ms and then none,
// only committed transactional data; both producers go on writing across
// cleanings and a restart.
func TestCompaction(t *testing.T) {
	t.Parallel()
	requireBinary(t)
	b := startBroker(t, WithConfig("log.cleaner.backoff.ms", "100"))
	topic := topicName(t, "")
	createCompacted(t, b, topic)
	const rounds, keys, deleted = 20, 30, 10
	prod := b.Client(t, kgo.DefaultProduceTopic(topic)) // idempotent by default
	produceRounds(t, prod, topic, rounds, keys, deleted)

	eventually(t, 20*time.Second, "the latest value per key with tombstones", func() error {
		return checkLatest(readCompacted(t, b, topic), rounds, keys, deleted, false)
	})
	eventually(t, 20*time.Second, "tombstones gone after delete.retention.ms", func() error {
		return checkLatest(readCompacted(t, b, topic), rounds, keys, deleted, true)
	})
	if !outputMentions(b, "cleaner", "records removed") {
		t.Errorf("the broker did not report a cleaning pass:\n%s", b.Output())
	}
	// A record without a key has no place in a compacted topic.
	keyless := b.Client(t, kgo.DefaultProduceTopic(topic), kgo.RecordRetries(0))
	if err := keyless.ProduceSync(testCtx(t, opTimeout), &kgo.Record{Value: []byte("no key")}).FirstErr(); !errors.Is(err, kerr.InvalidRecord) {
		t.Errorf("a keyless record: %v, want INVALID_RECORD", err)
	}
	checkRecordErrors(t, b, topic)

	// Transactions: committed data stays, aborted data goes, and the
	// producer keeps working across cleanings.
	txp := b.Client(t, kgo.DefaultProduceTopic(topic), kgo.TransactionalID("tx-"+topic))
	txn := func(value string, commit bool) {
		t.Helper()
		ctx := testCtx(t, opTimeout)
		if err := txp.BeginTransaction(); err != nil {
			t.Fatal(err)
		}
		for k := range 5 {
			if err := txp.ProduceSync(ctx, &kgo.Record{Key: fmt.Appendf(nil, "t%d", k), Value: []byte(value)}).FirstErr(); err != nil {
				t.Fatalf("transactional produce: %v", err)
			}
		}
		if err := txp.EndTransaction(ctx, kgo.TransactionEndTry(commit)); err != nil {
			t.Fatalf("EndTransaction(%v): %v", commit, err)
		}
	}
	txn("committed-1", true)
	txn("aborted", false)
	produceRounds(t, prod, topic, 1, 0, 0) // roll: the transactions become cleanable
	eventually(t, 20*time.Second, "aborted data removed by the cleaner", func() error {
		got := readCompacted(t, b, topic) // read_uncommitted: what the log holds
		for k := range 5 {
			if v := got[fmt.Sprintf("t%d", k)]; !slices.Equal(v, []string{"committed-1"}) {
				return fmt.Errorf("t%d: %q in the log, want only committed-1", k, v)
			}
		}
		return nil
	})
	txn("committed-2", true)
	if err := prod.ProduceSync(testCtx(t, opTimeout), &kgo.Record{Key: []byte("k00"), Value: []byte("after")}).FirstErr(); err != nil {
		t.Fatalf("idempotent produce after cleanings: %v", err)
	}
	got := readCompacted(t, b, topic, kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	if v := got["t0"]; v[len(v)-1] != "committed-2" || slices.Contains(v, "aborted") {
		t.Fatalf("read_committed t0: %q", v)
	}

	// After a crash the producer state is rebuilt from the cleaned log:
	// both producers write on without a sequence or epoch error.
	b.KillAndRestart()
	if err := prod.ProduceSync(testCtx(t, opTimeout), &kgo.Record{Key: []byte("k01"), Value: []byte("after-restart")}).FirstErr(); err != nil {
		t.Fatalf("idempotent produce after a restart: %v", err)
	}
	txn("committed-3", true)
	// A plain record last: a consumer's fetch ends at a record, not at the
	// marker (markers are not handed to the application).
	if err := prod.ProduceSync(testCtx(t, opTimeout), &kgo.Record{Key: []byte("k02"), Value: []byte("end")}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	got = readCompacted(t, b, topic, kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	if v := got["k01"]; v[len(v)-1] != "after-restart" {
		t.Fatalf("k01 after the restart: %q", v)
	}
}

// checkRecordErrors sends a batch that mixes keyed and keyless records:
// Produce v8+ names each keyless one by its index in the batch (KIP-467)
// and refuses the whole batch; a batch of keyed records goes in after it.
func checkRecordErrors(t *testing.T, b *Broker, topic string) {
	t.Helper()
	cl := b.Client(t, kgo.MaxVersions(kversion.V3_6_0())) // Produce v9: topics by name
	v := []byte("v")
	mixed := record.NewBuilder(record.NewBatchHeader(time.Now().UnixMilli())).
		Add([]byte("r0"), v, 0).Add(nil, v, 0).Add([]byte("r2"), v, 0).Add(nil, v, 0).Build()
	resp, err := produceRequest(topic, -1, opTimeout, mixed).RequestWith(testCtx(t, opTimeout), cl)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Version < 8 {
		t.Fatalf("Produce v%d has no record errors; want v8+", resp.Version)
	}
	p := resp.Topics[0].Partitions[0]
	var at []int32
	for _, e := range p.ErrorRecords {
		at = append(at, e.RelativeOffset)
	}
	msg := ""
	if p.ErrorMessage != nil {
		msg = *p.ErrorMessage
	}
	if p.ErrorCode != kerr.InvalidRecord.Code || !slices.Equal(at, []int32{1, 3}) ||
		!strings.HasPrefix(msg, "One or more records have been rejected due to 2 record errors") {
		t.Errorf("a batch with keyless records 1 and 3: %v, record errors at %v, message %q", kerr.ErrorForCode(p.ErrorCode), at, msg)
	}
	keyed := record.NewBuilder(record.NewBatchHeader(time.Now().UnixMilli())).Add([]byte("r0"), v, 0).Build()
	resp, err = produceRequest(topic, -1, opTimeout, keyed).RequestWith(testCtx(t, opTimeout), cl)
	if err != nil {
		t.Fatal(err)
	}
	if code := resp.Topics[0].Partitions[0].ErrorCode; code != 0 {
		t.Errorf("a keyed batch after the refused one: %v", kerr.ErrorForCode(code))
	}
}

// TestCompactionCrashMidClean makes the rename that swaps the first
// cleaned segment in fail (GREGOR_TEST_FAULTS), which leaves a .swap
// file and takes the partition offline, then SIGKILLs the broker: the
// restart completes the swap, and the latest value of every key is there.
func TestCompactionCrashMidClean(t *testing.T) {
	t.Parallel()
	requireBinary(t)
	topic := topicName(t, "")
	swap := topic + "-0/00000000000000000000.log.swap"
	b := startBroker(t, WithConfig("log.cleaner.backoff.ms", "100"), WithEnv("GREGOR_TEST_FAULTS=rename "+swap))
	// min.compaction.lag.ms holds the cleaner back until everything is
	// written: the failed swap takes the partition offline.
	createCompacted(t, b, topic, "min.compaction.lag.ms", "3000")
	const rounds, keys = 20, 30
	produceRounds(t, b.Client(t, kgo.DefaultProduceTopic(topic)), topic, rounds, keys, 0)
	eventually(t, 20*time.Second, "the swap to fail", func() error {
		if !strings.Contains(b.Output(), "KAFKA_STORAGE_ERROR: cleaning") {
			return fmt.Errorf("no failed cleaning in the output yet")
		}
		return nil
	})
	b.Kill()
	b.Env = nil
	b.Restart()
	if !outputMentions(b, topic, "completed the interrupted cleaning") {
		t.Fatalf("the restart did not complete the swap:\n%s", b.Output())
	}
	eventually(t, 20*time.Second, "the latest value per key", func() error {
		return checkLatest(readCompacted(t, b, topic), rounds, keys, 0, false)
	})
}
