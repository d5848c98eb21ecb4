package console

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/broker"
	"github.com/gregor-kafka/gregor/core/view"
	"github.com/gregor-kafka/gregor/ui"
)

// fetchVersion is the newest Fetch that names topics (v13 names them by
// id, KIP-516).
const fetchVersion = 12

// partition is GET /console/topics/{topic}/{partition}: the replica's
// log as the lessons draw it (view.TailOf), the transactions on it, and
// with ?from= a page of its records.
func (c *Console) partition(w http.ResponseWriter, r *http.Request) {
	p := c.partitionPage(r)
	topic := p.Topic
	index, err := parseIndex(r.PathValue("partition"))
	if err != nil {
		p.Problem = ui.Trf(p.Lang, "%q is not a partition number.", r.PathValue("partition"))
		render(w, r, http.StatusBadRequest, p.ConsoleFrame, ui.ConsolePartitionPage(p))
		return
	}
	p.Index = index
	if err := c.snapshotPartition(&p); err != nil {
		p.Problem = ui.Trf(p.Lang, "There is no partition %d of topic %q.", index, topic)
		if isRefusal(err) {
			p.Problem = ui.Trf(p.Lang, "Refused: %s may not describe topic %q (%v).", c.principal(), topic, err)
		}
		render(w, r, status(err), p.ConsoleFrame, ui.ConsolePartitionPage(p))
		return
	}
	if off := r.URL.Query().Get("produced"); off != "" {
		p.Notice = ui.Trf(p.Lang, "Produced a record at offset %s.", off)
	}
	code := http.StatusOK
	if err := c.browse(r, &p); err != nil {
		code = status(err)
		if p.Browse.Refused == "" {
			p.Problem = err.Error()
		}
	}
	render(w, r, code, p.ConsoleFrame, ui.ConsolePartitionPage(p))
}

// partitionPage is the page of the partition r names, before anything
// is read.
func (c *Console) partitionPage(r *http.Request) ui.ConsolePartition {
	topic := r.PathValue("topic")
	return ui.ConsolePartition{ConsoleFrame: c.frame(r, ui.Trf(lang(r), "Partition %s-%s", topic, r.PathValue("partition"))), Topic: topic, Leader: -1,
		Browse: ui.RecordPage{N: ui.PageSizes[1], Format: "text"}}
}

// parseIndex reads a partition number.
func parseIndex(s string) (int32, error) {
	n, err := strconv.ParseInt(s, 10, 32)
	if err != nil || n < 0 {
		return 0, badInput(s)
	}
	return int32(n), nil
}

// snapshotPartition reads the partition's leader, this broker's replica
// of it at its tail, and the transactions on it that this broker
// coordinates and the console's principal may describe. It reads nothing
// when the principal may not describe the topic
// (TOPIC_AUTHORIZATION_FAILED, whether or not it exists, as Metadata
// answers), and UNKNOWN_TOPIC_OR_PARTITION when the broker knows no such
// partition.
func (c *Console) snapshotPartition(p *ui.ConsolePartition) error {
	var err error
	name := fmt.Sprintf("%s-%d", p.Topic, p.Index)
	c.Engine.Snapshot(func(b *broker.Broker) {
		if !c.may(b, kmsg.ACLResourceTypeTopic, p.Topic) {
			err = kerr.TopicAuthorizationFailed
			return
		}
		var known bool
		if p.Leader, known = view.LeaderOf(b, p.Topic, p.Index); !known {
			err = kerr.UnknownTopicOrPartition
			return
		}
		node := nodeName(b.NodeID())
		var pv view.Partition
		if pv, p.Found = view.TailOf(b, p.Topic, p.Index); p.Found {
			p.World = view.World{Brokers: []view.Broker{{ID: b.NodeID(), Name: node, Up: true, Partitions: []view.Partition{pv}}}}
			for _, r := range pv.Replicas { // named as this one is, in the replica list
				if r != b.NodeID() {
					p.World.Brokers = append(p.World.Brokers, view.Broker{ID: r, Name: nodeName(r)})
				}
			}
		}
		txns, _ := view.TxnsAfter(b, node, "", GroupsPerPage, c.describable(b, kmsg.ACLResourceTypeTransactionalId))
		for _, t := range txns {
			if slices.Contains(t.Partitions, name) {
				p.Txns = append(p.Txns, t)
			}
		}
	})
	return err
}

// browse reads the page of records the query asks for: ?from= an offset
// (by=offset) or a time (by=time), ?n= one of ui.PageSizes, ?format=,
// ?isolation= read_uncommitted (the default) or read_committed.
func (c *Console) browse(r *http.Request, p *ui.ConsolePartition) error {
	q := r.URL.Query()
	br := &p.Browse
	br.From, br.ByTime = q.Get("from"), q.Get("by") == "time"
	if f := q.Get("format"); slices.Contains(ui.RecordFormats, f) {
		br.Format = f
	}
	br.Committed = q.Get("isolation") == ui.ReadCommitted
	if s := q.Get("n"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || !slices.Contains(ui.PageSizes, n) {
			return badInput(ui.Trf(p.Lang, "A page holds %v records, not %q.", ui.PageSizes, s))
		}
		br.N = n
	}
	if !q.Has("from") {
		return nil
	}
	br.Read = true
	start, err := c.startOffset(r.Context(), p)
	if err == nil {
		br.Start = start
		err = c.read(r.Context(), p.Topic, p.Index, br)
	}
	switch {
	case isRefusal(err):
		br.Refused = ui.Trf(p.Lang, "Refused: %s may not read topic %q (%v).", c.principal(), p.Topic, err)
		return err
	case errors.Is(err, kerr.NotLeaderForPartition):
		return misdirected(ui.Trf(p.Lang, "Broker %d leads this partition: read its records there (%v).", p.Leader, err))
	case err != nil && status(err) != http.StatusBadRequest:
		return said{ui.Trf(p.Lang, "The records could not be read: %v", err), err}
	}
	return err
}

