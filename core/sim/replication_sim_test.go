//go:build !noquorum

package sim

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
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
//     sync, and its failed partition is recovered by a restart.
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
	acked, elections, offline := 0, 0, 0
	for _, seed := range seeds {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			a, e, o := replicationRun(t, seed)
			acked, elections, offline = acked+a, elections+e, offline+o
		})
	}
	// The faults must have done something, or the checks above prove
	// nothing: records acknowledged, leaders lost and re-elected, disks
	// failed.
	if len(seeds) > 1 && (acked == 0 || elections == 0 || offline == 0) {
		t.Fatalf("%d seeds acknowledged %d records through %d elections and %d failed disks: the faults did not bite", len(seeds), acked, elections, offline)
	}
	t.Logf("%d seeds: %d records acknowledged through %d leader elections and %d partitions offline after a disk fault", len(seeds), acked, elections, offline)
}

type ackedRecord struct {
	offset int64
	value  string
}

// replicationRun runs one seed and returns how many records were
// acknowledged, how many leader elections the faults caused, and how many
// times a disk fault took the partition offline on a broker.
func replicationRun(t *testing.T, seed uint64) (int, int, int) {
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
	hw := map[string][2]int64{} // broker -> (leader epoch, hw) while leading
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
			if !ok {
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
		default:
			b := fmt.Sprintf("b%d", rng.IntN(3))
			exec(fmt.Sprintf("fault delay=%dms from=%s", 50+rng.IntN(2000), b))
		}
		check()
	}
	// A partition that went offline after a disk fault comes back only
	// through a restart, which recovers its log (the process dies; the
	// page cache keeps what was written).
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
	}
	if w.UncleanElections() > 0 || diskLost {
		t.Logf("seed %d: %d unclean elections, disk lost: %v; %d records acknowledged", seed, w.UncleanElections(), diskLost, len(acked))
		return len(acked), elections, offline
	}
	for _, a := range acked {
		if a.offset >= lp.HighWatermark {
			fail("acknowledged offset %d (%s) is not below the leader %s's high watermark %d", a.offset, a.value, leader.Name, lp.HighWatermark)
		}
		for _, r := range ip.ISR {
			n := w.Nodes()[r]
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
	return len(acked), elections, offline
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
