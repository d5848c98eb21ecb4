package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// produced is produce's summary.
type produced struct {
	Topic      string          `json:"topic"`
	Records    int             `json:"records"`
	Failed     int             `json:"failed"`
	Partitions map[int32]int64 `json:"last_offsets"` // partition: the last offset written
}

func topicProduce(e *env) error {
	format := e.fs.String("f", "%v\n", "how stdin is read into records, franz-go's record reader layout (%k key, %v value, %h{...} headers; default: one value per line)")
	key := e.fs.String("k", "", "the key of every record (overrides %k)")
	var headers repeated
	e.fs.Var(&headers, "H", "a header key=value on every record, repeatable")
	partition := e.fs.Int("p", -1, "write every record to this partition (default: by key, as the Java client)")
	acks := e.fs.Int("acks", -1, "-1 (all in-sync replicas), 1 (the leader) or 0 (none)")
	txnID := e.fs.String("txn-id", "", "produce in one transaction with this transactional.id, committed at the end of input")
	e.withFormat()
	if err := e.parse(1, 1, "TOPIC"); err != nil {
		return err
	}
	hs, err := keyValues("-H", headers)
	if err != nil {
		return err
	}
	reader, err := kgo.NewRecordReader(e.stdin, *format)
	if err != nil {
		return usagef("-f %q: %v", *format, err)
	}
	opts := []kgo.Opt{kgo.DefaultProduceTopic(e.args[0]), kgo.ProducerLinger(5 * time.Millisecond), kgo.RecordDeliveryTimeout(e.timeout)}
	switch *acks {
	case -1:
		opts = append(opts, kgo.RequiredAcks(kgo.AllISRAcks()))
	case 1:
		opts = append(opts, kgo.RequiredAcks(kgo.LeaderAck()), kgo.DisableIdempotentWrite())
	case 0:
		opts = append(opts, kgo.RequiredAcks(kgo.NoAck()), kgo.DisableIdempotentWrite())
	default:
		return usagef("--acks %d: want -1, 1 or 0", *acks)
	}
	if *partition >= 0 {
		opts = append(opts, kgo.RecordPartitioner(kgo.ManualPartitioner()))
	}
	if *txnID != "" {
		if *acks != -1 {
			return usagef("--txn-id needs --acks -1")
		}
		opts = append(opts, kgo.TransactionalID(*txnID))
	}
	if _, _, err := e.client(opts...); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if *txnID != "" {
		if err := e.cl.BeginTransaction(); err != nil {
			return err
		}
	}
	t := &tally{sum: produced{Topic: e.args[0], Partitions: map[int32]int64{}}, said: map[string]bool{}}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go t.watch(ctx, cancel, e.timeout)
	progress := e.progress("produced")
	for ctx.Err() == nil {
		r, err := reader.ReadRecord()
		if errors.Is(err, io.EOF) {
			break
		}
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return usagef("stdin ends inside record %d: -f %q wants more (does the last line lack its newline?)", t.sent(), *format)
		}
		if err != nil {
			return usagef("reading record %d from stdin: %v", t.sent(), err)
		}
		if *key != "" {
			r.Key = []byte(*key)
		}
		for _, k := range sortedKeys(hs) {
			r.Headers = append(r.Headers, kgo.RecordHeader{Key: k, Value: []byte(hs[k])})
		}
		if *partition >= 0 {
			r.Partition = int32(*partition)
		}
		n := t.sent()
		e.cl.Produce(ctx, r, func(r *kgo.Record, err error) {
			progress(t.answered(e.stderr, n, r, err))
		})
	}
	flushed := e.cl.Flush(ctx)
	if line, ok := t.timeoutLine(); ok {
		// A transaction left open is aborted by its coordinator after
		// transaction.timeout.ms: ending it here would wait again.
		fmt.Fprintln(e.stderr, line)
		return kgo.ErrRecordTimeout
	}
	if flushed != nil {
		return flushed
	}
	if *txnID != "" {
		commit := kgo.TryCommit
		if t.firstErr != nil {
			commit = kgo.TryAbort
		}
		if err := e.cl.EndTransaction(ctx, commit); err != nil {
			return err
		}
	}
	sum := t.summary()
	if sum.Failed > 0 {
		e.code = ExitRefused
		if sum.Failed == sum.Records && e.format != "json" {
			fmt.Fprintf(e.stderr, "gregor: no record produced to %s (%d failed)\n", sum.Topic, sum.Failed)
			return nil
		}
	}
	return e.show(sum, func() [][]string {
		line := fmt.Sprintf("produced %d records to %s", sum.Records-sum.Failed, sum.Topic)
		if sum.Failed > 0 {
			line += fmt.Sprintf(", %d failed", sum.Failed)
		}
		return [][]string{{line}}
	})
}

