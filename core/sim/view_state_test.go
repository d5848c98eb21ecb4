package sim_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/gregor-kafka/gregor/core/sim"
	"github.com/gregor-kafka/gregor/core/view"
	"github.com/gregor-kafka/gregor/lessons"
)

// at replays a lesson's first n steps and returns the snapshot after the
// last, with the changes of that step marked.
func at(t *testing.T, slug string, n int) view.World {
	t.Helper()
	l, err := lessons.Load(slug)
	if err != nil {
		t.Fatal(err)
	}
	w, _ := l.Replay(n - 1)
	before := w.View()
	lessons.Exec(w, l.Steps[n-1].Command)
	after := w.View()
	view.MarkChanges(&before, &after)
	return after
}

func partition(t *testing.T, st view.World, broker, name string) view.Partition {
	t.Helper()
	for _, b := range st.Brokers {
		for _, p := range b.Partitions {
			if b.Name == broker && p.Name == name {
				return p
			}
		}
	}
	t.Fatalf("no partition %s on %s", name, broker)
	return view.Partition{}
}

func batches(p view.Partition) []view.Batch {
	var out []view.Batch
	for _, s := range p.Segments {
		out = append(out, s.Batches...)
	}
	return out
}

// kinds is a log as "offset:kind" cells.
func kinds(p view.Partition) string {
	var s []string
	for _, b := range batches(p) {
		s = append(s, fmt.Sprintf("%s:%s", b.Span(), b.Kind()))
	}
	return fmt.Sprint(s)
}

func TestViewTransactionOpenThenCommitted(t *testing.T) {
	st := at(t, "transactions", 6) // produce p1 orders partition=1, in the transaction
	p := partition(t, st, "b0", "orders-1")
	bs := batches(p)
	if len(bs) != 1 || !bs[0].New || bs[0].Kind() != "open" || bs[0].ProducerID != 0 || bs[0].Seq != 0 || p.LSO != 0 || p.HW != 1 {
		t.Fatalf("orders-1 after an uncommitted transactional produce: %+v (lso %d hw %d)", bs, p.LSO, p.HW)
	}
	if len(st.Txns) != 1 || st.Txns[0].ID != "app" || st.Txns[0].State != "Ongoing" ||
		!slices.Equal(st.Txns[0].Partitions, []string{"orders-0", "orders-1"}) {
		t.Fatalf("coordinator side: %+v", st.Txns)
	}
	if len(st.Producers) != 1 || st.Producers[0].TransactionalID != "app" ||
		!slices.Equal(st.Producers[0].NextSeq, []view.Seq{{Partition: "orders-0", Next: 1}, {Partition: "orders-1", Next: 1}}) {
		t.Fatalf("client side: %+v", st.Producers)
	}
	st = at(t, "transactions", 11) // commit p1
	if got := kinds(partition(t, st, "b0", "orders-0")); got != "[0:txn 1:commit]" {
		t.Fatalf("orders-0 after the commit: %s", got)
	}
	if st.Txns[0].State != "CompleteCommit" || !st.Txns[0].Changed {
		t.Fatalf("coordinator after the commit: %+v", st.Txns[0])
	}
}

func TestViewAbortedTransaction(t *testing.T) {
	w := sim.New(1)
	for _, c := range []string{"broker", "topic t partitions=1", "producer p1 transactional.id=x", "begin p1",
		"produce p1 t partition=0 value=a count=2", "abort p1", "producer p2 acks=1", "produce p2 t partition=0 value=b"} {
		if _, err := w.Exec(c); err != nil {
			t.Fatalf("%s: %v", c, err)
		}
	}
	p := partition(t, w.View(), "b0", "t-0")
	if got := kinds(p); got != "[0:aborted 1:aborted 2:abort 3:data]" {
		t.Fatalf("log after an abort: %s", got)
	}
	b := batches(p)[2]
	if b.Control != "ABORT" || b.Glyph() == batches(p)[0].Glyph() {
		t.Fatalf("abort marker: %+v", b)
	}
}

