//go:build !noquorum

package sim

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/broker"
	"github.com/gregor-kafka/gregor/core/record"
)

var replSeed = flag.Uint64("repl-seed", 0, "replay one seed of TestReplicationRandom")

// TestReplicationRandom runs clusters through random crashes, restarts,
// network partitions and lost or delayed messages while an idempotent
// acks=all producer writes,
// and checks Kafka's replication guarantees:
//
//   - a leader's high watermark never goes back while it leads an epoch;
//   - every record acknowledged to acks=all is, once the cluster has
//     healed, on the leader and on every ISR member at the same offset with
//     the same value, and only once in the log;
//   - acknowledged records are lost only after an unclean election, or
//     after a disk fault (`disk bN fail ...`) followed by a power loss of
//     that broker: no acknowledged record lost unless its disk lost it.
//     A broker whose disk failed never acknowledges what it did not
//     sync: it reports its log dir offline to the controller, which
//     moves its leadership and takes it out of the ISR, and it halts; a
//     restart recovers it;
//   - in even seeds the disk also fills up (ENOSPC), tears the unsynced
//     writes at a power loss, or flips a byte of a synced file of t-0 at
//     rest. Acknowledged records then survive on every ISR member whose
//     disk flipped nothing, unless a broker whose disk flipped a byte led
//     t-0 afterwards (its recovery may have truncated the only copy
//     left); and nothing corrupt is served: a consumer that checks CRCs
//     reads the whole log once healed, and every batch that passes is
//     the producer's, at most once, while a batch that fails comes only
//     from a leader whose own disk flipped a byte (the follower checks
//     CRCs before it appends, so damage does not spread).
func TestReplicationRandom(t *testing.T) {
	seeds := []uint64{}
	if *replSeed != 0 {
		seeds = append(seeds, *replSeed)
	} else {
		n := uint64(40)
		if testing.Short() {
			n = 10
		}
		if v, err := strconv.ParseUint(os.Getenv("GREGOR_REPL_SEEDS"), 10, 64); err == nil {
			n = v
		}
		for s := uint64(1); s <= n; s++ {
			seeds = append(seeds, s)
		}
	}
	var total replStats
	for _, seed := range seeds {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			s := replicationRun(t, seed)
			total.acked, total.elections, total.offline = total.acked+s.acked, total.elections+s.elections, total.offline+s.offline
			total.flips, total.corrupt = total.flips+s.flips, total.corrupt+s.corrupt
		})
	}
	// The faults must have done something, or the checks above prove
	// nothing: records acknowledged, leaders lost and re-elected, disks
	// failed, bytes flipped and caught.
	if len(seeds) > 1 && (total.acked == 0 || total.elections == 0 || total.offline == 0 || total.flips == 0 || total.corrupt == 0) {
		t.Fatalf("%d seeds: %+v: the faults did not bite", len(seeds), total)
	}
	t.Logf("%d seeds: %+v (records acknowledged, leader elections, partitions offline after a disk fault, bytes flipped, corrupt batches the consumer caught)", len(seeds), total)
}

type replStats struct{ acked, elections, offline, flips, corrupt int }

type ackedRecord struct {
	offset int64
	value  string
}

