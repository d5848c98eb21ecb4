package ui

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/describe"
)

// Field is one named value of a message, named as Kafka's protocol names it.
type Field struct {
	Name, Value string
}

// Part is the fields of a message that concern one topic or partition.
type Part struct {
	Name   string // "orders-0", or a topic name
	Fields []Field
	Error  ErrorView
}

// ErrorView is a Kafka error code, spelled as Kafka spells it.
type ErrorView struct {
	Code int16
	Name string // "" for no error
	Doc  string // Kafka's description, for a tooltip
}

// MsgView is one request or response, reduced to what a learner reads.
type MsgView struct {
	API      string // "Produce"
	Key      int16  // the API key
	Response bool
	Fields   []Field // fields of the whole message (acks, isolation, ...)
	Parts    []Part
	Error    ErrorView // a top-level error code
	Summary  string    // describe.Message's line, for messages with no parts
	Describe string    // describe.Message's line, always
}

func errorView(code int16) ErrorView {
	if code == 0 {
		return ErrorView{}
	}
	ev := ErrorView{Code: code, Name: describe.ErrorName(code)}
	if ke, ok := kerr.ErrorForCode(code).(*kerr.Error); ok {
		ev.Doc = ke.Description
	}
	return ev
}

func f(name string, v any) Field { return Field{name, fmt.Sprint(v)} }

// Message renders a kmsg request or response. Produce, Fetch, ListOffsets,
// CreateTopics, DeleteRecords and InitProducerId get their key fields;
// everything else falls back to describe.Message.
func Message(msg any) MsgView {
	v := MsgView{Describe: describe.Message(msg)}
	switch m := msg.(type) {
	case kmsg.Request:
		v.API, v.Key = kmsg.NameForKey(m.Key()), m.Key()
	case kmsg.Response:
		v.API, v.Key, v.Response = kmsg.NameForKey(m.Key()), m.Key(), true
	default:
		v.API = fmt.Sprintf("%T", msg)
	}
	switch m := msg.(type) {
	case *kmsg.ProduceRequest:
		v.Fields = append(v.Fields, f("acks", m.Acks), f("timeout_ms", m.TimeoutMillis))
		if m.TransactionID != nil {
			v.Fields = append(v.Fields, f("transactional_id", *m.TransactionID))
		}
		for _, t := range m.Topics {
			for _, p := range t.Partitions {
				v.Parts = append(v.Parts, Part{Name: tp(t.Topic, p.Partition), Fields: batchFields(p.Records)})
			}
		}
	case *kmsg.ProduceResponse:
		for _, t := range m.Topics {
			for _, p := range t.Partitions {
				fs := []Field{f("base_offset", p.BaseOffset)}
				if p.LogStartOffset >= 0 {
					fs = append(fs, f("log_start_offset", p.LogStartOffset))
				}
				v.Parts = append(v.Parts, Part{Name: tp(t.Topic, p.Partition), Fields: fs, Error: errorView(p.ErrorCode)})
			}
		}
	case *kmsg.FetchRequest:
		iso := "read_uncommitted"
		if m.IsolationLevel == 1 {
			iso = "read_committed"
		}
		v.Fields = append(v.Fields, f("isolation_level", iso), f("max_wait_ms", m.MaxWaitMillis), f("min_bytes", m.MinBytes))
		if id := replicaID(m); id >= 0 {
			v.Fields = append(v.Fields, f("replica_id", id))
		}
		if m.SessionID != 0 || m.SessionEpoch > 0 {
			// In an incremental fetch session (KIP-227): only what moved.
			v.Fields = append(v.Fields, f("session_id", m.SessionID), f("session_epoch", m.SessionEpoch))
		}
		for _, t := range m.Topics {
			for _, p := range t.Partitions {
				fs := []Field{f("fetch_offset", p.FetchOffset), f("partition_max_bytes", p.PartitionMaxBytes)}
				v.Parts = append(v.Parts, Part{Name: tp(t.Topic, p.Partition), Fields: fs})
			}
		}
		for _, t := range m.ForgottenTopics {
			for _, p := range t.Partitions {
				v.Parts = append(v.Parts, Part{Name: tp(t.Topic, p), Fields: []Field{{"forgotten", "true"}}})
			}
		}
	case *kmsg.FetchResponse:
		v.Error = errorView(m.ErrorCode)
		if m.SessionID != 0 {
			v.Fields = append(v.Fields, f("session_id", m.SessionID))
		}
		for _, t := range m.Topics {
			for _, p := range t.Partitions {
				fs := []Field{f("high_watermark", p.HighWatermark), f("last_stable_offset", p.LastStableOffset), f("log_start_offset", p.LogStartOffset)}
				fs = append(fs, Field{"records", recordsSummary(p.RecordBatches)})
				if len(p.AbortedTransactions) > 0 {
					var ab []string
					for _, a := range p.AbortedTransactions {
						ab = append(ab, fmt.Sprintf("pid %d from %d", a.ProducerID, a.FirstOffset))
					}
					fs = append(fs, Field{"aborted_transactions", strings.Join(ab, ", ")})
				}
				v.Parts = append(v.Parts, Part{Name: tp(t.Topic, p.Partition), Fields: fs, Error: errorView(p.ErrorCode)})
			}
		}
	case *kmsg.ListOffsetsRequest:
		if m.IsolationLevel == 1 {
			v.Fields = append(v.Fields, f("isolation_level", "read_committed"))
		}
		for _, t := range m.Topics {
			for _, p := range t.Partitions {
				v.Parts = append(v.Parts, Part{Name: tp(t.Topic, p.Partition), Fields: []Field{{"timestamp", timestamp(p.Timestamp)}}})
			}
		}
	case *kmsg.ListOffsetsResponse:
		for _, t := range m.Topics {
			for _, p := range t.Partitions {
				fs := []Field{f("offset", p.Offset), f("timestamp", p.Timestamp)}
				v.Parts = append(v.Parts, Part{Name: tp(t.Topic, p.Partition), Fields: fs, Error: errorView(p.ErrorCode)})
			}
		}
	case *kmsg.CreateTopicsRequest:
		for _, t := range m.Topics {
			fs := []Field{f("num_partitions", t.NumPartitions), f("replication_factor", t.ReplicationFactor)}
			for _, c := range t.Configs {
				if c.Value != nil {
					fs = append(fs, Field{c.Name, *c.Value})
				}
			}
			v.Parts = append(v.Parts, Part{Name: t.Topic, Fields: fs})
		}
	case *kmsg.CreateTopicsResponse:
		for _, t := range m.Topics {
			var fs []Field
			if t.NumPartitions > 0 {
				fs = append(fs, f("num_partitions", t.NumPartitions))
			}
			if t.ErrorMessage != nil && *t.ErrorMessage != "" {
				fs = append(fs, Field{"error_message", *t.ErrorMessage})
			}
			v.Parts = append(v.Parts, Part{Name: t.Topic, Fields: fs, Error: errorView(t.ErrorCode)})
		}
	case *kmsg.DeleteRecordsRequest:
		for _, t := range m.Topics {
			for _, p := range t.Partitions {
				v.Parts = append(v.Parts, Part{Name: tp(t.Topic, p.Partition), Fields: []Field{f("offset", p.Offset)}})
			}
		}
	case *kmsg.DeleteRecordsResponse:
		for _, t := range m.Topics {
			for _, p := range t.Partitions {
				v.Parts = append(v.Parts, Part{Name: tp(t.Topic, p.Partition), Fields: []Field{f("low_watermark", p.LowWatermark)}, Error: errorView(p.ErrorCode)})
			}
		}
	case *kmsg.InitProducerIDRequest:
		if m.TransactionalID != nil {
			v.Fields = append(v.Fields, Field{"transactional_id", *m.TransactionalID}, f("transaction_timeout_ms", m.TransactionTimeoutMillis))
		}
	case *kmsg.InitProducerIDResponse:
		v.Fields = append(v.Fields, f("producer_id", m.ProducerID), f("producer_epoch", m.ProducerEpoch))
		v.Error = errorView(m.ErrorCode)
	default:
		v.Summary = strings.TrimSpace(strings.TrimPrefix(v.Describe, v.API))
		v.Error = errorView(topErrorCode(msg))
	}
	return v
}

