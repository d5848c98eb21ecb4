package e2e

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/record"
	"github.com/gregor-kafka/gregor/core/txn"
)

// TestStorageFaultFailedSync runs the real binary with a test-only fault
// (GREGOR_TEST_FAULTS): the 10th fsync of partition 0's log fails with
// EIO while an idempotent acks=all producer writes to it under
// flush.messages=1. No record of the failed sync is acknowledged, the
// partition goes offline while partition 1 keeps working, and after a
// restart partition 0 holds exactly the acknowledged records, once each.
func TestStorageFaultFailedSync(t *testing.T) {
	t.Parallel()
	if useKfake {
		t.Skip("SKIP: storage faults are injected into Gregor's file store; kfake has none")
	}
	requireBinary(t)
	topic := topicName(t, "")
	const failAt, total, perWave = 10, 300, 10
	failWave := -1
	b := startBroker(t,
		WithConfig("flush.messages", "1"),
		WithConfig("auto.create.topics.enable", "false"),
		WithEnv(fmt.Sprintf("GREGOR_TEST_FAULTS=sync %s-0/00000000000000000000.log nth=%d", topic, failAt)),
	)
	mustCreateTopic(t, b.Admin(t), topic, 2, nil)

	cl := b.Client(t,
		kgo.DefaultProduceTopic(topic),
		kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.RequiredAcks(kgo.AllISRAcks()), // idempotent by default
		kgo.ProducerLinger(0),
		kgo.RecordRetries(3),
		kgo.MetadataMinAge(50*time.Millisecond),
		kgo.RetryBackoffFn(func(int) time.Duration { return 20 * time.Millisecond }),
	)
	al := newDiskAcks(t)
	ctx := testCtx(t, 60*time.Second)
	// Waves of records, each awaited, so that every wave needs its own
	// syncs; one more wave after the first failure.
	for wave, next := 0, 0; wave < total/perWave && (len(al.failed) == 0 || wave < failWave+2); wave++ {
		var wg sync.WaitGroup
		for range perWave {
			i := next
			next++
			wg.Add(1)
			cl.Produce(ctx, &kgo.Record{Partition: 0, Value: fmt.Appendf(nil, "%06d", i)}, al.promise(i, &wg))
		}
		waitGroupOrFail(t, &wg, 60*time.Second, "produce promises")
		if len(al.failed) > 0 && failWave < 0 {
			failWave = wave
		}
	}
	acked := al.sorted()
	t.Logf("%d acknowledged, %d failed: %v", len(acked), len(al.failed), al.errs)
	if len(acked) == 0 || len(al.failed) == 0 {
		t.Fatalf("%d records acknowledged, %d failed; the fault should have struck mid-stream", len(acked), len(al.failed))
	}
	for i, s := range acked {
		if s != i {
			t.Fatalf("acknowledged records are not a prefix: %v", acked)
		}
	}
	if out := b.Output(); !strings.Contains(out, "KAFKA_STORAGE_ERROR") || !strings.Contains(out, "offline") {
		t.Errorf("the broker log does not say that %s-0 went offline", topic)
	}

	// Metadata lists partition 0 offline; partition 1 still takes writes.
	md := metadataTopic(t, b.Admin(t), topic)
	if p0 := md.Partitions[0]; !errors.Is(p0.Err, kerr.LeaderNotAvailable) || !slices.Equal(p0.OfflineReplicas, []int32{b.NodeID}) {
		t.Fatalf("metadata of the failed partition: err %v leader %d offline %v", p0.Err, p0.Leader, p0.OfflineReplicas)
	}
	// On the wire a produce to the failed partition gets
	// KAFKA_STORAGE_ERROR.
	req := kmsg.NewPtrProduceRequest()
	req.Acks, req.TimeoutMillis = -1, 5000
	rt := kmsg.NewProduceRequestTopic()
	rt.Topic, rt.TopicID = topic, md.ID // v13 names topics by id
	rp := kmsg.NewProduceRequestTopicPartition()
	bl := record.NewBuilder(record.NewBatchHeader(time.Now().UnixMilli()))
	bl.Add(nil, []byte("late"), 0)
	rp.Records = bl.Build()
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	resp, err := req.RequestWith(ctx, cl.Broker(int(b.NodeID)))
	if err != nil {
		t.Fatalf("raw produce: %v", err)
	}
	if code := resp.Topics[0].Partitions[0].ErrorCode; code != kerr.KafkaStorageError.Code {
		t.Fatalf("raw produce to the failed partition: %v, want KAFKA_STORAGE_ERROR", kerr.ErrorForCode(code))
	}

	pctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := cl.ProduceSync(pctx, &kgo.Record{Partition: 1, Value: []byte("healthy")}).FirstErr(); err != nil {
		t.Fatalf("produce to the healthy partition: %v", err)
	}
	cl.Close()

	// The restart recovers partition 0 from what is on disk.
	if code, err := b.Stop(); err != nil || code != 0 {
		t.Fatalf("stop: %d %v", code, err)
	}
	b.Env = nil
	b.Restart()
	got := consumeToEnd(t, b, topic, 2)
	if len(got[1]) != 1 {
		t.Errorf("partition 1 holds %d records after the restart, want 1", len(got[1]))
	}
	if len(got[0]) != len(acked) {
		t.Errorf("partition 0 holds %d records after the restart, want the %d acknowledged", len(got[0]), len(acked))
	}
	for o, r := range got[0] {
		if want := fmt.Sprintf("%06d", o); r.Offset != int64(o) || string(r.Value) != want {
			t.Fatalf("partition 0 offset %d: offset %d %q, want %q", o, r.Offset, r.Value, want)
		}
	}
}