func TestViewGroupAssignmentAndMoves(t *testing.T) {
	st := at(t, "consumer-groups", 9) // show group: still joining
	if len(st.Groups) != 1 || st.Groups[0].State != "PreparingRebalance" || len(st.Groups[0].Members) != 3 || len(st.Groups[0].Assigned) != 0 {
		t.Fatalf("group while joining: %+v", st.Groups)
	}
	st = at(t, "consumer-groups", 19) // after C2 died: generation 2
	g := st.Groups[0]
	if g.State != "Stable" || g.Generation != 2 || g.Protocol != "range" || g.Moved != 2 || len(g.Members) != 2 ||
		g.Members[0].Name != "C1" || !g.Members[0].Leader || g.Members[1].Name != "C3" {
		t.Fatalf("group after the rebalance: %+v", g)
	}
	var moved []string
	for _, o := range g.Assigned {
		if o.Moved {
			moved = append(moved, o.Partition+"<-"+o.Was+"->"+o.Member)
		}
	}
	if len(g.Assigned) != 6 || !slices.Equal(moved, []string{"orders-2<-C2->C1", "orders-3<-C2->C3"}) {
		t.Fatalf("assignment: %+v", g.Assigned)
	}
}

func TestViewLookupMarks(t *testing.T) {
	st := at(t, "segments", 8) // lookup orders-0 offset=7
	if st.Lookup == nil || st.Lookup.Target != "offset 7" || !st.Lookup.Found || st.Lookup.Segment != "00000000000000000004.log" {
		t.Fatalf("lookup: %+v", st.Lookup)
	}
	p := partition(t, st, "b0", "orders-0")
	var probed, scanned []string
	for _, s := range p.Segments {
		for _, e := range s.Index {
			if e.Probed || e.Chosen {
				probed = append(probed, fmt.Sprintf("%s %s->%s %v", s.Name, e.Key, e.Value, e.Chosen))
			}
		}
		for _, b := range s.Batches {
			if b.Scanned {
				scanned = append(scanned, fmt.Sprintf("%s found=%v", b.Span(), b.Found))
			}
		}
	}
	if !slices.Equal(probed, []string{"00000000000000000004.log 7->222 true"}) || !slices.Equal(scanned, []string{"7 found=true"}) {
		t.Fatalf("marks: probed %q, scanned %q", probed, scanned)
	}
	st = at(t, "segments", 11) // lookup orders-0 timestamp=1005000
	p = partition(t, st, "b0", "orders-0")
	scanned = nil
	for _, b := range batches(p) {
		if b.Scanned {
			scanned = append(scanned, fmt.Sprintf("%s found=%v", b.Span(), b.Found))
		}
	}
	if st.Lookup == nil || !slices.Equal(scanned, []string{"4 found=false", "5 found=false", "6 found=true"}) {
		t.Fatalf("timestamp lookup: %+v, scanned %q", st.Lookup, scanned)
	}
	if st = at(t, "segments", 12); st.Lookup != nil {
		t.Fatalf("the lookup of an earlier step is still marked: %+v", st.Lookup)
	}
}

func TestViewReplicasAndISR(t *testing.T) {
	if !sim.HasQuorum {
		t.Skip("a three-broker world needs the full build (not -tags noquorum)")
	}
	st := at(t, "replication", 20) // b1 crashed 15 s ago
	p := partition(t, st, "b0", "orders-0")
	if slices.Contains(p.ISR, 1) || len(p.Replicas) != 3 || p.Leader == 1 {
		t.Fatalf("orders-0 on b0 after b1 crashed: leader %d epoch %d replicas %v isr %v", p.Leader, p.LeaderEpoch, p.Replicas, p.ISR)
	}
}