// topErrorCode is a response's top-level ErrorCode field, 0 if it has
// none: the card of a message without its own fields above shows it
// (an AlterPartition answered NOT_CONTROLLER must not read NONE).
func topErrorCode(msg any) int16 {
	rv := reflect.ValueOf(msg)
	if rv.Kind() != reflect.Pointer || rv.Elem().Kind() != reflect.Struct {
		return 0
	}
	if f := rv.Elem().FieldByName("ErrorCode"); f.IsValid() && f.Kind() == reflect.Int16 {
		return int16(f.Int())
	}
	return 0
}

// replicaID is the fetching replica (a follower), or -1 for a consumer.
func replicaID(m *kmsg.FetchRequest) int32 {
	if m.Version >= 15 {
		return m.ReplicaState.ID
	}
	return m.ReplicaID
}

func tp(topic string, p int32) string { return fmt.Sprintf("%s-%d", topic, p) }

func timestamp(ts int64) string {
	switch ts {
	case -1:
		return "-1 (latest)"
	case -2:
		return "-2 (earliest)"
	case -3:
		return "-3 (max timestamp)"
	}
	return fmt.Sprint(ts)
}

// batchFields reads a produce request's first batch header.
func batchFields(p []byte) []Field {
	b, ok := describe.FirstBatch(p)
	if !ok {
		return []Field{{"records", fmt.Sprintf("%d bytes", len(p))}}
	}
	fs := []Field{f("producer_id", b.ProducerID)} // -1: not idempotent
	if b.ProducerID >= 0 {
		fs = append(fs, f("producer_epoch", b.ProducerEpoch), f("base_sequence", b.BaseSequence))
	}
	if b.Transactional {
		fs = append(fs, Field{"transactional", "true"})
	}
	fs = append(fs, f("record_count", b.Records), f("batch_bytes", b.Bytes))
	return fs
}

// recordsSummary describes the batches in a fetch answer.
func recordsSummary(p []byte) string {
	s := describe.SpanOf(p)
	if s.Batches == 0 {
		return "none"
	}
	return fmt.Sprintf("%s %d..%d (%s, %d bytes)", plural(s.Records, "record"), s.First, s.Last, plural(s.Batches, "batch"), len(p))
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	if strings.HasSuffix(what, "ch") {
		return fmt.Sprintf("%d %ses", n, what)
	}
	return fmt.Sprintf("%d %ss", n, what)
}
