package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Transactions end to end (KIP-98, KIP-447): franz-go's transactional
// producer and GroupTransactSession across a SIGKILL of the broker, kcat
// with a transactional.id and read_committed, and kafkajs transactions
// with sendOffsets.

const endMark = "END"

// readAll appends a plain END record to each partition, then reads the
// topic from the start at an isolation level until every partition
// showed its END (under read_committed END shows only once every
// transaction before it is decided), and returns the values before END.
func readAll(t testing.TB, b *Broker, topic string, partitions int32, committed bool) []string {
	t.Helper()
	ctx := testCtx(t, opTimeout)
	if committed {
		p := b.Client(t, kgo.DefaultProduceTopic(topic), kgo.RecordPartitioner(kgo.ManualPartitioner()))
		for i := range partitions {
			if err := p.ProduceSync(ctx, &kgo.Record{Partition: i, Value: []byte(endMark)}).FirstErr(); err != nil {
				t.Fatalf("producing END: %v", err)
			}
		}
	}
	iso := kgo.ReadUncommitted()
	if committed {
		iso = kgo.ReadCommitted()
	}
	cl := b.Client(t, kgo.ConsumeTopics(topic), kgo.FetchIsolationLevel(iso),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	var out []string
	ended := map[int32]bool{}
	for int32(len(ended)) < partitions {
		fs := cl.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			t.Fatalf("reading %s: %v (END seen on %v)", topic, err, ended)
		}
		fs.EachRecord(func(r *kgo.Record) {
			if string(r.Value) == endMark {
				ended[r.Partition] = true
			} else if !ended[r.Partition] {
				out = append(out, string(r.Value))
			}
		})
	}
	return out
}

// TestFranzGroupTransactSession: consume-transform-produce with
// GroupTransactSession while the broker is SIGKILLed and restarted three times;
// afterwards every input record is in the output exactly once for a
// read_committed reader, and the group's committed offsets cover the input.
func TestFranzGroupTransactSession(t *testing.T) {
	t.Parallel()
	requireBinary(t)
	b := startBroker(t, WithConfig("auto.create.topics.enable", "false"))
	in, out := topicName(t, "in"), topicName(t, "out")
	adm := b.Admin(t)
	mustCreateTopic(t, adm, in, 2, nil)
	mustCreateTopic(t, adm, out, 2, nil)
	transactSession(t, []*Broker{b}, adm, in, out, func(int) { b.KillAndRestart() })
}