// replicationRun runs one seed and returns how many records were
// acknowledged, how many leader elections the faults caused, how many
// times a disk fault took the partition offline on a broker, how many
// bytes flipped and how many corrupt batches the consumer caught.
func replicationRun(t *testing.T, seed uint64) (st replStats) {
	rng := rand.New(rand.NewPCG(seed, 0x7e9))
	w := New(seed)
	unclean := seed%4 == 0
	exec := func(line string) {
		t.Helper()
		if _, err := w.Exec(line); err != nil {
			t.Fatalf("seed %d: %s: %v\nreplay: go test ./core/sim -run TestReplicationRandom -repl-seed=%d", seed, line, err, seed)
		}
	}
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("seed %d at %dms: %s\nreplay: go test ./core/sim -run TestReplicationRandom -repl-seed=%d",
			seed, w.Now(), fmt.Sprintf(format, args...), seed)
	}
	// Power loss takes unsynced bytes; acks=all promises nothing for
	// records every replica lost that way (Kafka relies on the page
	// cache, and KIP-966 on unclean-shutdown detection), so brokers sync
	// every append here.
	exec(fmt.Sprintf("cluster 3 replica.lag.time.max.ms=3000 log.flush.interval.messages=1 unclean.leader.election.enable=%v", unclean))
	exec("topic t partitions=1 rf=3 min.insync.replicas=2")
	exec("producer p idempotent retries=100000")

	var acked []ackedRecord
	seen := 0
	diskLost := false // a broker lost power after a disk fault: its unsynced bytes are gone
	offline := 0      // partitions taken offline by a disk fault
	crash := func(name string) {
		n, _ := w.node(name)
		if p := partition(n); p != nil && p.Offline() {
			diskLost = true
			offline++
		}
		exec("disk " + name + " clear") // the restart's recovery meets a healthy disk
		exec("crash " + name)
	}
	flipped := map[string]bool{} // brokers whose disk flipped a byte of t-0
	flippedLed := false          // one of them led t-0 after its flip
	hw := map[string][2]int64{}  // broker -> (leader epoch, hw) while leading
	check := func() {
		for _, e := range w.Events()[seen:] {
			resp, ok := e.Msg.(*kmsg.ProduceResponse)
			if e.Kind != "deliver" || !ok || e.To != "p" {
				continue
			}
			pr := resp.Topics[0].Partitions[0]
			if pr.ErrorCode != 0 {
				continue
			}
			n, _ := w.node(e.From)
			v, ok := valueAt(n, pr.BaseOffset)
			if !n.Up {
				// It halted later in the same step (a full disk under its
				// metadata log): what it acknowledged cannot be read back.
				continue
			}
			if !ok && !flipped[e.From] {
				fail("%s acknowledged offset %d it does not have", e.From, pr.BaseOffset)
			}
			acked = append(acked, ackedRecord{pr.BaseOffset, v})
		}
		seen = len(w.Events())
		for _, n := range w.Nodes() {
			if !n.Up {
				delete(hw, n.Name)
				continue
			}
			p := partition(n)
			if p == nil || p.Leader != n.ID {
				delete(hw, n.Name)
				continue
			}
			flippedLed = flippedLed || flipped[n.Name]
			was, ok := hw[n.Name]
			if ok && was[0] == int64(p.LeaderEpoch) && p.HighWatermark < was[1] {
				fail("%s: high watermark went back from %d to %d in epoch %d", n.Name, was[1], p.HighWatermark, p.LeaderEpoch)
			}
			hw[n.Name] = [2]int64{int64(p.LeaderEpoch), p.HighWatermark}
		}
	}

	next := 0
	for range 120 {
		switch r := rng.IntN(22); {
		case r < 9:
			exec(fmt.Sprintf("produce p t partition=0 value=v%d", next))
			next++
		case r < 14:
			exec(fmt.Sprintf("advance %dms", 100+rng.IntN(3000)))
		case r < 16:
			var up, down []string
			for _, n := range w.Nodes() {
				if n.Up {
					up = append(up, n.Name)
				} else {
					down = append(down, n.Name)
				}
			}
			if len(down) > 0 {
				exec("restart " + down[rng.IntN(len(down))])
			} else {
				crash(up[rng.IntN(len(up))])
			}
		case r < 18:
			b := fmt.Sprintf("b%d", rng.IntN(3))
			exec(fmt.Sprintf("fault drop to=%s", b))
		case r >= 20:
			// A network partition cuts one broker off from the others
			// (clients still reach it), or heals.
			if len(w.net.cut) > 0 {
				exec("heal")
			} else {
				exec(fmt.Sprintf("partition b%d", rng.IntN(3)))
			}
		case r == 19 && seed%2 == 1:
			// A disk fault in half the seeds: the next write or one of the
			// next syncs of t-0 on one broker fails.
			b := fmt.Sprintf("b%d", rng.IntN(3))
			op := []string{"write", "sync"}[rng.IntN(2)]
			exec(fmt.Sprintf("disk %s fail %s t-0 nth=%d err=%s", b, op, 1+rng.IntN(3), []string{"EIO", "ENOSPC"}[rng.IntN(2)]))
		case r == 19:
			// In the other half the disk fills up, tears the unsynced
			// writes at its next power loss, or flips a byte at rest.
			b := fmt.Sprintf("b%d", rng.IntN(3))
			if n, _ := w.node(b); !n.Up {
				continue
			}
			switch rng.IntN(3) {
			case 0:
				exec(fmt.Sprintf("disk %s full room=%d", b, rng.IntN(2000)))
			case 1:
				exec(fmt.Sprintf("disk %s tear", b))
			default:
				// The segments' files (.log, indexes, producer
				// snapshots), all named by a 20-digit offset; a flip in
				// partition.metadata or leader-epoch-checkpoint keeps
				// the partition from loading, which the controller is
				// not told of yet (docs/operations.md, When the disk fails).
				if _, err := w.Exec("disk " + b + " flip t-0/0"); err == nil {
					flipped[b] = true
					st.flips++
				}
			}
		default:
			b := fmt.Sprintf("b%d", rng.IntN(3))
			exec(fmt.Sprintf("fault delay=%dms from=%s", 50+rng.IntN(2000), b))
		}
		check()
	}
	// A partition that went offline after a disk fault comes back only
	// through a restart, which recovers its log (the process dies; the
	// page cache keeps what was written). A full disk is freed first.
	for _, n := range w.Nodes() {
		exec("disk " + n.Name + " clear")
	}
	for _, n := range w.Nodes() {
		if p := partition(n); n.Up && p != nil && p.Offline() {
			offline++
			exec("disk " + n.Name + " clear")
			exec("crash " + n.Name + " process")
			exec("restart " + n.Name)
		}
	}
	// Heal: everyone back, time for elections, catch-up and ISR expansion.
	if len(w.net.cut) > 0 {
		exec("heal")
	}
	for _, n := range w.Nodes() {
		if !n.Up {
			exec("restart " + n.Name)
		}
	}
	exec("advance 60s")
	check()

	leader := w.Leader("t", 0)
	if leader == nil || !leader.Up {
		fail("no leader after healing")
	}
	lp := partition(leader)
	im := leader.Broker.Image()
	ip := im.Partition("t", 0)
	elections := 0
	for _, e := range w.Events() {
		if strings.Contains(e.Text, "(leader elected from the ISR)") || strings.Contains(e.Text, "unclean") {
			elections++
		}
		if strings.Contains(e.Text, "log dir failed: the broker halts") {
			offline++ // its log dir went offline: it told the controller and halted
		}
	}
	st.acked, st.elections, st.offline = len(acked), elections, offline
	var read map[string]bool
	st.corrupt, read = consumeChecked(t, w, leader, flipped[leader.Name], fail)
	if w.UncleanElections() > 0 || diskLost || flippedLed {
		t.Logf("seed %d: %d unclean elections, disk lost: %v, a flipped disk led: %v; %d records acknowledged", seed, w.UncleanElections(), diskLost, flippedLed, len(acked))
		return st
	}
	for _, a := range acked {
		if a.offset >= lp.HighWatermark {
			fail("acknowledged offset %d (%s) is not below the leader %s's high watermark %d", a.offset, a.value, leader.Name, lp.HighWatermark)
		}
		if !read[a.value] && !flipped[leader.Name] {
			fail("acknowledged offset %d (%s) was not read by the consumer", a.offset, a.value)
		}
		for _, r := range ip.ISR {
			n := w.Nodes()[r]
			if flipped[n.Name] {
				continue // its disk may have lost it
			}
			v, ok := valueAt(n, a.offset)
			if !ok || v != a.value {
				fail("acknowledged offset %d (%s) is %q on ISR member %s", a.offset, a.value, v, n.Name)
			}
		}
	}
	// No record twice: the idempotent producer's retries were deduplicated.
	var values []string
	for off := lp.Log().StartOffset(); off < lp.Log().EndOffset(); off++ {
		if v, ok := valueAt(leader, off); ok {
			if slices.Contains(values, v) {
				fail("%s appears twice in the log", v)
			}
			values = append(values, v)
		}
	}
	if len(acked) == 0 {
		t.Logf("seed %d: nothing acknowledged", seed)
	}
	return st
}

