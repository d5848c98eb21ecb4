package sim

import (
	"fmt"
	"sort"
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/record"
)

// consumer is a teaching consumer without a group: it fetches one
// partition at a time from a position it keeps itself. Under
// read_committed it drops the records of aborted transactions, using the
// aborted list the broker sends and the abort markers it reads, as Kafka's
// consumers do (KIP-98). With a rack (client.rack) it sends it in its
// fetches and reads a partition from the replica its leader prefers for
// it (PreferredReadReplica, KIP-392) until that replica answers an error.
type consumer struct {
	conn
	broker       string
	readCommited bool
	rack         string
	positions    map[string]int64
	leaders      map[string]string // partition leaders (clusters)
	preferred    map[string]string // read replicas the leaders named (KIP-392)
	queued       []queuedFetch     // fetches waiting for a leader
}

type queuedFetch struct {
	topic     string
	partition int32
	maxWaitMs int32
}

func newConsumer(w *World, name, to string, readCommitted bool, rack string) *consumer {
	c := &consumer{broker: to, readCommited: readCommitted, rack: rack, positions: map[string]int64{}, leaders: map[string]string{}, preferred: map[string]string{}}
	c.init(w, name)
	return c
}

func (c *consumer) fetch(w *World, topic string, partition int32, offset int64, maxWaitMs int32) {
	tp := fmt.Sprintf("%s-%d", topic, partition)
	if offset >= 0 {
		c.positions[tp] = offset
	}
	to := c.broker
	if w.cl != nil {
		// Kafka reads only at the leader: find it first.
		if to = c.leaders[tp]; to == "" {
			c.queued = append(c.queued, queuedFetch{topic, partition, maxWaitMs})
			req := kmsg.NewPtrMetadataRequest()
			req.SetVersion(7)
			t := topic
			req.Topics = []kmsg.MetadataRequestTopic{{Topic: &t}}
			c.send(w, w.bootstrap(c.broker), req, nil)
			return
		}
		if r := c.preferred[tp]; r != "" {
			to = r
		}
	}
	req := kmsg.NewPtrFetchRequest()
	req.SetVersion(11)
	req.MaxWaitMillis, req.MinBytes, req.MaxBytes, req.Rack = maxWaitMs, 1, 1<<20, c.rack
	if c.readCommited {
		req.IsolationLevel = 1
	}
	rt := kmsg.NewFetchRequestTopic()
	rt.Topic = topic
	rp := kmsg.NewFetchRequestTopicPartition()
	rp.Partition, rp.FetchOffset, rp.PartitionMaxBytes = partition, c.positions[tp], 1<<20
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	c.send(w, to, req, nil)
}

func (c *consumer) receive(w *World, m *Message) {
	if c.take(m) == nil {
		return
	}
	if md, ok := m.Resp.(*kmsg.MetadataResponse); ok {
		for _, t := range md.Topics {
			for _, p := range t.Partitions {
				if t.Topic != nil && p.Leader >= 0 {
					c.leaders[fmt.Sprintf("%s-%d", *t.Topic, p.Partition)] = fmt.Sprintf("b%d", p.Leader)
				}
			}
		}
		q := c.queued
		c.queued = nil
		for _, f := range q {
			if c.leaders[fmt.Sprintf("%s-%d", f.topic, f.partition)] == "" {
				w.notef(c.name, "note", "%s-%d has no leader", f.topic, f.partition)
				continue
			}
			c.fetch(w, f.topic, f.partition, -1, f.maxWaitMs)
		}
		return
	}
	resp, ok := m.Resp.(*kmsg.FetchResponse)
	if !ok {
		return
	}
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			tp := fmt.Sprintf("%s-%d", t.Topic, p.Partition)
			if p.ErrorCode != 0 {
				delete(c.leaders, tp) // NOT_LEADER_OR_FOLLOWER and the like: ask again next time
				delete(c.preferred, tp)
			}
			if p.PreferredReadReplica >= 0 && p.ErrorCode == 0 {
				c.preferred[tp] = fmt.Sprintf("b%d", p.PreferredReadReplica)
				w.notef(c.name, "note", "%s: read from %s, the replica in rack %s", tp, c.preferred[tp], c.rack)
				c.fetch(w, t.Topic, p.Partition, -1, 0)
				continue
			}
			got, next := c.records(p, c.positions[tp])
			if next > c.positions[tp] {
				c.positions[tp] = next
			}
			if len(got) == 0 {
				w.notef(c.name, "note", "%s: no records (position %d)", tp, c.positions[tp])
				continue
			}
			w.notef(c.name, "note", "%s: %s (position %d)", tp, strings.Join(got, " "), c.positions[tp])
		}
	}
}

// corruptBatch starts what a consumer prints for a batch that fails its
// CRC check.
const corruptBatch = "<corrupt batch at"

// records lists "offset:value" for the visible records at or after from,
// and the position after the last batch read.
func (c *consumer) records(p kmsg.FetchResponseTopicPartition, from int64) ([]string, int64) {
	// Kafka's Fetcher: the aborted transactions, by first offset, join
	// the set of aborted producers as the batches reach their first
	// offset; a producer's control batch takes it out again. One producer
	// may have several aborted transactions in one answer.
	pending := append([]kmsg.FetchResponseTopicPartitionAbortedTransaction(nil), p.AbortedTransactions...)
	sort.Slice(pending, func(i, j int) bool { return pending[i].FirstOffset < pending[j].FirstOffset })
	aborted := map[int64]bool{}
	var out []string
	next := from
	it := record.NewIter(p.RecordBatches)
	for b, ok := it.Next(); ok; b, ok = it.Next() {
		next = b.LastOffset() + 1
		for len(pending) > 0 && pending[0].FirstOffset <= b.LastOffset() {
			aborted[pending[0].ProducerID] = true
			pending = pending[1:]
		}
		if b.IsControl() {
			delete(aborted, b.ProducerID())
			continue
		}
		if c.readCommited && b.IsTransactional() && aborted[b.ProducerID()] {
			continue
		}
		if err := record.ValidateStored(b); err != nil {
			// Consumers check every batch's CRC (check.crcs): a byte
			// flipped on the broker's disk stops here.
			out = append(out, fmt.Sprintf("%s %d: %v>", corruptBatch, b.BaseOffset(), err))
			continue
		}
		recs, err := b.Records()
		if err != nil {
			out = append(out, fmt.Sprintf("<undecodable batch at %d: %v>", b.BaseOffset(), err))
			continue
		}
		for _, r := range recs {
			if off := b.BaseOffset() + int64(r.OffsetDelta); off >= from {
				out = append(out, fmt.Sprintf("%d:%s", off, r.Value))
			}
		}
	}
	return out, next
}

func (c *consumer) tick(w *World) { c.expire(w) }

// admin sends the administrative requests a lesson needs.
type admin struct {
	conn
}

func (a *admin) receive(w *World, m *Message) { a.take(m) }
func (a *admin) tick(w *World)                { a.expire(w) }