// transactSession runs consume-transform-produce from in to out (two
// partitions each) with GroupTransactSession against brokers, calling
// kill at a quarter, half and three quarters of the input, and checks that
// every input record is in the committed output exactly once and that
// the group's committed offsets cover the input.
func transactSession(t *testing.T, brokers []*Broker, adm *kadm.Client, in, out string, kill func(round int)) {
	t.Helper()
	const n = 3000
	group := topicName(t, "group")
	src := brokers[0].Client(t, kgo.DefaultProduceTopic(in))
	ctx := testCtx(t, 4*opTimeout)
	for i := range n {
		src.Produce(ctx, &kgo.Record{Value: fmt.Appendf(nil, "r-%05d", i)}, nil)
	}
	if err := src.Flush(ctx); err != nil {
		t.Fatal(err)
	}

	opts := []kgo.Opt{
		kgo.SeedBrokers(seeds(brokers)...),
		kgo.TransactionalID(topicName(t, "txn")),
		kgo.TransactionTimeout(60 * time.Second), // longer than a coordinator failover
		kgo.ConsumerGroup(group),
		kgo.ConsumeTopics(in),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.DefaultProduceTopic(out),
		kgo.RetryTimeout(2 * opTimeout),
	}
	// newSession starts a session as a correct application does: its
	// producer id first (InitProducerId, as the Java client's
	// initTransactions does), which aborts a transaction a previous
	// session left open, so that the offsets its group member then reads
	// (RequireStable) are not held back until that transaction times out.
	newSession := func() (*kgo.GroupTransactSession, error) {
		sess, err := kgo.NewGroupTransactSession(opts...)
		if err != nil {
			return nil, err
		}
		for {
			_, _, err := sess.Client().ProducerID(ctx)
			var kerrErr *kerr.Error
			switch {
			case err == nil:
				return sess, nil
			case errors.As(err, &kerrErr) || ctx.Err() != nil:
				sess.Close()
				return nil, fmt.Errorf("InitProducerId: %w", err)
			}
			time.Sleep(pollInterval) // the broker is not listening yet: a poll interval, not a synchronisation
		}
	}
	sess, err := newSession()
	if err != nil {
		t.Fatal(err)
	}
	var processed, commits, sessions atomic.Int64
	sessions.Add(1)
	stop := make(chan struct{})
	done := make(chan struct{})
	// Polling stops at stop (a session in the middle of a transaction
	// first ends it); the loop owns the session and closes it.
	pollCtx, stopPolling := context.WithCancel(ctx)
	go func() {
		defer close(done)
		defer func() {
			if sess != nil {
				sess.Close()
			}
		}()
		for {
			select {
			case <-stop:
				return
			default:
			}
			fs := sess.PollRecords(pollCtx, 50) // small rounds: many transactions
			if fs.IsClientClosed() || pollCtx.Err() != nil {
				return
			}
			if fs.NumRecords() == 0 {
				continue
			}
			if err := sess.Begin(); err != nil {
				t.Errorf("Begin: %v", err)
				return
			}
			// As a correct application does: a record that failed means
			// the transaction must abort (its input is then read again).
			var failed atomic.Bool
			fs.EachRecord(func(r *kgo.Record) {
				sess.Produce(ctx, &kgo.Record{Value: append([]byte("out-"), r.Value...)}, func(_ *kgo.Record, err error) {
					if err != nil {
						failed.Store(true)
						t.Errorf("a transactional record failed: %v", err) // no broker error is expected here
					}
				})
			})
			if err := sess.Client().Flush(ctx); err != nil {
				t.Errorf("Flush: %v", err)
				return
			}
			ok, err := sess.End(ctx, kgo.TransactionEndTry(!failed.Load()))
			var kerrErr *kerr.Error
			switch {
			case err == nil:
				if ok {
					commits.Add(1)
					processed.Add(int64(fs.NumRecords()))
				}
				continue
			case ctx.Err() != nil:
				return
			case errors.As(err, &kerrErr):
				// The broker answered with an error: none is expected,
				// whatever the restarts (a retried EndTxn is answered
				// as the first was).
				t.Errorf("End: %v", err)
				return
			}
			// The client gave up reaching the broker (franz-go does not
			// retry a refused dial to its only broker), so whether the
			// transaction committed is unknown, and the session can
			// only be closed (End documents no retry for it). A correct
			// application starts a new one: its InitProducerId aborts
			// the transaction if it is still open, or waits for its
			// commit, and its group member reads the committed offsets
			// from the broker, so exactly what was not committed is
			// processed again. The old session is closed once the new
			// one reached the broker, so that it leaves the group
			// rather than holding the next rebalance until its session
			// times out.
			t.Logf("End: %v: starting a new session", err)
			old := sess
			sess, err = newSession()
			old.Close()
			if err != nil {
				t.Errorf("a new session after an End that did not reach the broker: %v", err)
				return
			}
			sessions.Add(1)
		}
	}()
	// The loop ends early only on an error it reported: then nothing
	// more will be processed, and waiting out the timeouts below would
	// only hide that.
	running := func() {
		select {
		case <-done:
			t.Fatalf("the consume-transform-produce loop stopped (on the error above, or at the end of its context) after %d records in %d commits", processed.Load(), commits.Load())
		default:
		}
	}
	for round, at := range []int64{n / 4, n / 2, 3 * n / 4} {
		eventually(t, 2*opTimeout, fmt.Sprintf("%d records processed", at), func() error {
			running()
			if p := processed.Load(); p < at {
				return fmt.Errorf("%d processed", p)
			}
			return nil
		})
		kill(round)
	}
	eventually(t, 3*opTimeout, "the whole input committed", func() error {
		running()
		offs, err := adm.FetchOffsets(ctx, group)
		if err != nil {
			return err
		}
		total := int64(0)
		for _, ps := range offs {
			for _, o := range ps {
				if o.Err == nil {
					total += o.At
				}
			}
		}
		if total < n {
			return fmt.Errorf("group at %d of %d (processed %d in %d commits)", total, n, processed.Load(), commits.Load())
		}
		return nil
	})
	close(stop)
	stopPolling()
	<-done

	got := readAll(t, brokers[0], out, 2, true)
	seen := map[string]int{}
	for _, v := range got {
		seen[v]++
	}
	for i := range n {
		v := fmt.Sprintf("out-r-%05d", i)
		if seen[v] != 1 {
			t.Errorf("%s appears %d times in the committed output", v, seen[v])
		}
	}
	if len(got) != n {
		t.Errorf("committed output holds %d records, want exactly %d", len(got), n)
	}
	raw := readAll(t, brokers[0], out, 2, false)
	t.Logf("%d commits in %d sessions; output: %d records read_committed, %d read_uncommitted (aborted attempts included)", commits.Load(), sessions.Load(), len(got), len(raw))
}

