package describe

import (
	"encoding/base64"
	"fmt"
	"reflect"
	"strings"

	"github.com/gregor-kafka/gregor/core/wire"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Describe renders a request or response as one fixed, readable line: the
// API name, the fields that matter to a learner, and errors spelled as
// Kafka spells them (DUPLICATE_SEQUENCE_NUMBER), and the throttle time a
// quota imposed (KIP-219). Lessons and simulator traces print only
// through it, so the same message always reads the same.
func Message(msg any) string {
	s := message(msg)
	if ms := wire.Throttle(msg); ms > 0 {
		s += fmt.Sprintf(" throttle_time_ms=%d", ms)
	}
	return s
}

func message(msg any) string {
	switch m := msg.(type) {
	case *kmsg.EnvelopeRequest:
		return describeEnvelope(m)
	case *kmsg.EnvelopeResponse:
		// The forwarded answer inside is read by the forwarding broker
		// and passed on to its client, where it is described.
		return "Envelope answer" + errField(m.ErrorCode)
	case *kmsg.ProduceRequest:
		return describeProduce(m)
	case *kmsg.ProduceResponse:
		var parts []string
		for _, t := range m.Topics {
			for _, p := range t.Partitions {
				s := fmt.Sprintf("%s-%d base_offset=%d", t.Topic, p.Partition, p.BaseOffset)
				parts = append(parts, s+errField(p.ErrorCode))
			}
		}
		return "Produce " + strings.Join(parts, "; ")
	case *kmsg.FetchRequest:
		var parts []string
		for _, t := range m.Topics {
			for _, p := range t.Partitions {
				parts = append(parts, fmt.Sprintf("%s-%d offset=%d", t.Topic, p.Partition, p.FetchOffset))
			}
		}
		iso := ""
		if m.IsolationLevel == 1 {
			iso = " isolation=read_committed"
		}
		if m.ReplicaID >= 0 || m.ReplicaState.ID >= 0 && m.Version >= 15 {
			// A follower's fetch: it reads up to the leader's log end.
			var rp []string
			for _, t := range m.Topics {
				for _, p := range t.Partitions {
					rp = append(rp, fmt.Sprintf("%s-%d offset=%d epoch=%d", t.Topic, p.Partition, p.FetchOffset, p.CurrentLeaderEpoch))
				}
			}
			return "Fetch (replica) " + strings.Join(rp, "; ")
		}
		return fmt.Sprintf("Fetch %s%s", strings.Join(parts, "; "), iso)
	case *kmsg.FetchResponse:
		var parts []string
		for _, t := range m.Topics {
			for _, p := range t.Partitions {
				s := fmt.Sprintf("%s-%d hw=%d lso=%d%s", t.Topic, p.Partition, p.HighWatermark, p.LastStableOffset, batchSpan(p.RecordBatches))
				if len(p.AbortedTransactions) > 0 {
					var ab []string
					for _, a := range p.AbortedTransactions {
						ab = append(ab, fmt.Sprintf("pid=%d@%d", a.ProducerID, a.FirstOffset))
					}
					s += " aborted=[" + strings.Join(ab, " ") + "]"
				}
				if p.PreferredReadReplica >= 0 {
					s += fmt.Sprintf(" preferred_read_replica=%d", p.PreferredReadReplica)
				}
				parts = append(parts, s+errField(p.ErrorCode))
			}
		}
		return "Fetch " + strings.Join(parts, "; ") + errField(m.ErrorCode)
	case *kmsg.ListOffsetsRequest:
		var parts []string
		for _, t := range m.Topics {
			for _, p := range t.Partitions {
				parts = append(parts, fmt.Sprintf("%s-%d timestamp=%s", t.Topic, p.Partition, specialTimestamp(p.Timestamp)))
			}
		}
		return "ListOffsets " + strings.Join(parts, "; ")
	case *kmsg.ListOffsetsResponse:
		var parts []string
		for _, t := range m.Topics {
			for _, p := range t.Partitions {
				parts = append(parts, fmt.Sprintf("%s-%d offset=%d timestamp=%d%s", t.Topic, p.Partition, p.Offset, p.Timestamp, errField(p.ErrorCode)))
			}
		}
		return "ListOffsets " + strings.Join(parts, "; ")
	case *kmsg.InitProducerIDRequest:
		if m.TransactionalID != nil {
			return fmt.Sprintf("InitProducerId transactional_id=%s timeout=%dms", *m.TransactionalID, m.TransactionTimeoutMillis)
		}
		return "InitProducerId"
	case *kmsg.InitProducerIDResponse:
		return fmt.Sprintf("InitProducerId pid=%d epoch=%d%s", m.ProducerID, m.ProducerEpoch, errField(m.ErrorCode))
	case *kmsg.EndTxnRequest:
		verb := "ABORT"
		if m.Commit {
			verb = "COMMIT"
		}
		return fmt.Sprintf("EndTxn %s transactional_id=%s pid=%d epoch=%d", verb, m.TransactionalID, m.ProducerID, m.ProducerEpoch)
	case *kmsg.WriteTxnMarkersRequest:
		var parts []string
		for _, mk := range m.Markers {
			verb := "ABORT"
			if mk.Committed {
				verb = "COMMIT"
			}
			var tps []string
			for _, t := range mk.Topics {
				for _, p := range t.Partitions {
					tps = append(tps, fmt.Sprintf("%s-%d", t.Topic, p))
				}
			}
			parts = append(parts, fmt.Sprintf("%s pid=%d epoch=%d coordinator_epoch=%d %s", verb, mk.ProducerID, mk.ProducerEpoch, mk.CoordinatorEpoch, strings.Join(tps, ",")))
		}
		return "WriteTxnMarkers " + strings.Join(parts, "; ")
	case *kmsg.CreateTopicsRequest:
		var parts []string
		for _, t := range m.Topics {
			s := fmt.Sprintf("%s partitions=%d rf=%d", t.Topic, t.NumPartitions, t.ReplicationFactor)
			for _, c := range t.Configs {
				if c.Value != nil {
					s += fmt.Sprintf(" %s=%s", c.Name, *c.Value)
				}
			}
			parts = append(parts, s)
		}
		return "CreateTopics " + strings.Join(parts, "; ")
	case *kmsg.CreateTopicsResponse:
		var parts []string
		for _, t := range m.Topics {
			parts = append(parts, t.Topic+errField(t.ErrorCode))
		}
		return "CreateTopics " + strings.Join(parts, "; ")
	case *kmsg.CreatePartitionsRequest:
		var parts []string
		for _, t := range m.Topics {
			parts = append(parts, fmt.Sprintf("%s count=%d", t.Topic, t.Count))
		}
		return "CreatePartitions " + strings.Join(parts, "; ")
	case *kmsg.CreatePartitionsResponse:
		var parts []string
		for _, t := range m.Topics {
			parts = append(parts, t.Topic+errField(t.ErrorCode))
		}
		return "CreatePartitions " + strings.Join(parts, "; ")
	case *kmsg.DeleteTopicsRequest:
		var parts []string
		for _, t := range wire.DeleteTopicsTargets(m) {
			parts = append(parts, topicOrID(t.Topic, t.TopicID))
		}
		return "DeleteTopics " + strings.Join(parts, "; ")
	case *kmsg.DeleteTopicsResponse:
		var parts []string
		for _, t := range m.Topics {
			parts = append(parts, topicOrID(t.Topic, t.TopicID)+errField(t.ErrorCode))
		}
		return "DeleteTopics " + strings.Join(parts, "; ")
	case *kmsg.DeleteRecordsRequest:
		var parts []string
		for _, t := range m.Topics {
			for _, p := range t.Partitions {
				parts = append(parts, fmt.Sprintf("%s-%d before=%d", t.Topic, p.Partition, p.Offset))
			}
		}
		return "DeleteRecords " + strings.Join(parts, "; ")
	case *kmsg.DeleteRecordsResponse:
		var parts []string
		for _, t := range m.Topics {
			for _, p := range t.Partitions {
				parts = append(parts, fmt.Sprintf("%s-%d low_watermark=%d%s", t.Topic, p.Partition, p.LowWatermark, errField(p.ErrorCode)))
			}
		}
		return "DeleteRecords " + strings.Join(parts, "; ")
	case *kmsg.MetadataRequest:
		if m.Topics == nil {
			return "Metadata all topics"
		}
		var names []string
		for _, t := range m.Topics {
			if t.Topic != nil {
				names = append(names, *t.Topic)
			}
		}
		return "Metadata " + strings.Join(names, ",")
	case *kmsg.MetadataResponse:
		var parts []string
		for _, t := range m.Topics {
			name := "?"
			if t.Topic != nil {
				name = *t.Topic
			}
			s := fmt.Sprintf("%s partitions=%d%s", name, len(t.Partitions), errField(t.ErrorCode))
			if len(m.Brokers) > 1 {
				// Several brokers: where each partition is led.
				var ls []string
				for _, p := range t.Partitions {
					leader := fmt.Sprintf("b%d", p.Leader)
					if p.Leader < 0 {
						leader = "none"
					}
					ls = append(ls, fmt.Sprintf("%d:%s", p.Partition, leader))
				}
				s += " leaders=[" + strings.Join(ls, " ") + "]"
			}
			parts = append(parts, s)
		}
		return fmt.Sprintf("Metadata brokers=%d %s", len(m.Brokers), strings.Join(parts, "; "))
	case *kmsg.OffsetForLeaderEpochRequest:
		var parts []string
		for _, t := range m.Topics {
			for _, p := range t.Partitions {
				parts = append(parts, fmt.Sprintf("%s-%d epoch=%d", t.Topic, p.Partition, p.LeaderEpoch))
			}
		}
		return "OffsetForLeaderEpoch " + strings.Join(parts, "; ")
	case *kmsg.OffsetForLeaderEpochResponse:
		var parts []string
		for _, t := range m.Topics {
			for _, p := range t.Partitions {
				parts = append(parts, fmt.Sprintf("%s-%d epoch=%d end_offset=%d%s", t.Topic, p.Partition, p.LeaderEpoch, p.EndOffset, errField(p.ErrorCode)))
			}
		}
		return "OffsetForLeaderEpoch " + strings.Join(parts, "; ")
	case *kmsg.AlterPartitionRequest:
		var parts []string
		for _, t := range m.Topics {
			for _, p := range t.Partitions {
				parts = append(parts, fmt.Sprintf("%s-%d isr=%s", t.Topic, p.Partition, ids(p.NewISR)))
			}
		}
		return "AlterPartition " + strings.Join(parts, "; ")
	case *kmsg.AlterPartitionResponse:
		var parts []string
		for _, t := range m.Topics {
			for _, p := range t.Partitions {
				parts = append(parts, fmt.Sprintf("%s-%d isr=%s%s", t.Topic, p.Partition, ids(p.ISR), errField(p.ErrorCode)))
			}
		}
		return strings.TrimSpace("AlterPartition "+strings.Join(parts, "; ")) + errField(m.ErrorCode)
	case *kmsg.JoinGroupRequest:
		var protos []string
		for _, p := range m.Protocols {
			protos = append(protos, p.Name)
		}
		inst := ""
		if m.InstanceID != nil {
			inst = " instance=" + *m.InstanceID
		}
		return fmt.Sprintf("JoinGroup group=%s member=%s%s protocols=%s", m.Group, orDash(m.MemberID), inst, strings.Join(protos, ","))
	case *kmsg.JoinGroupResponse:
		proto := ""
		if m.Protocol != nil {
			proto = *m.Protocol
		}
		return fmt.Sprintf("JoinGroup generation=%d member=%s leader=%s protocol=%s members=%d%s", m.Generation, orDash(m.MemberID), orDash(m.LeaderID), orDash(proto), len(m.Members), errField(m.ErrorCode))
	case *kmsg.SyncGroupRequest:
		return fmt.Sprintf("SyncGroup group=%s generation=%d member=%s assignments=%d", m.Group, m.Generation, m.MemberID, len(m.GroupAssignment))
	case *kmsg.HeartbeatRequest:
		return fmt.Sprintf("Heartbeat group=%s generation=%d member=%s", m.Group, m.Generation, m.MemberID)
	}
	if s, ok := describeTxn(msg); ok { // describe_txn.go
		return s
	}
	if s, ok := describeShare(msg); ok { // share.go
		return s
	}
	if s, ok := describeGroup(msg); ok { // describe_group.go
		return s
	}
	if s, ok := describeReassign(msg); ok {
		return s
	}
	return describeGeneric(msg)
}

func describeProduce(m *kmsg.ProduceRequest) string {
	var parts []string
	for _, t := range m.Topics {
		for _, p := range t.Partitions {
			s := fmt.Sprintf("%s-%d", t.Topic, p.Partition)
			if b, ok := FirstBatch(p.Records); ok {
				if b.ProducerID >= 0 {
					s += fmt.Sprintf(" pid=%d epoch=%d seq=%d", b.ProducerID, b.ProducerEpoch, b.BaseSequence)
				}
				if b.Transactional {
					s += " transactional"
				}
				s += fmt.Sprintf(" records=%d", b.Records)
			}
			parts = append(parts, s)
		}
	}
	return fmt.Sprintf("Produce %s acks=%d", strings.Join(parts, "; "), m.Acks)
}

// batchSpan summarizes the batches in a fetch answer.
func batchSpan(p []byte) string {
	s := SpanOf(p)
	if s.Batches == 0 {
		return " records=none"
	}
	return fmt.Sprintf(" batches=%d offsets=%d..%d", s.Batches, s.First, s.Last)
}

func specialTimestamp(ts int64) string {
	switch ts {
	case -1:
		return "latest"
	case -2:
		return "earliest"
	case -3:
		return "max"
	}
	return fmt.Sprint(ts)
}

// renamed lists the codes whose name in kerr is one Kafka has retired.
var renamed = map[int16]string{
	6: "NOT_LEADER_OR_FOLLOWER", // KIP-392 (Kafka 2.4)
}

// ErrorName spells a Kafka error code as Kafka does today.
func ErrorName(code int16) string {
	if code == 0 {
		return "NONE"
	}
	if name, ok := renamed[code]; ok {
		return name
	}
	if e := kerr.ErrorForCode(code); e != nil {
		if ke, ok := e.(*kerr.Error); ok {
			return ke.Message
		}
	}
	return fmt.Sprintf("ERROR_%d", code)
}

// ids renders broker ids as [0 1 2].
func ids(s []int32) string {
	out := make([]string, len(s))
	for i, id := range s {
		out[i] = fmt.Sprint(id)
	}
	return "[" + strings.Join(out, " ") + "]"
}

func errField(code int16) string {
	if code == 0 {
		return ""
	}
	return " error=" + ErrorName(code)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// describeGeneric names the API and lists the error codes found in the
// message's top level and first nesting, in field order.
func describeGeneric(msg any) string {
	v := reflect.ValueOf(msg)
	name := fmt.Sprintf("%T", msg)
	if r, ok := msg.(interface{ Key() int16 }); ok {
		name = kmsg.NameForKey(r.Key())
	}
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return name
	}
	var errs []string
	collectErrors(v.Elem(), 2, &errs)
	if len(errs) == 0 {
		return name
	}
	return name + " error=" + strings.Join(errs, ",")
}

func collectErrors(v reflect.Value, depth int, errs *[]string) {
	if v.Kind() != reflect.Struct {
		return
	}
	if f := v.FieldByName("ErrorCode"); f.IsValid() && f.Kind() == reflect.Int16 && f.Int() != 0 {
		*errs = append(*errs, ErrorName(int16(f.Int())))
	}
	if depth == 0 {
		return
	}
	for i := range v.NumField() {
		if f := v.Field(i); f.Kind() == reflect.Slice && f.Type().Elem().Kind() == reflect.Struct {
			for j := range f.Len() {
				collectErrors(f.Index(j), depth-1, errs)
			}
		}
	}
}

// topicOrID names a topic given by name or, when the name is null, by id
// (as Kafka prints a Uuid).
func topicOrID(name *string, id [16]byte) string {
	if name != nil {
		return *name
	}
	return "id=" + base64.RawURLEncoding.EncodeToString(id[:])
}
