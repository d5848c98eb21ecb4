package e2e

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestNetworkSplitAvailability (issue 17): three gregor processes, each in
// its own network namespace on a private bridge, an RF=3,
// min.insync.replicas=2 topic of three partitions, and three idempotent
// acks=all producers. Three times, the leader of a partition has its link
// taken down for 10 s, then up for 6 s. Afterwards every partition must
// have a leader and a full ISR again, and a consumer reads everything back.
//
// It reports what was acknowledged, lost (acknowledged, then not at its
// offset), duplicated (a value written twice), out of order (a producer's
// records in another order than sent, within a partition), failed (not
// acknowledged within the 40 s delivery timeout) and the longest stretch
// with no acknowledgement at all, and requires: nothing lost, duplicated or
// out of order, no stretch over 15 s (Kafka's yardstick: a cut-off broker
// is fenced after broker.session.timeout.ms, 9 s, and its partitions get
// new leaders in the same step), and failures under 1% of what was
// acknowledged.
//
// It runs alone, before the parallel tests (no t.Parallel): it times
// stretches of the cluster's availability, so it gets the machine to itself.
func TestNetworkSplitAvailability(t *testing.T) {
	const (
		n        = 3
		rounds   = 3
		cutFor   = 10 * time.Second
		healFor  = 6 * time.Second
		maxQuiet = 15 * time.Second
	)
	sn := newSplitNet(t, n)
	var voters []string
	for i, a := range sn.addrs {
		voters = append(voters, fmt.Sprintf("%d@%s:9192", i+1, a))
	}
	bs := make([]*Broker, n)
	for i, a := range sn.addrs {
		bs[i] = startBroker(t, WithWrapper(sn.wrapper(i)...), WithAddrs(a+":9092", a+":8080"),
			WithArgs("--node-id", strconv.Itoa(i+1), "--controller-addr", a+":9192", "--controller-quorum", strings.Join(voters, ",")))
		bs[i].NodeID = int32(i + 1)
	}
	topic := topicName(t, "")
	adm := kadm.NewClient(clusterClient(t, bs, kgo.RetryTimeout(20*time.Second), kgo.MetadataMinAge(250*time.Millisecond)))
	createFullyReplicated(t, adm, n, topic)

	log := &ackLog{acked: map[string]ackedAt{}}
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for k := range 3 {
		cl := clusterClient(t, bs, kgo.DefaultProduceTopic(topic), kgo.RecordDeliveryTimeout(40*time.Second),
			kgo.MetadataMinAge(250*time.Millisecond), kgo.MaxBufferedRecords(2000), kgo.ProducerLinger(5*time.Millisecond))
		wg.Add(1)
		go func() {
			defer wg.Done()
			// 2,000 records a second: enough to see every stall to the
			// millisecond, few enough to read back quickly.
			tick := time.NewTicker(5 * time.Millisecond)
			defer tick.Stop()
			for seq := 0; ctx.Err() == nil; <-tick.C {
				for range 10 {
					r := &kgo.Record{Value: fmt.Appendf(nil, "p%d-%d", k, seq)}
					// Not ctx: a record is sent whole or not at all.
					cl.Produce(context.Background(), r, log.done)
					seq++
				}
			}
			// Everything sent gets its answer (or fails) within the
			// delivery timeout.
			fctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
			defer cancel()
			if err := cl.Flush(fctx); err != nil {
				t.Errorf("producer %d: flush: %v", k, err)
			}
		}()
	}
	leaderOf := func(p int32) int {
		md, err := adm.Metadata(testCtx(t, 5*time.Second), topic)
		if err != nil {
			t.Fatalf("metadata: %v", err)
		}
		return int(md.Topics[topic].Partitions[p].Leader) - 1
	}
	time.Sleep(3 * time.Second) // the workload runs: this is its length, not a synchronisation
	last := -1
	for r := range rounds {
		victim := leaderOf(int32(r % n))
		if victim < 0 || victim == last {
			victim = (last + 1) % n
		}
		last = victim
		t.Logf("round %d: cutting broker %d (leader of partition %d) off for %v", r+1, victim+1, r%n, cutFor)
		log.event(fmt.Sprintf("broker %d cut off", victim+1))
		sn.cut(victim)
		time.Sleep(cutFor)
		sn.heal(victim)
		log.event(fmt.Sprintf("broker %d healed", victim+1))
		healed := time.Now()
		waitFullISR(t, adm, topic)
		t.Logf("every partition had a leader and a full ISR %v after the heal", time.Since(healed).Round(100*time.Millisecond))
		time.Sleep(time.Until(healed.Add(healFor)))
	}
	stop()
	wg.Wait()

	st := log.stats(t, readPartitions(t, bs, topic, n))
	t.Logf("acknowledged %d, lost %d, duplicated %d, out of order %d, failed %d, longest stretch without an acknowledgement %v",
		st.acked, st.lost, st.dup, st.disorder, st.failed, st.quiet.Round(100*time.Millisecond))
	if st.lost > 0 || st.dup > 0 || st.disorder > 0 {
		t.Errorf("lost %d, duplicated %d, out of order %d: want none", st.lost, st.dup, st.disorder)
	}
	if st.quiet > maxQuiet {
		t.Errorf("no acknowledgement for %v in a row: want at most %v", st.quiet, maxQuiet)
	}
	if st.acked == 0 || float64(st.failed) >= 0.01*float64(st.acked) {
		t.Errorf("%d failed against %d acknowledged: want under 1%%", st.failed, st.acked)
	}
}