var (
	positionRe = regexp.MustCompile(`\(position (\d+)\)`)
	corruptRe  = regexp.MustCompile(regexp.QuoteMeta(corruptBatch) + `[^>]*>`)
	recordRe   = regexp.MustCompile(`^\d+:(v\d+)$`)
)

// consumeChecked reads t-0 from its leader up to the high watermark as a
// consumer that checks CRCs, and returns how many corrupt batches it
// caught and the values it read. A corrupt batch from a leader whose disk flipped nothing, a
// record that passes its CRC but is not one the producer wrote, or a
// value read twice fails the run.
func consumeChecked(t *testing.T, w *World, leader *Node, flipped bool, fail func(string, ...any)) (corrupt int, seen map[string]bool) {
	t.Helper()
	if _, err := w.Exec("consumer checker"); err != nil {
		t.Fatal(err)
	}
	p := partition(leader)
	if p == nil {
		fail("%s (up: %v) lost t-0 once healed", leader.Name, leader.Up)
	}
	seen = map[string]bool{}
	for pos := p.Log().StartOffset(); pos < p.HighWatermark; {
		out, err := w.Exec(fmt.Sprintf("fetch checker t-0 offset=%d", pos))
		if err != nil {
			t.Fatal(err)
		}
		next := pos
		for _, line := range strings.Split(out, "\n") {
			if !strings.HasPrefix(line, "checker ") {
				continue
			}
			if m := positionRe.FindStringSubmatch(line); m != nil {
				next, _ = strconv.ParseInt(m[1], 10, 64)
			}
			if n := strings.Count(line, corruptBatch); n > 0 {
				if !flipped {
					fail("%s served a corrupt batch, and its disk flipped nothing:\n%s", leader.Name, line)
				}
				corrupt += n
			}
			_, recs, _ := strings.Cut(corruptRe.ReplaceAllString(positionRe.ReplaceAllString(line, ""), ""), "t-0: ")
			if strings.HasPrefix(recs, "no records") {
				continue
			}
			for _, f := range strings.Fields(recs) {
				m := recordRe.FindStringSubmatch(f)
				if m == nil {
					fail("a record with a valid CRC that the producer never wrote: %q in\n%s", f, line)
				}
				if seen[m[1]] {
					fail("%s read twice:\n%s", m[1], line)
				}
				seen[m[1]] = true
			}
		}
		if next <= pos {
			if !flipped {
				fail("the consumer is stuck at %d below the high watermark %d:\n%s", pos, p.HighWatermark, out)
			}
			break // the leader refused a damaged batch (KAFKA_STORAGE_ERROR)
		}
		pos = next
	}
	return corrupt, seen
}

func partition(n *Node) *broker.Partition {
	t := n.Broker.Topic("t")
	if t == nil || len(t.Partitions) == 0 {
		return nil
	}
	return t.Partitions[0]
}

// valueAt reads the value of the record at offset on n.
func valueAt(n *Node, offset int64) (string, bool) {
	if n == nil || !n.Up {
		return "", false
	}
	p := partition(n)
	if p == nil || offset >= p.Log().EndOffset() || offset < p.Log().StartOffset() {
		return "", false
	}
	data, err := p.Log().Read(offset, 1<<20, offset+1, true)
	if err != nil {
		return "", false
	}
	it := record.NewIter(data)
	for b, ok := it.Next(); ok; b, ok = it.Next() {
		if record.ValidateStored(b) != nil {
			return "", false // a flipped byte: not the value written
		}
		recs, err := b.Records()
		if err != nil {
			return "", false
		}
		for _, r := range recs {
			if b.BaseOffset()+int64(r.OffsetDelta) == offset {
				return string(r.Value), true
			}
		}
	}
	return "", false
}