// produceHint says what to look at for a refusal a producer can fix.
func produceHint(err error, topic string) string {
	if errors.Is(err, kerr.MessageTooLarge) || errors.Is(err, kerr.RecordListTooLarge) {
		return fmt.Sprintf(" (see %s's max.message.bytes: gregor topic describe %s -a)", topic, topic)
	}
	return ""
}

// progress returns a function that, when stdout is a terminal, keeps a
// count on one line of stderr.
func (e *env) progress(verb string) func(int) {
	if f, ok := e.stdout.(*os.File); !ok || !isTerminal(f) {
		return func(int) {}
	}
	last := time.Now()
	return func(n int) {
		if time.Since(last) > 500*time.Millisecond {
			fmt.Fprintf(e.stderr, "\r%s %d records", verb, n)
			last = time.Now()
		}
	}
}

// consumedRecord is a record as consume prints it by default, one JSON
// object per line (rpk's default).
type consumedRecord struct {
	Topic     string            `json:"topic"`
	Partition int32             `json:"partition"`
	Offset    int64             `json:"offset"`
	Timestamp int64             `json:"timestamp"`
	Key       *string           `json:"key"`
	Value     *string           `json:"value"`
	Headers   map[string]string `json:"headers,omitempty"`
}

func topicConsume(e *env) error {
	from := e.fs.String("o", "start", "where to start: start, end, an offset, or @TIME (milliseconds since the epoch, or RFC 3339)")
	n := e.fs.Int("n", 0, "exit after this many records (default: at the end of every partition as it was when consume started)")
	follow := e.fs.Bool("follow", false, "keep consuming new records instead of exiting at the end")
	group := e.fs.String("g", "", "consume as a member of this group, committing what it consumed")
	readCommitted := e.fs.Bool("read-committed", false, "deliver only committed transactions' records (isolation.level=read_committed)")
	format := e.fs.String("f", "", "print each record with franz-go's record formatter layout (%t topic, %p partition, %o offset, %d timestamp, %k key, %v value, %h headers); default: one JSON object per line")
	if err := e.parse(1, 1, "TOPIC"); err != nil {
		return err
	}
	topic := e.args[0]
	var rf *kgo.RecordFormatter
	if *format != "" {
		var err error
		if rf, err = kgo.NewRecordFormatter(*format); err != nil {
			return usagef("-f %q: %v", *format, err)
		}
	}
	start, err := startOffset(*from)
	if err != nil {
		return err
	}
	// Control records come through so that a partition whose last
	// offsets are a transaction's marker still reaches its end.
	opts := []kgo.Opt{kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(start), kgo.KeepControlRecords()}
	if *readCommitted {
		opts = append(opts, kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	}
	if *group != "" {
		opts = append(opts, kgo.ConsumerGroup(*group), kgo.DisableAutoCommit())
	}
	adm, ctx, err := e.client(opts...)
	if err != nil {
		return err
	}
	ends, err := endOffsets(ctx, adm, topic, *readCommitted)
	if ke := (*kerr.Error)(nil); errors.As(err, &ke) || err == nil && len(ends) == 0 {
		e.refused("topic "+topic, orUnknown(err), "")
		return nil
	}
	if err != nil {
		return err
	}
	run, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	seen, pos := 0, map[int32]int64{}
	done := func() bool {
		switch {
		case *n > 0:
			return seen >= *n
		case *follow:
			return false
		}
		for p, end := range ends {
			if pos[p] < end {
				return false
			}
		}
		return true
	}
	if *from == "end" && *n == 0 && !*follow {
		return nil // nothing to wait for
	}
	progress := e.progress("consumed")
	var buf []byte
	for !done() {
		fs := e.cl.PollFetches(run)
		if run.Err() != nil {
			break
		}
		for _, fe := range fs.Errors() {
			if !errors.Is(fe.Err, context.Canceled) {
				return fmt.Errorf("consuming %s partition %d: %w", fe.Topic, fe.Partition, fe.Err)
			}
		}
		var shown []*kgo.Record
		fs.EachRecord(func(r *kgo.Record) {
			if *n > 0 && seen >= *n {
				return
			}
			shown = append(shown, r)
			pos[r.Partition] = r.Offset + 1
			if r.Attrs.IsControl() {
				return // a transaction's marker: not shown, but the position moves past it
			}
			seen++
			buf = buf[:0]
			if rf != nil {
				buf = rf.AppendRecord(buf, r)
			} else {
				buf, _ = json.Marshal(jsonRecord(r))
				buf = append(buf, '\n')
			}
			e.stdout.Write(buf)
			progress(seen)
		})
		if *group != "" {
			ctx, cancel := e.timeoutCtx()
			err := e.cl.CommitRecords(ctx, shown...) // what was shown (and the markers passed), not all that was fetched
			cancel()
			if err != nil {
				return fmt.Errorf("committing %s's offsets: %w", *group, err)
			}
		}
	}
	if *group != "" {
		ctx, cancel := e.timeoutCtx()
		defer cancel()
		e.cl.LeaveGroupContext(ctx)
	}
	return nil
}

func jsonRecord(r *kgo.Record) consumedRecord {
	c := consumedRecord{Topic: r.Topic, Partition: r.Partition, Offset: r.Offset, Timestamp: r.Timestamp.UnixMilli()}
	if r.Key != nil {
		k := string(r.Key)
		c.Key = &k
	}
	if r.Value != nil {
		v := string(r.Value)
		c.Value = &v
	}
	for _, h := range r.Headers {
		if c.Headers == nil {
			c.Headers = map[string]string{}
		}
		c.Headers[h.Key] = string(h.Value)
	}
	return c
}

// startOffset reads -o.
func startOffset(s string) (kgo.Offset, error) {
	switch {
	case s == "start":
		return kgo.NewOffset().AtStart(), nil
	case s == "end":
		return kgo.NewOffset().AtEnd(), nil
	case strings.HasPrefix(s, "@"):
		ms, err := timeArg("-o", s)
		return kgo.NewOffset().AfterMilli(ms), err
	}
	at, err := strconv.ParseInt(s, 10, 64)
	if err != nil || at < 0 {
		return kgo.Offset{}, usagef("-o %s: want start, end, an offset or @TIME", s)
	}
	return kgo.NewOffset().At(at), nil
}

// timeArg reads flag's @TIME: milliseconds since the epoch, or RFC 3339.
func timeArg(flag, s string) (int64, error) {
	ts := strings.TrimPrefix(s, "@")
	if ms, err := strconv.ParseInt(ts, 10, 64); err == nil {
		return ms, nil
	}
	t, err := time.Parse(time.RFC3339, ts)
	if err != nil {
		return 0, usagef("%s %s: want @MILLISECONDS or @RFC3339 (e.g. @2026-12-01T10:00:00Z)", flag, s)
	}
	return t.UnixMilli(), nil
}

// endOffsets are each partition's end as consume starts: the high
// watermark, or under read_committed the last stable offset.
func endOffsets(ctx context.Context, adm *kadm.Client, topic string, readCommitted bool) (map[int32]int64, error) {
	list := adm.ListEndOffsets
	if readCommitted {
		list = adm.ListCommittedOffsets
	}
	lo, err := list(ctx, topic)
	if err != nil {
		return nil, err
	}
	out := map[int32]int64{}
	var firstErr error
	lo.Each(func(o kadm.ListedOffset) {
		if o.Err != nil {
			firstErr = o.Err
			return
		}
		out[o.Partition] = o.Offset
	})
	if len(out) == 0 && firstErr != nil {
		return nil, firstErr
	}
	return out, nil
}
