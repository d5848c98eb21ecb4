package sim

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gregor-kafka/gregor/core/log"
	pstate "github.com/gregor-kafka/gregor/core/producer"
	"github.com/gregor-kafka/gregor/core/record"
)

var debugTxnSim = false

var visibleRe = regexp.MustCompile(`\b(\d+):(v\d+)\b`)

// TestTransactionsRandom drives a transactional producer and a
// read_committed consumer through random transactions, lost and
// duplicated and delayed messages, broker crashes and restarts, and
// transaction timeouts, over many seeds, and checks after every step:
//
//   - no (producer id, epoch, sequence) is appended twice;
//   - no record of an aborted transaction is visible to read_committed;
//   - the last stable offset never passes the first offset of an open
//     transaction;
//   - no committed transaction is partly visible (while no partition is
//     offline after a disk fault: then, as in a cluster, the markers of
//     one transaction may reach one partition and not the other).
//
// In odd seeds the broker's disk fails too: a write or sync of t-0, t-1
// or __transaction_state fails with EIO or ENOSPC, the disk fills up,
// a power loss tears the unsynced writes, or a byte of a segment file
// (.log, indexes, .txnindex, snapshots) flips at rest; and the invariants
// must hold all the same (no aborted record visible, no duplicate, no
// open transaction passed by the last stable offset), through the
// restarts that recover the failed partitions. The checks read the log
// as a consumer that checks CRCs: a batch that fails its CRC, or that the
// log refuses as corrupt, must be on a partition whose disk flipped a
// byte, and it excuses that partition the checks it can no longer prove
// (a flipped marker leaves its transaction open to the scan, a flipped
// record makes its transaction partly visible).
func TestTransactionsRandom(t *testing.T) { runTxnSims(t, "TXNSIM", 60, singleBroker) }

// runTxnSims runs the seeds simSeeds gives and checks that, together, they
// exercised what they check.
func runTxnSims(t *testing.T, env string, n int, shape txnShape) {
	seeds, trace := simSeeds(env, n)
	debugTxnSim = trace
	var total txnSimStats
	for _, seed := range seeds {
		s := runTxnSim(t, seed, shape)
		total.visible += s.visible
		total.aborted += s.aborted
		total.restarts += s.restarts
		total.diskFailures += s.diskFailures
		total.flips += s.flips
	}
	if !trace && (total.visible == 0 || total.aborted == 0 || total.restarts == 0 || shape.diskFaults && (total.diskFailures == 0 || total.flips == 0)) {
		t.Fatalf("runs too tame: %+v", total)
	}
	t.Logf("%+v", total)
}

// simSeeds is the seeds a randomized test runs: $ENV_SEED alone, traced;
// else 1..$ENV_SEEDS; else 1..n, a fifth of them under -short.
func simSeeds(env string, n int) (seeds []uint64, trace bool) {
	if s, err := strconv.Atoi(os.Getenv(env + "_SEED")); err == nil {
		return []uint64{uint64(s)}, true
	}
	if s, err := strconv.Atoi(os.Getenv(env + "_SEEDS")); err == nil {
		n = s
	} else if testing.Short() {
		n = max(n/5, 1)
	}
	for seed := 1; seed <= n; seed++ {
		seeds = append(seeds, uint64(seed))
	}
	return seeds, false
}

type txnSimStats struct{ visible, aborted, restarts, diskFailures, flips int }

// txnShape is the world a transaction simulation runs in.
type txnShape struct {
	setup []string
	// crash is the command that crashes or restarts a broker.
	crash func(w *World, rng *rand.Rand) string
	// leader is the node whose log of partition idx of t is checked.
	leader func(w *World, idx int32) *Node
	// diskFaults makes odd seeds fail b0's disk now and then.
	diskFaults bool
	// settled reports whether every decided transaction must be fully
	// visible after each step: true on one broker, where the markers of
	// a transaction are written in one step; in a cluster they reach the
	// partition leaders one by one, and read_committed may see one
	// partition's commit before another's (as in Kafka).
	settled bool
	// producer is appended to the producer command: " tv=2" runs
	// transaction version 2 (KIP-890 part 2).
	producer string
}

var singleBroker = txnShape{
	setup: []string{"broker log.flush.interval.messages=1", "topic t partitions=2"},
	crash: func(w *World, rng *rand.Rand) string {
		if w.nodes[0].Up {
			return "crash b0"
		}
		return "restart b0"
	},
	leader:     func(w *World, _ int32) *Node { return w.nodes[0] },
	settled:    true,
	diskFaults: true,
}