type ackedAt struct {
	partition int32
	offset    int64
}

// ackLog collects the producers' outcomes.
type ackLog struct {
	mu     sync.Mutex
	acked  map[string]ackedAt
	times  []time.Time
	failed int
	errs   map[string]int
	events []splitEvent // cuts and heals, to place the stretches
}

type splitEvent struct {
	at   time.Time
	what string
}

func (l *ackLog) event(what string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, splitEvent{time.Now(), what})
}

// place says where t falls: after which cut or heal, and how long after.
func (l *ackLog) place(t time.Time) string {
	where := "before the first cut"
	for _, e := range l.events {
		if !e.at.After(t) {
			where = fmt.Sprintf("%v after %s", t.Sub(e.at).Round(100*time.Millisecond), e.what)
		}
	}
	return where
}

func (l *ackLog) done(r *kgo.Record, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err != nil {
		if l.errs == nil {
			l.errs = map[string]int{}
		}
		l.failed++
		l.errs[err.Error()]++
		return
	}
	l.acked[string(r.Value)] = ackedAt{r.Partition, r.Offset}
	l.times = append(l.times, time.Now())
}

type splitStats struct {
	acked, lost, dup, disorder, failed int
	quiet                              time.Duration
}

// stats compares what was acknowledged with what the partitions hold
// (logs[p][o] is the value at offset o of partition p).
func (l *ackLog) stats(t *testing.T, logs [][]string) splitStats {
	l.mu.Lock()
	defer l.mu.Unlock()
	st := splitStats{acked: len(l.acked), failed: l.failed}
	for e, c := range l.errs {
		t.Logf("failed: %d × %s", c, e)
	}
	for v, at := range l.acked {
		if int(at.partition) >= len(logs) || at.offset >= int64(len(logs[at.partition])) || logs[at.partition][at.offset] != v {
			st.lost++
		}
	}
	seen := map[string]bool{}
	for _, log := range logs {
		last := map[string]int{} // producer -> last sequence in this partition
		for _, v := range log {
			if seen[v] {
				st.dup++
			}
			seen[v] = true
			prod, seqs, _ := strings.Cut(v, "-")
			seq, _ := strconv.Atoi(seqs)
			if prev, ok := last[prod]; ok && seq <= prev {
				st.disorder++
			}
			last[prod] = seq
		}
	}
	slices.SortFunc(l.times, func(a, b time.Time) int { return a.Compare(b) })
	for i := 1; i < len(l.times); i++ {
		if gap := l.times[i].Sub(l.times[i-1]); gap > time.Second {
			t.Logf("no acknowledgement for %v: from %s to %s", gap.Round(100*time.Millisecond), l.place(l.times[i-1]), l.place(l.times[i]))
			st.quiet = max(st.quiet, gap)
		}
	}
	return st
}

// readPartitions reads partitions 0..n-1 of topic from the start to their end
// offsets.
func readPartitions(t *testing.T, bs []*Broker, topic string, n int32) [][]string {
	t.Helper()
	adm := kadm.NewClient(clusterClient(t, bs))
	ends, err := adm.ListEndOffsets(testCtx(t, 10*time.Second), topic)
	if err != nil {
		t.Fatalf("end offsets: %v", err)
	}
	offsets := map[int32]kgo.Offset{}
	logs := make([][]string, n)
	want := 0
	for p := range n {
		offsets[p] = kgo.NewOffset().At(0)
		o, _ := ends.Lookup(topic, p)
		want += int(o.Offset)
	}
	cl := clusterClient(t, bs, kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: offsets}))
	ctx := testCtx(t, 60*time.Second)
	for got := 0; got < want; {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("read %d of %d records", got, want)
		}
		fs.EachRecord(func(r *kgo.Record) {
			if r.Offset != int64(len(logs[r.Partition])) {
				t.Fatalf("partition %d: offset %d after %d records", r.Partition, r.Offset, len(logs[r.Partition]))
			}
			logs[r.Partition] = append(logs[r.Partition], string(r.Value))
			got++
		})
	}
	return logs
}