// startOffset is where the page starts: the offset typed, or the first
// offset at or after the time typed (ListOffsets), or the log end when
// none is that late.
func (c *Console) startOffset(ctx context.Context, p *ui.ConsolePartition) (int64, error) {
	from := strings.TrimSpace(p.Browse.From)
	if !p.Browse.ByTime {
		if from == "" {
			return 0, nil
		}
		off, err := strconv.ParseInt(from, 10, 64)
		if err != nil || off < 0 {
			return 0, badInput(ui.Trf(p.Lang, "%q is not an offset: give a whole number from 0.", from))
		}
		return off, nil
	}
	ts, err := parseTime(from)
	if err != nil {
		return 0, badInput(ui.Trf(p.Lang, "%q is not a time: give 2026-01-02T15:04:05Z, 2026-01-02 15:04:05 (UTC) or milliseconds since 1970.", from))
	}
	req := kmsg.NewPtrListOffsetsRequest()
	req.ReplicaID = -1
	rt := kmsg.NewListOffsetsRequestTopic()
	rt.Topic = p.Topic
	rp := kmsg.NewListOffsetsRequestTopicPartition()
	rp.Partition, rp.Timestamp, rp.CurrentLeaderEpoch = p.Index, ts, -1
	rt.Partitions = []kmsg.ListOffsetsRequestTopicPartition{rp}
	req.Topics = []kmsg.ListOffsetsRequestTopic{rt}
	resp, err := ask[*kmsg.ListOffsetsResponse](ctx, c, req)
	if err != nil {
		return 0, err
	}
	for _, t := range resp.Topics {
		for _, lp := range t.Partitions {
			return lp.Offset, kafkaError(lp.ErrorCode, nil)
		}
	}
	return 0, errors.New("ListOffsets answered no partition")
}

// parseTime reads a time as RFC 3339, as "2006-01-02 15:04:05" in UTC,
// or as milliseconds since 1970.
func parseTime(s string) (int64, error) {
	if ms, err := strconv.ParseInt(s, 10, 64); err == nil && ms >= 0 {
		return ms, nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05", "2006-01-02T15:04:05", "2006-01-02 15:04", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UnixMilli(), nil
		}
	}
	return 0, errors.New("not a time")
}

// read fetches at most br.N records from br.Start on, at most
// MaxFetchBytes, as a consumer at br's isolation level would see them:
// at read_uncommitted open and aborted transactions' records too (each
// marked transactional); at read_committed only up to the last stable
// offset (the broker stops there), and without the aborted
// transactions' records (the answer lists them, view.RecordsOf leaves
// them out).
func (c *Console) read(ctx context.Context, topic string, index int32, br *ui.RecordPage) error {
	req := kmsg.NewPtrFetchRequest()
	req.Version = fetchVersion
	req.ReplicaID, req.MaxWaitMillis, req.MinBytes, req.MaxBytes, req.SessionEpoch = -1, 0, 0, MaxFetchBytes, -1
	if br.Committed {
		req.IsolationLevel = 1
	}
	ft := kmsg.NewFetchRequestTopic()
	ft.Topic = topic
	fp := kmsg.NewFetchRequestTopicPartition()
	fp.Partition, fp.FetchOffset, fp.CurrentLeaderEpoch, fp.LogStartOffset, fp.PartitionMaxBytes = index, br.Start, -1, -1, MaxFetchBytes
	ft.Partitions = []kmsg.FetchRequestTopicPartition{fp}
	req.Topics = []kmsg.FetchRequestTopic{ft}
	br.Next = br.Start
	resp, err := ask[*kmsg.FetchResponse](ctx, c, req)
	if err != nil {
		return err
	}
	if err := kafkaError(resp.ErrorCode, nil); err != nil {
		return err
	}
	for _, t := range resp.Topics {
		for _, rp := range t.Partitions {
			if err := kafkaError(rp.ErrorCode, nil); err != nil {
				if errors.Is(err, kerr.OffsetOutOfRange) {
					return fmt.Errorf("%w: offset %d is outside the log (log start %d, high watermark %d)", err, br.Start, rp.LogStartOffset, rp.HighWatermark)
				}
				return err
			}
			br.StableEnd = rp.LastStableOffset
			br.Records, br.Next, err = view.RecordsOf(rp.RecordBatches, rp.AbortedTransactions, br.Start, br.N)
			return err
		}
	}
	return errors.New("Fetch answered no partition")
}