// diskFault is a command that fails one write or sync of a partition of
// b0 (the simulation's data or its transaction coordinator's), fills its
// disk, tears its unsynced writes at the next power loss, or flips a byte
// of a segment file (.log, an index, the .txnindex, a producer snapshot).
func diskFault(w *World, rng *rand.Rand) string {
	what := []string{"t-0", "t-1", "__transaction_state"}[rng.IntN(3)]
	switch rng.IntN(6) {
	case 0:
		return fmt.Sprintf("disk b0 full room=%d", rng.IntN(3000))
	case 1:
		return "disk b0 tear"
	case 2:
		return "disk b0 flip " + segmentFiles(w, what)
	}
	op := []string{"write", "sync"}[rng.IntN(2)]
	return fmt.Sprintf("disk b0 fail %s %s nth=%d err=%s", op, what, 1+rng.IntN(3), []string{"EIO", "ENOSPC"}[rng.IntN(2)])
}

// segmentFiles names the segment files (named by a 20-digit offset) of
// partition tp on b0, or for an internal topic's name those of its first
// partition that has any, the coordinator's.
func segmentFiles(w *World, tp string) string {
	if !strings.HasPrefix(tp, "__") {
		return tp + "/0"
	}
	names, _ := w.nodes[0].Store.Synced(tp + "-")
	for _, name := range names {
		if dir, file, _ := strings.Cut(name, "/"); strings.HasPrefix(file, "0") {
			return dir + "/0"
		}
	}
	return tp + "-0/0"
}

// anyOffline reports whether a partition is offline on a broker that is up.
func anyOffline(w *World) bool {
	for _, n := range w.nodes {
		if n.Up && len(n.Broker.OfflinePartitions()) > 0 {
			return true
		}
	}
	return false
}

func runTxnSim(t *testing.T, seed uint64, shape txnShape) (st txnSimStats) {
	rng := rand.New(rand.NewPCG(seed, 7))
	w := New(seed)
	exec := func(cmd string) string {
		out, _ := w.Exec(cmd) // commands refused in the current state are fine
		if debugTxnSim {
			fmt.Printf("> %s\n%s", cmd, out)
		}
		return out
	}
	for _, c := range append(shape.setup, "consumer c read_committed") {
		if _, err := w.Exec(c); err != nil {
			t.Fatalf("seed %d: %s: %v", seed, c, err)
		}
	}
	prod, instances := "p0", 0
	exec("producer p0 transactional.id=app timeout=60s" + shape.producer)
	txnOf := map[string]int{} // value → the transaction (as the client began it) that wrote it
	txn, n := 0, 0
	var trace []string
	for step := 0; step < 80; step++ {
		var cmd string
		switch r := rng.IntN(20); {
		case r < 2:
			cmd = "begin " + prod
			txn++
		case r < 9:
			n++
			v := fmt.Sprintf("v%d", n)
			txnOf[v] = txn
			cmd = fmt.Sprintf("produce %s t partition=%d value=%s", prod, rng.IntN(2), v)
		case r < 11:
			cmd = "commit " + prod
		case r < 12:
			cmd = "abort " + prod
		case r < 13:
			cmd = "fault drop response to=" + prod
		case r < 14:
			cmd = "fault duplicate request from=" + prod
		case r < 15:
			cmd = fmt.Sprintf("fault delay=%dms from=%s", rng.IntN(3000), prod)
		case r == 16 && shape.diskFaults && seed%2 == 1:
			cmd = diskFault(w, rng)
		case r < 17:
			cmd = shape.crash(w, rng)
		case r < 18:
			cmd = fmt.Sprintf("advance %dms", rng.IntN(40000))
		default:
			if p, ok := w.clients[prod].(*producer); ok && p.txn.fenced {
				instances++
				prod = fmt.Sprintf("p%d", instances)
				cmd = "producer " + prod + " transactional.id=app timeout=60s" + shape.producer
			} else {
				cmd = "advance 1s"
			}
		}
		trace = append(trace, cmd)
		out := exec(cmd)
		if strings.Contains(out, "restarted") {
			st.restarts++
		}
		if strings.Contains(out, "KAFKA_STORAGE_ERROR:") {
			st.diskFailures++
		}
		if strings.Contains(out, "disk flip: byte ") {
			st.flips++
		}
		v, a := checkTxnInvariants(t, w, seed, trace, txnOf, shape, shape.settled && !anyOffline(w))
		st.visible, st.aborted = max(st.visible, v), max(st.aborted, a)
	}
	if !shape.settled {
		// Heal, let every decided transaction finish, and check that
		// none is partly visible.
		for _, n := range w.nodes {
			if !n.Up {
				exec("restart " + n.Name)
			}
		}
		exec("advance 60s")
		v, a := checkTxnInvariants(t, w, seed, append(trace, "(healed)"), txnOf, shape, true)
		st.visible, st.aborted = max(st.visible, v), max(st.aborted, a)
	}
	return st
}

