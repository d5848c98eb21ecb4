package broker

import (
	"reflect"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// errorResponse answers req with code wherever its response carries an
// error. Answers that list the request's partitions (OffsetCommit,
// TxnOffsetCommit, AddPartitionsToTxn) list every partition asked about,
// as Kafka's getErrorResponse does: a client reads a partition left out
// as a success (franz-go does for AddPartitionsToTxn, and would then
// produce to a partition that is not in its transaction).
func errorResponse(req kmsg.Request, code int16) kmsg.Response {
	resp := req.ResponseKind()
	resp.SetVersion(req.GetVersion())
	switch r := req.(type) {
	case *kmsg.OffsetCommitRequest:
		out := resp.(*kmsg.OffsetCommitResponse)
		for _, t := range r.Topics {
			rt := kmsg.NewOffsetCommitResponseTopic()
			rt.Topic, rt.TopicID = t.Topic, t.TopicID
			for _, p := range t.Partitions {
				rt.Partitions = append(rt.Partitions, kmsg.OffsetCommitResponseTopicPartition{Partition: p.Partition, ErrorCode: code})
			}
			out.Topics = append(out.Topics, rt)
		}
	case *kmsg.TxnOffsetCommitRequest:
		out := resp.(*kmsg.TxnOffsetCommitResponse)
		for _, t := range r.Topics {
			rt := kmsg.NewTxnOffsetCommitResponseTopic()
			rt.Topic = t.Topic
			for _, p := range t.Partitions {
				rt.Partitions = append(rt.Partitions, kmsg.TxnOffsetCommitResponseTopicPartition{Partition: p.Partition, ErrorCode: code})
			}
			out.Topics = append(out.Topics, rt)
		}
	case *kmsg.AddPartitionsToTxnRequest:
		out := resp.(*kmsg.AddPartitionsToTxnResponse)
		if r.Version >= 4 {
			out.ErrorCode = code
			break
		}
		for _, t := range r.Topics {
			rt := kmsg.NewAddPartitionsToTxnResponseTopic()
			rt.Topic = t.Topic
			for _, p := range t.Partitions {
				rt.Partitions = append(rt.Partitions, kmsg.AddPartitionsToTxnResponseTopicPartition{Partition: p, ErrorCode: code})
			}
			out.Topics = append(out.Topics, rt)
		}
	default:
		setErrorCodes(reflect.ValueOf(resp).Elem(), code, 2)
	}
	return resp
}
