package ui

import (
	"context"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/gregor-kafka/gregor/core/view"
)

// ShownPartitions drops the internal topics' partitions that never held
// a record: __consumer_offsets and __transaction_state have 50 each by
// default, and only the few that hold a group or a transactional id
// matter. hidden counts the dropped ones per topic, in topic order.
func ShownPartitions(ps []view.Partition) (shown []view.Partition, hidden []Hidden) {
	counts := map[string]int{}
	var order []string
	for _, p := range ps {
		if p.Internal && p.LEO == 0 {
			t := topicOf(p.Name)
			if counts[t] == 0 {
				order = append(order, t)
			}
			counts[t]++
			continue
		}
		shown = append(shown, p)
	}
	for _, t := range order {
		hidden = append(hidden, Hidden{t, counts[t]})
	}
	return shown, hidden
}

// Hidden is how many of an internal topic's partitions are not drawn.
type Hidden struct {
	Topic string
	Count int
}

func topicOf(partition string) string {
	if i := strings.LastIndexByte(partition, '-'); i > 0 {
		return partition[:i]
	}
	return partition
}

// role is what this broker's replica is: "leader" or "follower".
func role(b view.Broker, p view.Partition) string {
	if p.Leader == b.ID {
		return "leader"
	}
	return "follower"
}

// inISR reports whether broker id's replica is in the ISR.
func inISR(p view.Partition, id int32) bool { return slices.Contains(p.ISR, id) }

// replicaNote is what the replica list says of replica r besides its
// name: out of the ISR, and adding or removing in a reassignment
// (KIP-455); "" for an in-sync replica that stays.
func replicaNote(ctx context.Context, p view.Partition, r int32) string {
	var notes []string
	if !inISR(p, r) {
		notes = append(notes, T(ctx, "out of ISR"))
	}
	switch {
	case slices.Contains(p.Adding, r):
		notes = append(notes, T(ctx, "adding"))
	case slices.Contains(p.Removing, r):
		notes = append(notes, T(ctx, "removing"))
	}
	return strings.Join(notes, ", ")
}

// downNote is what the state panel says of a broker that is down: a
// controlled shutdown handed its leaderships over first, a crash did not.
func downNote(b view.Broker) string {
	if b.Stopped {
		return N("Stopped by a controlled shutdown; restart it to bring it back.")
	}
	return N("Crashed. Its storage keeps only what was synced; restart it to recover.")
}

// markers lists the offset markers that point into the batch b: log
// start, the LSO and the high watermark (KIP-98, KIP-101). A marker
// equal to the log end points at the next offset, drawn after the last
// cell (endMarkers).
func markers(p view.Partition, b view.Batch) []string {
	var out []string
	for _, m := range offsetMarkers(p) {
		if m.at >= b.Base && m.at <= b.Last && m.at < p.LEO {
			out = append(out, m.name)
		}
	}
	return out
}

// endMarkers are the markers at the log end: LEO, and whichever others
// have caught up with it.
func endMarkers(p view.Partition) []string {
	out := []string{"LEO"}
	for _, m := range offsetMarkers(p) {
		if m.at >= p.LEO {
			out = append(out, m.name)
		}
	}
	return out
}

type offsetMarker struct {
	name string
	at   int64
}

func offsetMarkers(p view.Partition) []offsetMarker {
	return []offsetMarker{{"start", p.Start}, {"LSO", p.LSO}, {"HW", p.HW}}
}

// cellClass is a cell's classes: its kind, and where it stands against
// the high watermark and the LSO.
func cellClass(p view.Partition, b view.Batch) []string {
	c := []string{"cell", "k-" + b.Kind()}
	if b.Base >= p.HW {
		c = append(c, "above-hw")
	}
	if b.New {
		c = append(c, "new")
	}
	if b.Scanned {
		c = append(c, "scanned")
	}
	if b.Found {
		c = append(c, "found")
	}
	return c
}

// producerLabel is a cell's second line: who wrote it.
func producerLabel(b view.Batch) string {
	switch {
	case b.ProducerID < 0:
		return ""
	case b.Seq >= 0:
		return fmt.Sprintf("p%d e%d s%d", b.ProducerID, b.Epoch, b.Seq)
	}
	return fmt.Sprintf("p%d e%d", b.ProducerID, b.Epoch)
}

// brokerName is the name of broker id in the snapshot.
func brokerName(st view.World, id int32) string {
	for _, b := range st.Brokers {
		if b.ID == id {
			return b.Name
		}
	}
	return fmt.Sprint(id)
}

// colorClass is a member's colour, one of six.
func colorClass(i int) string { return fmt.Sprintf("c%d", i%6) }

// initial is a member's short label in a swatch.
func initial(name string) string {
	if name == "" {
		return "?"
	}
	r := []rune(name)
	if len(r) > 3 {
		r = r[:3]
	}
	return string(r)
}

// lookupIn is the step's lookup if it searched partition p of broker b.
func lookupIn(st view.World, b view.Broker, p view.Partition) *view.Lookup {
	if lk := st.Lookup; lk != nil && lk.Broker == b.Name && lk.Partition == p.Name {
		return lk
	}
	return nil
}

// hasIdempotent reports a producer with a producer id to show.
func hasIdempotent(ps []view.ClientProducer) bool {
	for _, p := range ps {
		if p.Idempotent {
			return true
		}
	}
	return false
}

// ShownFiles drops the files of internal topics' partitions whose logs
// hold nothing, as ShownPartitions drops the partitions, and counts them.
func ShownFiles(fs []view.File) (shown []view.File, hidden int) {
	full := map[string]bool{}
	for _, f := range fs {
		if path.Ext(f.Name) == ".log" && f.Size > 0 {
			full[path.Dir(f.Name)] = true
		}
	}
	for _, f := range fs {
		if dir := path.Dir(f.Name); internalDir(dir) && !full[dir] {
			hidden++
			continue
		}
		shown = append(shown, f)
	}
	return shown, hidden
}

// internalDir reports the directory of an internal topic's partition
// (TOPIC-N).
func internalDir(dir string) bool {
	i := strings.LastIndexByte(dir, '-')
	return i > 0 && view.InternalTopic(dir[:i])
}

// anyChanged reports a file the step created or resized.
func anyChanged(fs []view.File) bool {
	for _, f := range fs {
		if f.Changed {
			return true
		}
	}
	return false
}