// checkTxnInvariants returns how many records read_committed saw and how
// many aborted records the log holds.
func checkTxnInvariants(t *testing.T, w *World, seed uint64, trace []string, txnOf map[string]int, shape txnShape, settled bool) (nVisible, nAborted int) {
	t.Helper()
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("seed %d after %d steps (%s): %s", seed, len(trace), strings.Join(trace, "; "), fmt.Sprintf(format, args...))
	}
	inLog := map[int]map[string]bool{}   // transaction → values in the log
	visible := map[int]map[string]bool{} // transaction → values read_committed returned
	partial := false                     // a damaged batch hides part of a log
	for idx := int32(0); idx < 2; idx++ {
		n := shape.leader(w, idx)
		if n == nil || !n.Up || n.Broker.Topic("t") == nil || len(n.Broker.Topic("t").Partitions) <= int(idx) {
			continue
		}
		p := n.Broker.Topic("t").Partitions[idx]
		type key struct {
			pid   int64
			epoch int16
			seq   int32
		}
		seen := map[key]int64{}
		open := map[int64]int64{}           // pid → first offset of its open transaction
		pendingVals := map[int64][]string{} // pid → values of its open transaction
		aborted := map[string]bool{}
		damaged, err := scanChecked(p.Log(), func(b record.Batch) error {
			pid := b.ProducerID()
			if b.IsControl() {
				kind, _, err := pstate.DecodeMarker(b)
				if err != nil {
					return err
				}
				if kind == pstate.ControlAbort {
					for _, v := range pendingVals[pid] {
						aborted[v] = true
					}
				}
				delete(open, pid)
				delete(pendingVals, pid)
				return nil
			}
			if pid >= 0 {
				k := key{pid, b.ProducerEpoch(), b.BaseSequence()}
				if at, dup := seen[k]; dup {
					fail("%s: batch pid=%d epoch=%d seq=%d appended at %d and at %d", p, k.pid, k.epoch, k.seq, at, b.BaseOffset())
				}
				seen[k] = b.BaseOffset()
			}
			recs, err := b.Records()
			if err != nil {
				return err
			}
			for _, r := range recs {
				v := string(r.Value)
				tx := txnOf[v]
				if inLog[tx] == nil {
					inLog[tx] = map[string]bool{}
				}
				inLog[tx][v] = true
				if b.IsTransactional() {
					pendingVals[pid] = append(pendingVals[pid], v)
				}
			}
			if b.IsTransactional() {
				if _, ok := open[pid]; !ok {
					open[pid] = b.BaseOffset()
				}
			}
			return nil
		})
		if err != nil {
			fail("%s: scan: %v", p, err)
		}
		if damaged && !flippedOn(w, n, p.String()) {
			fail("%s: a damaged batch on %s, whose disk flipped no byte of it", p, n.Name)
		}
		nAborted += len(aborted)
		lso := p.LastStableOffset()
		for pid, first := range open {
			// A flipped marker leaves its transaction open to this scan.
			if lso > first && !damaged {
				fail("%s: lso %d passes the open transaction of pid %d at %d", p, lso, pid, first)
			}
		}
		partial = partial || damaged
		// In a cluster the consumer may have asked a deposed leader: it
		// refreshes its metadata and asks again.
		var out string
		for range 3 {
			out, _ = w.Exec(fmt.Sprintf("fetch c %s offset=0", p))
			if debugTxnSim {
				fmt.Print(out)
			}
			if !strings.Contains(out, "error=") {
				break
			}
		}
		if strings.Contains(out, "error=") {
			if settled && !shape.settled {
				fail("%s: read_committed fetch failed after healing:\n%s", p, out)
			}
			continue
		}
		for _, line := range strings.Split(out, "\n") {
			if !strings.HasPrefix(line, "c ") {
				continue
			}
			for _, m := range visibleRe.FindAllStringSubmatch(line, -1) {
				v := m[2]
				if aborted[v] {
					fail("%s: aborted record %s visible to read_committed:\n%s", p, v, out)
				}
				tx := txnOf[v]
				if visible[tx] == nil {
					visible[tx] = map[string]bool{}
				}
				visible[tx][v] = true
				nVisible++
			}
		}
	}
	for tx, vs := range visible {
		if settled && !partial && len(vs) != len(inLog[tx]) {
			fail("transaction %d partly visible: %d of %d records (%v of %v)", tx, len(vs), len(inLog[tx]), vs, inLog[tx])
		}
	}
	return nVisible, nAborted
}

