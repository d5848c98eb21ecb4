package e2e

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Transaction version 2 (KIP-890 part 2) and features (KIP-584) end to
// end: franz-go switches to EndTxn v5, Produce v12's implicit add and
// TxnOffsetCommit v5 when the broker finalizes transaction.version=2
// (a new data directory does, as a newly formatted Kafka 4.0), and stays
// on the classic path at transaction.version=1; kadm's UpdateFeatures
// moves the level down and up, on one broker and across a cluster.

// finalized is what a broker's ApiVersions finalizes, asked of that
// broker alone.
func finalized(t testing.TB, addr string) map[string]int16 {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	req := kmsg.NewPtrApiVersionsRequest()
	req.ClientSoftwareName, req.ClientSoftwareVersion = "gregor-e2e", "1"
	resp, err := req.RequestWith(testCtx(t, opTimeout), cl)
	if err != nil {
		t.Fatalf("ApiVersions: %v", err)
	}
	out := map[string]int16{}
	for _, f := range resp.FinalizedFeatures {
		out[f.Name] = f.MaxVersionLevel
	}
	return out
}

// epochOf is the producer epoch the coordinator holds for a
// transactional id.
func epochOf(t testing.TB, adm *kadm.Client, id string) int16 {
	t.Helper()
	ds, err := adm.DescribeTransactions(testCtx(t, opTimeout), id)
	if err != nil {
		t.Fatalf("DescribeTransactions: %v", err)
	}
	d, ok := ds[id]
	if !ok || d.Err != nil {
		t.Fatalf("DescribeTransactions %s: %v", id, d.Err)
	}
	return d.ProducerEpoch
}

// runTransactions commits and aborts n transactions of a fresh
// transactional producer (every third aborted), five records over two
// partitions each, and returns the committed values and the producer
// epoch after the second and after the last transaction. (franz-go runs
// its first transaction the classic way: it learns the broker's features
// with its first request, and opts in to transaction version 2 at the
// end of that transaction with an InitProducerId.)
func runTransactions(t *testing.T, seeds []string, adm *kadm.Client, topic string, n int) (committed []string, first, last int16) {
	t.Helper()
	id := topicName(t, "txn")
	p, err := kgo.NewClient(kgo.SeedBrokers(seeds...), kgo.TransactionalID(id), kgo.DefaultProduceTopic(topic), kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.RetryTimeout(2*opTimeout))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ctx := testCtx(t, 4*opTimeout)
	for i := range n {
		if err := p.BeginTransaction(); err != nil {
			t.Fatalf("txn %d: Begin: %v", i, err)
		}
		var vals []string
		for j := range 5 {
			v := fmt.Sprintf("%s-%03d-%d", id, i, j)
			vals = append(vals, v)
			if err := p.ProduceSync(ctx, &kgo.Record{Value: []byte(v), Partition: int32(j % 2)}).FirstErr(); err != nil {
				t.Fatalf("txn %d: produce: %v", i, err)
			}
		}
		commit := i%3 != 2
		if err := p.EndTransaction(ctx, kgo.TransactionEndTry(commit)); err != nil {
			t.Fatalf("txn %d: End(commit=%v): %v", i, commit, err)
		}
		if commit {
			committed = append(committed, vals...)
		}
		if i == 1 {
			first = epochOf(t, adm, id)
		}
	}
	return committed, first, epochOf(t, adm, id)
}

// checkCommitted reads topic read_committed and compares with want, as
// sets with multiplicity.
func checkCommitted(t *testing.T, b *Broker, topic string, want []string) {
	t.Helper()
	got := readAll(t, b, topic, 2, true)
	count := map[string]int{}
	for _, v := range got {
		count[v]++
	}
	for _, v := range want {
		if count[v] != 1 {
			t.Errorf("committed %s read %d times", v, count[v])
		}
	}
	if len(got) != len(want) {
		t.Errorf("read_committed: %d records, want the %d committed", len(got), len(want))
	}
}

func updateTV(t *testing.T, adm *kadm.Client, level int16, kind int8) error {
	t.Helper()
	res, err := adm.UpdateFeatures(testCtx(t, opTimeout), false, kadm.FeatureUpdate{Feature: "transaction.version", MaxVersionLevel: level, UpgradeType: kind})
	if err != nil {
		return err
	}
	return res.Error()
}

// TestTransactionsV2: a new broker finalizes transaction.version=2;
// franz-go's transactions then bump the epoch at every end, and a
// read_committed reader sees exactly the committed ones. Downgraded to 1
// with kadm (a downgrade asked as an upgrade is refused first), a new
// producer runs classic transactions, its epoch fixed; upgraded again,
// the epoch moves per transaction again. The level survives a restart.
func TestTransactionsV2(t *testing.T) {
	t.Parallel()
	requireBinary(t)
	b := startBroker(t, WithConfig("auto.create.topics.enable", "false"))
	adm := b.Admin(t)
	if f := finalized(t, b.Addr); f["transaction.version"] != 2 || f["metadata.version"] != 25 {
		t.Fatalf("a new broker finalizes %v, want transaction.version=2 (Kafka 4.0's default)", f)
	}
	topic := topicName(t, "v2")
	mustCreateTopic(t, adm, topic, 2, nil)
	const n = 30
	want, first, last := runTransactions(t, []string{b.Addr}, adm, topic, n)
	if last-first != n-2 {
		t.Errorf("transaction.version=2: epoch %d after the second transaction, %d after the last: want one bump per transaction", first, last)
	}

	if err := updateTV(t, adm, 1, 1); !errors.Is(err, kerr.InvalidUpdateVersion) {
		t.Fatalf("a downgrade asked as an upgrade: %v, want INVALID_UPDATE_VERSION", err)
	}
	if err := updateTV(t, adm, 1, 2); err != nil {
		t.Fatalf("safe downgrade to 1: %v", err)
	}
	if _, err := b.Stop(); err != nil {
		t.Fatalf("stopping: %v", err)
	}
	b.Restart()
	adm = b.Admin(t) // the old one's connections are gone
	if f := finalized(t, b.Addr); f["transaction.version"] != 1 {
		t.Fatalf("after a restart: %v, want transaction.version=1", f)
	}
	more, first, last := runTransactions(t, []string{b.Addr}, adm, topic, 10)
	if first != last {
		t.Errorf("transaction.version=1: epoch moved from %d to %d: franz-go should run classic transactions", first, last)
	}
	want = append(want, more...)

	if err := updateTV(t, adm, 2, 1); err != nil {
		t.Fatalf("upgrade to 2: %v", err)
	}
	more, first, last = runTransactions(t, []string{b.Addr}, adm, topic, 10)
	if last-first != 8 {
		t.Errorf("upgraded again: epoch %d after the second transaction, %d after the 10th", first, last)
	}
	checkCommitted(t, b, topic, append(want, more...))
}