// TestViewReassignment: mid-move, every replica's view names the adding
// and removing replicas; once cancelled, none.
func TestViewReassignment(t *testing.T) {
	if !sim.HasQuorum {
		t.Skip("a five-broker world needs the full build (not -tags noquorum)")
	}
	p := partition(t, at(t, "reassignment", 20), "b4", "orders-0") // a move onto b1, down
	if !slices.Equal(p.Adding, []int32{1}) || !slices.Equal(p.Removing, []int32{3}) {
		t.Fatalf("orders-0 on b4 mid-move: adding %v removing %v, want [1] and [3]", p.Adding, p.Removing)
	}
	if p = partition(t, at(t, "reassignment", 21), "b4", "orders-0"); len(p.Adding)+len(p.Removing) > 0 {
		t.Fatalf("orders-0 on b4 after the cancel: adding %v removing %v", p.Adding, p.Removing)
	}
}

// TestViewOnlyReplicas: in a cluster a broker shows the partitions it
// replicates, not the empty slots of those placed elsewhere (which the
// diagram used to draw as followers out of the ISR).
func TestViewOnlyReplicas(t *testing.T) {
	if !sim.HasQuorum {
		t.Skip("a four-broker world needs the full build (not -tags noquorum)")
	}
	st := at(t, "controlled-shutdown-and-racks", 2) // orders-0 on b2 b0, orders-3 on b0 b3
	for _, b := range st.Brokers {
		if b.Name != "b0" {
			continue
		}
		var names []string
		for _, p := range b.Partitions {
			names = append(names, p.Name)
		}
		if !slices.Equal(names, []string{"orders-0", "orders-3"}) {
			t.Fatalf("b0 shows %v, want the two partitions it replicates, orders-0 and orders-3", names)
		}
	}
}

func TestViewCapsLongLogs(t *testing.T) {
	w := sim.New(1)
	for _, c := range []string{"broker", "topic t partitions=1", "producer p1 acks=1", "produce p1 t partition=0 value=v count=40"} {
		if _, err := w.Exec(c); err != nil {
			t.Fatalf("%s: %v", c, err)
		}
	}
	p := partition(t, w.View(), "b0", "t-0")
	bs := batches(p)
	if p.Earlier+len(bs) != 40 || len(bs) != view.MaxBatches || bs[len(bs)-1].Base != 39 {
		t.Fatalf("a 40-batch log: %d drawn, %d earlier, last %+v", len(bs), p.Earlier, bs[len(bs)-1])
	}
}

// TestViewTail: the tail (what the native broker draws) holds the same
// newest batches as the full read, older ones uncounted (-1); a log no
// longer than the tail reads whole, nothing earlier.
func TestViewTail(t *testing.T) {
	w := sim.New(1)
	for _, c := range []string{"broker", "topic t partitions=2", "producer p1 acks=1",
		"produce p1 t partition=0 value=v count=40", "produce p1 t partition=1 value=v count=3"} {
		if _, err := w.Exec(c); err != nil {
			t.Fatalf("%s: %v", c, err)
		}
	}
	b := w.Nodes()[0].Broker
	full, tail := view.Partitions(b), view.Tail(b)
	if len(full) != 2 || len(tail) != 2 {
		t.Fatalf("%d and %d partitions", len(full), len(tail))
	}
	if kinds(tail[0]) != kinds(full[0]) || tail[0].Earlier != -1 || full[0].Earlier != 40-view.MaxBatches {
		t.Errorf("t-0's tail %s (earlier %d), full %s (earlier %d)", kinds(tail[0]), tail[0].Earlier, kinds(full[0]), full[0].Earlier)
	}
	if kinds(tail[1]) != kinds(full[1]) || len(batches(tail[1])) != 3 || tail[1].Earlier != 0 {
		t.Errorf("t-1's tail %s (earlier %d), full %s", kinds(tail[1]), tail[1].Earlier, kinds(full[1]))
	}
}