// scanChecked calls fn for every batch of l, read as a consumer that
// checks CRCs does: a batch that fails its CRC is skipped, and a read the
// log refuses as corrupt ends the scan; damaged reports either.
func scanChecked(l *log.Log, fn func(record.Batch) error) (damaged bool, err error) {
	for off := l.StartOffset(); off < l.EndOffset(); {
		data, err := l.Read(off, 1<<20, l.EndOffset(), true)
		if errors.Is(err, log.ErrCorrupt) {
			return true, nil
		}
		if err != nil {
			return damaged, err
		}
		it := record.NewIter(data)
		n := 0
		for b, ok := it.Next(); ok; b, ok = it.Next() {
			n++
			off = b.LastOffset() + 1
			if record.ValidateStored(b) != nil {
				damaged = true
				continue
			}
			if err := fn(b); err != nil {
				return damaged, err
			}
		}
		if n == 0 {
			return true, nil
		}
	}
	return damaged, nil
}

// flippedOn reports whether a byte of partition tp's files flipped on n.
func flippedOn(w *World, n *Node, tp string) bool {
	for _, e := range w.Events() {
		if e.From == n.Name && strings.Contains(e.Text, "disk flip: byte ") && strings.Contains(e.Text, " of "+tp+"/") {
			return true
		}
	}
	return false
}

// TestTransactionsRandomTV2 is TestTransactionsRandom with producers of
// transaction version 2 (KIP-890 part 2: implicit adds, an epoch bump at
// every end), TXNSIM_TV2_SEED=N replaying one seed.
func TestTransactionsRandomTV2(t *testing.T) {
	shape := singleBroker
	shape.producer = " tv=2"
	runTxnSims(t, "TXNSIM_TV2", 40, shape)
}

// TestTV2EndTxnRetryAfterCrash: the coordinator writes a transaction
// version 2 commit through to COMPLETE_COMMIT, and crashes before its
// answer (which carries the bumped epoch) reaches the producer. The
// producer sends the same EndTxn, at its old epoch, to the restarted
// coordinator, which rebuilt the transaction from __transaction_state:
// that is a retry (Kafka's retryOnEpochBump), answered NONE with the
// bumped epoch, not PRODUCER_FENCED, and the producer carries on.
func TestTV2EndTxnRetryAfterCrash(t *testing.T) {
	w := New(1)
	execAll(t, w, "broker log.flush.interval.messages=1", "topic t partitions=1",
		"producer p transactional.id=app timeout=60s tv=2",
		"begin p", "produce p t partition=0 value=a",
		"fault drop response to=p")
	if out := execAll(t, w, "commit p"); !strings.Contains(out, "COMPLETE_COMMIT pid=0 epoch=1") || !strings.Contains(out, "(dropped) EndTxn NONE pid=0 epoch=1") {
		t.Fatalf("commit:\n%s", out)
	}
	execAll(t, w, "crash b0", "restart b0")
	out := execAll(t, w, "advance 31s") // request.timeout.ms: the producer sends EndTxn again
	if !strings.Contains(out, "p -> b0      EndTxn COMMIT transactional_id=app pid=0 epoch=0") ||
		!strings.Contains(out, "b0 -> p      EndTxn NONE pid=0 epoch=1") {
		t.Fatalf("the retried EndTxn after the restart:\n%s", out)
	}
	out = execAll(t, w, "begin p", "produce p t partition=0 value=b", "commit p")
	if !strings.Contains(out, "b0 -> p      EndTxn NONE pid=0 epoch=2") {
		t.Fatalf("the next transaction:\n%s", out)
	}
	execAll(t, w, "consumer c read_committed")
	if out := execAll(t, w, "fetch c t-0 offset=0"); !strings.Contains(out, "0:a") || !strings.Contains(out, "2:b") {
		t.Fatalf("read_committed sees both transactions:\n%s", out)
	}
}