// TestFranzGroupTransactSessionTV1: the consume-transform-produce test on
// a broker formatted at transaction.version=1 (--feature), where franz-go
// uses AddPartitionsToTxn, AddOffsetsToTxn and EndTxn v4; the default
// broker of TestFranzGroupTransactSession runs it at 2.
func TestFranzGroupTransactSessionTV1(t *testing.T) {
	t.Parallel()
	requireBinary(t)
	b := startBroker(t, WithConfig("auto.create.topics.enable", "false"), WithConfig("feature", "transaction.version=1"))
	if f := finalized(t, b.Addr); f["transaction.version"] != 1 {
		t.Fatalf("--feature transaction.version=1: finalized %v", f)
	}
	in, out := topicName(t, "in"), topicName(t, "out")
	adm := b.Admin(t)
	mustCreateTopic(t, adm, in, 2, nil)
	mustCreateTopic(t, adm, out, 2, nil)
	transactSession(t, []*Broker{b}, adm, in, out, func(int) { b.KillAndRestart() })
}

// TestClusterTransactionsV2: three brokers; the feature levels are in
// the metadata log, so every broker reports them and a downgrade reaches
// all; TV2 transactions commit and abort across the cluster.
func TestClusterTransactionsV2(t *testing.T) {
	t.Parallel()
	bs := startCluster(t, 3, WithConfig("auto.create.topics.enable", "false"))
	adm := kadm.NewClient(clusterClient(t, bs, kgo.RetryTimeout(20*time.Second)))
	levelEverywhere := func(level int16) {
		eventually(t, 20*time.Second, fmt.Sprintf("transaction.version=%d on every broker", level), func() error {
			for _, b := range bs {
				if f := finalized(t, b.Addr); f["transaction.version"] != level {
					return fmt.Errorf("broker %d finalizes %v", b.NodeID, f)
				}
			}
			return nil
		})
	}
	levelEverywhere(2)
	topic := topicName(t, "v2")
	createFullyReplicated(t, adm, 2, topic)
	want, first, last := runTransactions(t, seeds(bs), adm, topic, 10)
	if last-first != 8 {
		t.Errorf("epoch %d after the second transaction, %d after the 10th", first, last)
	}
	if err := updateTV(t, adm, 1, 2); err != nil {
		t.Fatalf("safe downgrade to 1: %v", err)
	}
	levelEverywhere(1)
	more, first, last := runTransactions(t, seeds(bs), adm, topic, 4)
	if first != last {
		t.Errorf("transaction.version=1 in the cluster: epoch moved from %d to %d", first, last)
	}
	checkCommitted(t, bs[0], topic, append(want, more...))
	res, err := adm.UpdateFeatures(testCtx(t, opTimeout), true, kadm.FeatureUpdate{Feature: "transaction.version", MaxVersionLevel: 3, UpgradeType: 1})
	if err == nil {
		err = res.Error()
	}
	if !errors.Is(err, kerr.InvalidUpdateVersion) {
		t.Fatalf("transaction.version=3: %v, want INVALID_UPDATE_VERSION", err)
	}
}

// TestOldDataDirKeepsTransactionVersion0: a data directory written by a
// Gregor from before features (no levels in gregor-metadata.json) keeps
// transaction.version at 0 after the upgrade, so franz-go stays on the
// classic protocol, until an operator upgrades the level.
func TestOldDataDirKeepsTransactionVersion0(t *testing.T) {
	t.Parallel()
	requireBinary(t)
	b := startBroker(t)
	if _, err := b.Stop(); err != nil {
		t.Fatal(err)
	}
	editMetadata(t, b, "features", func(m map[string]any) {
		delete(m, "features")
		delete(m, "features_epoch")
	})
	b.Restart()
	if f := finalized(t, b.Addr); f["transaction.version"] != 0 || f["metadata.version"] != 25 {
		t.Fatalf("an old data directory finalizes %v, want metadata.version only", f)
	}
	adm := b.Admin(t)
	topic := topicName(t, "old")
	mustCreateTopic(t, adm, topic, 2, nil)
	want, first, last := runTransactions(t, []string{b.Addr}, adm, topic, 5)
	if first != last {
		t.Errorf("transaction.version=0: epoch moved from %d to %d", first, last)
	}
	if err := updateTV(t, adm, 2, 1); err != nil {
		t.Fatalf("upgrade to 2: %v", err)
	}
	more, first, last := runTransactions(t, []string{b.Addr}, adm, topic, 5)
	if last-first != 3 {
		t.Errorf("upgraded: epoch %d after the second transaction, %d after the fifth", first, last)
	}
	checkCommitted(t, b, topic, append(want, more...))
}