// TestKcatTransactions: kcat produces with -X transactional.id (librdkafka
// runs initTransactions, one transaction, commit); a read_committed kcat
// sees its records, and not those of a franz-go transaction left open then
// aborted, which read_uncommitted does see.
func TestKcatTransactions(t *testing.T) {
	t.Parallel()
	kcat := requireTool(t, "kcat")
	b := startBroker(t, WithConfig("auto.create.topics.enable", "false"))
	topic := topicName(t, "")
	mustCreateTopic(t, b.Admin(t), topic, 1, nil)
	run := func(stdin string, args ...string) string {
		t.Helper()
		all := append([]string{"-b", b.Addr, "-X", "socket.timeout.ms=10000"}, args...)
		cmd := exec.CommandContext(testCtx(t, opTimeout), kcat, all...)
		cmd.Stdin = strings.NewReader(stdin)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("kcat %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(all, " "), err, stdout.String(), stderr.String())
		}
		if strings.Contains(stderr.String(), "ERROR") || strings.Contains(stderr.String(), "failed") {
			t.Errorf("kcat %s reported errors:\n%s", strings.Join(all, " "), stderr.String())
		}
		return stdout.String()
	}
	run("k1\nk2\nk3\n", "-P", "-t", topic, "-p", "0", "-X", "transactional.id="+topicName(t, "kcat"))

	// A franz-go transaction left open, then aborted.
	ctx := testCtx(t, opTimeout)
	tx := b.Client(t, kgo.TransactionalID(topicName(t, "franz")), kgo.DefaultProduceTopic(topic))
	if err := tx.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	if err := tx.ProduceSync(ctx, &kgo.Record{Value: []byte("aborted")}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	consume := func(iso string) []string {
		t.Helper()
		out := run("", "-C", "-t", topic, "-o", "beginning", "-e", "-f", "%s\n", "-X", "isolation.level="+iso)
		return strings.Fields(out)
	}
	if got := consume("read_committed"); strings.Join(got, ",") != "k1,k2,k3" {
		t.Errorf("read_committed while a transaction is open: %v, want k1 k2 k3", got)
	}
	if err := tx.EndTransaction(ctx, kgo.TryAbort); err != nil {
		t.Fatal(err)
	}
	if got := consume("read_committed"); strings.Join(got, ",") != "k1,k2,k3" {
		t.Errorf("read_committed after the abort: %v, want k1 k2 k3", got)
	}
	if got := consume("read_uncommitted"); strings.Join(got, ",") != "k1,k2,k3,aborted" {
		t.Errorf("read_uncommitted: %v, want k1 k2 k3 aborted", got)
	}
}

// TestKafkajsTransactions runs kafkajs/transactions.js: a transaction with
// two records and sendOffsets that commits, one that aborts; the output
// and the group's offset must show only the committed one.
func TestKafkajsTransactions(t *testing.T) {
	t.Parallel()
	node := requireTool(t, "node")
	dir := filepath.Join(repoRoot, "server", "e2e", "kafkajs")
	requireNpmPackage(t, dir, "kafkajs")
	b := startBroker(t, WithConfig("auto.create.topics.enable", "false"))
	in, out, group := topicName(t, "in"), topicName(t, "out"), topicName(t, "group")
	mustCreateTopic(t, b.Admin(t), in, 1, nil)
	mustCreateTopic(t, b.Admin(t), out, 1, nil)
	cmd := exec.CommandContext(testCtx(t, 2*time.Minute), node, "transactions.js", b.Addr, in, out, group, topicName(t, "txn"))
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if stderr.Len() > 0 {
		t.Logf("kafkajs stderr:\n%s", stderr.String())
	}
	if err != nil {
		t.Fatalf("node transactions.js: %v\nstdout:\n%s", err, stdout.String())
	}
	var res struct {
		Offset string `json:"offset"`
	}
	if err := json.Unmarshal(bytes.TrimSpace(stdout.Bytes()), &res); err != nil {
		t.Fatalf("transactions.js output: %v\n%s", err, stdout.String())
	}
	if res.Offset != "2" {
		t.Errorf("group offset after commit then abort: %q, want 2", res.Offset)
	}
	if got := readAll(t, b, out, 1, true); strings.Join(got, ",") != "c1,c2" {
		t.Errorf("read_committed output %v, want c1 c2", got)
	}
	if got := readAll(t, b, out, 1, false); strings.Join(got, ",") != "c1,c2,a1,END" && strings.Join(got, ",") != "c1,c2,a1" {
		t.Errorf("read_uncommitted output %v, want c1 c2 a1", got)
	}
}
