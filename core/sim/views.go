package sim

import (
	"fmt"
	"path"
	"strings"

	"github.com/gregor-kafka/gregor/core/broker"
	"github.com/gregor-kafka/gregor/core/log"
	"github.com/gregor-kafka/gregor/core/record"
)

func init() {
	commands["show"] = cmdShow
	commands["lookup"] = cmdLookup
}

// partitionOf finds a partition on a broker (the first, unless broker=).
func (w *World) partitionOf(c command, tpArg string) (*Node, *broker.Partition, error) {
	name, err := w.firstBroker(c)
	if err != nil {
		return nil, nil, err
	}
	n, _ := w.node(name)
	p, err := partitionOn(c, n, tpArg)
	return n, p, err
}

// partitionOn finds a partition on broker n, which must be up.
func partitionOn(c command, n *Node, tpArg string) (*broker.Partition, error) {
	topic, idx, err := splitTP(tpArg)
	if err != nil {
		return nil, err
	}
	if !n.Up {
		return nil, fmt.Errorf("%s: %s is down", c.name, n.Name)
	}
	t := n.Broker.Topic(topic)
	if t == nil || int(idx) >= len(t.Partitions) {
		return nil, fmt.Errorf("%s: %s has no partition %s", c.name, n.Name, tpArg)
	}
	return t.Partitions[idx], nil
}

// cmdShow: show log TOPIC-P | show files [BROKER] | show replicas TOPIC-P |
// show metadata [from=INDEX] | show quorum | show controller, and the
// views of txnviews.go and group_views.go
func cmdShow(w *World, c command) error {
	what, err := c.arg(0, "what to show (log, files)")
	if err != nil {
		return err
	}
	switch what {
	case "controller":
		return w.showController()
	case "replicas":
		tp, err := c.arg(1, "topic-partition")
		if err != nil {
			return err
		}
		topic, idx, err := splitTP(tp)
		if err != nil {
			return err
		}
		return w.showReplicas(topic, idx)
	case "metadata":
		return w.showMetadata(c) // metadata_view.go
	case "quorum":
		return w.showQuorum()
	case "log":
		tp, err := c.arg(1, "topic-partition")
		if err != nil {
			return err
		}
		n, p, err := w.partitionOf(c, tp)
		if err != nil {
			return err
		}
		l := p.Log()
		w.notef(n.Name, "view", "%s log start %d, leo %d, hw %d, lso %d", p, l.StartOffset(), l.EndOffset(), p.HighWatermark, p.LastStableOffset())
		segs := l.Segments()
		for i, s := range segs {
			active := ""
			if i == len(segs)-1 {
				active = " (active)"
			}
			span := "empty"
			if s.NextOffset > s.BaseOffset {
				span = fmt.Sprintf("offsets %d..%d", s.BaseOffset, s.NextOffset-1)
			}
			w.notef(n.Name, "view", "  %s %s, %d bytes%s", s.Name, span, s.Size, active)
			w.notef(n.Name, "view", "    .index     %s", indexLine(s.IndexEntries))
			w.notef(n.Name, "view", "    .timeindex %s", timeIndexLine(s.TimeIndexEntries))
		}
	case "files":
		name, err := w.firstBroker(command{name: "show", kv: map[string]string{}})
		if len(c.args) > 1 {
			name, err = c.args[1], nil
		}
		if err != nil {
			return err
		}
		n, err := w.node(name)
		if err != nil {
			return err
		}
		for _, f := range n.Store.Names() {
			if strings.HasSuffix(f, ".json") {
				continue
			}
			w.notef(n.Name, "view", "%-48s %6d bytes", f, n.Store.Size(f))
		}
	case "share":
		return w.showShare(c) // share.go
	default:
		if ok, err := w.showTxn(c, what); ok { // txnviews.go
			return err
		}
		if ok, err := w.showGroup(c, what); ok { // group_views.go
			return err
		}
		return fmt.Errorf("show: unknown view %q (log, files, replicas, metadata, quorum, records, producers, txn, txn-log, group, offsets-log, share)", what)
	}
	return nil
}

func indexLine(es []log.IndexEntry) string {
	if len(es) == 0 {
		return "(no entries)"
	}
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = fmt.Sprintf("%d->%d", e.Offset, e.Position)
	}
	return "offset->position " + strings.Join(parts, " ")
}

func timeIndexLine(es []log.TimeIndexEntry) string {
	if len(es) == 0 {
		return "(no entries)"
	}
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = fmt.Sprintf("%d->%d", e.Timestamp, e.Offset)
	}
	return "timestamp->offset " + strings.Join(parts, " ")
}