// diskAcks collects what an idempotent acks=all producer is told about each
// record while a disk fails: acknowledged, or failed with
// KAFKA_STORAGE_ERROR or LEADER_NOT_AVAILABLE (the broker answers the
// first; franz-go retries, and Metadata then shows the partition without
// a leader: the record fails with whichever it saw last).
type diskAcks struct {
	t      testing.TB
	mu     sync.Mutex
	acked  []int
	failed []int
	errs   map[string]int
}

func newDiskAcks(t testing.TB) *diskAcks { return &diskAcks{t: t, errs: map[string]int{}} }

// promise is the produce callback of record i; it marks wg done.
func (a *diskAcks) promise(i int, wg *sync.WaitGroup) func(*kgo.Record, error) {
	return func(_ *kgo.Record, err error) {
		defer wg.Done()
		a.mu.Lock()
		defer a.mu.Unlock()
		if err == nil {
			a.acked = append(a.acked, i)
			return
		}
		a.failed = append(a.failed, i)
		a.errs[err.Error()]++
		if !errors.Is(err, kerr.KafkaStorageError) && !errors.Is(err, kerr.LeaderNotAvailable) {
			a.t.Errorf("record %d failed with %v, want KAFKA_STORAGE_ERROR or LEADER_NOT_AVAILABLE", i, err)
		}
	}
}

// sorted is the acknowledged records, in order; call it once every
// promise is done.
func (a *diskAcks) sorted() []int {
	a.mu.Lock()
	defer a.mu.Unlock()
	slices.Sort(a.acked)
	return a.acked
}

// TestStorageFaultTxnPrepare: the fsync of the PrepareCommit record in
// __transaction_state fails. EndTxn is not told the transaction committed,
// no marker is written, and after a restart (the Prepare record is gone
// with the failed fsync) the coordinator aborts the transaction at its
// timeout: read_committed never sees its records.
func TestStorageFaultTxnPrepare(t *testing.T) {
	t.Parallel()
	if useKfake {
		t.Skip("SKIP: storage faults are injected into Gregor's file store; kfake has none")
	}
	requireBinary(t)
	topic, id := topicName(t, ""), topicName(t, "txn")
	// Syncs of the coordinator's partition's log (none at its creation:
	// its empty files wait for the first flush): InitProducerId's record,
	// AddPartitionsToTxn's, and PrepareCommit's, the 3rd, which fails.
	log := fmt.Sprintf("%s-%d/00000000000000000000.log", "__transaction_state", txn.PartitionFor(id, 50))
	b := startBroker(t,
		WithConfig("flush.messages", "1"),
		WithConfig("auto.create.topics.enable", "false"),
		WithConfig("transaction.abort.timed.out.transaction.cleanup.interval.ms", "200"),
		WithEnv(fmt.Sprintf("GREGOR_TEST_FAULTS=sync %s nth=3", log)),
	)
	mustCreateTopic(t, b.Admin(t), topic, 1, nil)
	ctx := testCtx(t, opTimeout)
	tx := b.Client(t, kgo.TransactionalID(id), kgo.DefaultProduceTopic(topic),
		kgo.TransactionTimeout(time.Second), kgo.RetryTimeout(time.Second))
	if err := tx.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	if err := tx.ProduceSync(ctx, &kgo.Record{Value: []byte("never-1")}, &kgo.Record{Value: []byte("never-2")}).FirstErr(); err != nil {
		t.Fatalf("produce in the transaction: %v", err)
	}
	err := tx.EndTransaction(ctx, kgo.TryCommit)
	if !errors.Is(err, kerr.NotCoordinator) && !errors.Is(err, kerr.CoordinatorNotAvailable) {
		t.Fatalf("EndTxn(commit) whose PrepareCommit failed to sync: %v, want NOT_COORDINATOR or COORDINATOR_NOT_AVAILABLE", err)
	}
	tx.Close()
	out := b.Output()
	if !strings.Contains(out, "PREPARE_COMMIT") || !strings.Contains(out, "KAFKA_STORAGE_ERROR") || strings.Contains(out, "COMPLETE_COMMIT") {
		t.Errorf("the broker log should show PrepareCommit written, its partition failed, and no CompleteCommit")
	}

	if code, err := b.Stop(); err != nil || code != 0 {
		t.Fatalf("stop: %d %v", code, err)
	}
	b.Env = nil
	b.Restart()
	// END follows the transaction; read_committed shows it only once the
	// transaction is decided, here aborted at its timeout.
	if got := readAll(t, b, topic, 1, true); len(got) != 0 {
		t.Fatalf("read_committed sees %v of a transaction that never committed", got)
	}
	if got := readAll(t, b, topic, 1, false); !slices.Equal(got, []string{"never-1", "never-2"}) {
		t.Fatalf("read_uncommitted sees %v, want the aborted records never-1 never-2", got)
	}
	if !strings.Contains(b.Output(), "abort") {
		t.Errorf("the broker log does not mention the abort")
	}
}