// cmdLookup: lookup TOPIC-P offset=N | timestamp=T shows how Kafka finds
// a record: binary search over segment base offsets, then over the sparse
// index, then a short scan of batch headers in the .log (seed 004).
func cmdLookup(w *World, c command) error {
	tp, err := c.arg(0, "topic-partition")
	if err != nil {
		return err
	}
	n, p, err := w.partitionOf(c, tp)
	if err != nil {
		return err
	}
	segs := p.Log().Segments()
	if ts, ok := c.kv["timestamp"]; ok {
		target, err := c.int("timestamp", 0)
		if err != nil {
			return fmt.Errorf("lookup: timestamp=%q is not a number", ts)
		}
		return w.lookupTimestamp(n, p, segs, target)
	}
	target, err := c.int("offset", -1)
	if err != nil || target < 0 {
		return fmt.Errorf("lookup: give offset=N or timestamp=T")
	}
	if target < p.Log().StartOffset() || target >= p.Log().EndOffset() {
		w.notef(n.Name, "view", "offset %d is outside the log [%d, %d): OFFSET_OUT_OF_RANGE", target, p.Log().StartOffset(), p.Log().EndOffset())
		return nil
	}
	w.lookupOffset(n, p, segs, target)
	return nil
}

func (w *World) lookupOffset(n *Node, p *broker.Partition, segs []log.SegmentInfo, target int64) {
	i := len(segs) - 1
	var bases []string
	for j, s := range segs {
		bases = append(bases, fmt.Sprint(s.BaseOffset))
		if s.BaseOffset <= target {
			i = j
		}
	}
	s := segs[i]
	w.notef(n.Name, "view", "segments by base offset [%s]: offset %d is in %s", strings.Join(bases, " "), target, s.Name)
	entry, steps := s.LookupOffset(target)
	rec := w.startLookup(n, p, s, fmt.Sprintf("offset %d", target)) // view_lookup.go
	rec.probedIndex(steps, entry)
	var probed []string
	for _, e := range steps {
		probed = append(probed, fmt.Sprintf("%d->%d", e.Offset, e.Position))
	}
	if len(steps) == 0 {
		probed = []string{"(index empty)"}
	}
	w.notef(n.Name, "view", ".index binary search probed %s: start at position %d", strings.Join(probed, " "), entry.Position)
	w.scan(n, p, s, entry.Position, func(b record.Batch) bool { return b.LastOffset() >= target },
		fmt.Sprintf("offset %d", target), rec)
}

func (w *World) lookupTimestamp(n *Node, p *broker.Partition, segs []log.SegmentInfo, target int64) error {
	i := -1
	for j, s := range segs {
		if s.LargestTimestamp >= target {
			i = j
			break
		}
	}
	if i < 0 {
		w.notef(n.Name, "view", "no segment has a timestamp >= %d: ListOffsets answers -1", target)
		return nil
	}
	s := segs[i]
	w.notef(n.Name, "view", "first segment whose largest timestamp >= %d: %s", target, s.Name)
	te, steps := s.LookupTimestamp(target)
	rec := w.startLookup(n, p, s, fmt.Sprintf("timestamp >= %d", target)) // view_lookup.go
	rec.probedTimeIndex(steps, te)
	var probed []string
	for _, e := range steps {
		probed = append(probed, fmt.Sprintf("%d->%d", e.Timestamp, e.Offset))
	}
	if len(steps) == 0 {
		probed = []string{"(index empty)"}
	}
	w.notef(n.Name, "view", ".timeindex binary search probed %s: start from offset %d", strings.Join(probed, " "), te.Offset)
	entry, _ := s.LookupOffset(te.Offset)
	rec.probedIndex(nil, entry)
	w.notef(n.Name, "view", ".index: offset %d -> position %d", te.Offset, entry.Position)
	w.scan(n, p, s, entry.Position, func(b record.Batch) bool { return b.MaxTimestamp() >= target },
		fmt.Sprintf("timestamp >= %d", target), rec)
	return nil
}

// scan walks batch headers in a segment's .log from pos until done says
// stop, printing each step, and records the headers it read in rec.
func (w *World) scan(n *Node, p *broker.Partition, s log.SegmentInfo, pos int64, done func(record.Batch) bool, what string, rec *lookupRecord) {
	f, err := n.Store.Open(path.Join(p.Log().Dir(), s.Name))
	if err != nil {
		w.notef(n.Name, "error", "open %s: %v", s.Name, err)
		return
	}
	defer f.Close()
	hdr := make([]byte, record.HeaderSize)
	var steps []string
	for pos < s.Size {
		if _, err := f.ReadAt(hdr, pos); err != nil {
			break
		}
		b := record.Batch(hdr)
		steps = append(steps, fmt.Sprintf("%d..%d@%d", b.BaseOffset(), b.LastOffset(), pos))
		rec.scanned[b.BaseOffset()] = true
		if done(b) {
			rec.found = b.BaseOffset()
			w.notef(n.Name, "view", "scan .log batch headers %s: %s is in the batch at position %d", strings.Join(steps, " "), what, pos)
			return
		}
		pos += int64(b.Size())
	}
	w.notef(n.Name, "view", "scan .log batch headers %s: not in this segment", strings.Join(steps, " "))
}
