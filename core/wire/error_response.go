package wire

import (
	"reflect"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// ErrorResponse answers req with code wherever its response carries an
// error, encoded at the request's version. Answers that list what the
// request asked about (topics, partitions, resources) list every item
// with code, as Kafka's AbstractRequest.getErrorResponse does: a client
// reads an item left out as a success (franz-go does so for
// AddPartitionsToTxn, and then produces to a partition outside its
// transaction). A BrokerHeartbeat error also says fenced. Other answers
// get code at the top level, or in a first element one or two levels
// down where they carry errors per topic or partition.
func ErrorResponse(req kmsg.Request, code int16) kmsg.Response {
	resp := req.ResponseKind()
	resp.SetVersion(req.GetVersion())
	switch r := req.(type) {
	case *kmsg.BrokerHeartbeatRequest:
		out := resp.(*kmsg.BrokerHeartbeatResponse)
		out.ErrorCode, out.IsFenced = code, true
	case *kmsg.CreateTopicsRequest:
		out := resp.(*kmsg.CreateTopicsResponse)
		for _, t := range r.Topics {
			rt := kmsg.NewCreateTopicsResponseTopic()
			rt.Topic, rt.ErrorCode = t.Topic, code
			out.Topics = append(out.Topics, rt)
		}
	case *kmsg.CreatePartitionsRequest:
		out := resp.(*kmsg.CreatePartitionsResponse)
		for _, t := range r.Topics {
			rt := kmsg.NewCreatePartitionsResponseTopic()
			rt.Topic, rt.ErrorCode = t.Topic, code
			out.Topics = append(out.Topics, rt)
		}
	case *kmsg.DeleteTopicsRequest:
		out := resp.(*kmsg.DeleteTopicsResponse)
		for _, t := range DeleteTopicsTargets(r) {
			rt := kmsg.NewDeleteTopicsResponseTopic()
			rt.Topic, rt.TopicID, rt.ErrorCode = t.Topic, t.TopicID, code
			out.Topics = append(out.Topics, rt)
		}
	case *kmsg.AlterConfigsRequest:
		out := resp.(*kmsg.AlterConfigsResponse)
		for _, res := range r.Resources {
			rr := kmsg.NewAlterConfigsResponseResource()
			rr.ResourceType, rr.ResourceName, rr.ErrorCode = res.ResourceType, res.ResourceName, code
			out.Resources = append(out.Resources, rr)
		}
	case *kmsg.ElectLeadersRequest:
		out := resp.(*kmsg.ElectLeadersResponse)
		out.ErrorCode = code
		for _, t := range r.Topics {
			rt := kmsg.NewElectLeadersResponseTopic()
			rt.Topic = t.Topic
			for _, p := range t.Partitions {
				rp := kmsg.NewElectLeadersResponseTopicPartition()
				rp.Partition, rp.ErrorCode = p, code
				rt.Partitions = append(rt.Partitions, rp)
			}
			out.Topics = append(out.Topics, rt)
		}
	case *kmsg.IncrementalAlterConfigsRequest:
		out := resp.(*kmsg.IncrementalAlterConfigsResponse)
		for _, res := range r.Resources {
			rr := kmsg.NewIncrementalAlterConfigsResponseResource()
			rr.ResourceType, rr.ResourceName, rr.ErrorCode = res.ResourceType, res.ResourceName, code
			out.Resources = append(out.Resources, rr)
		}
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
		setFirstErrorCodes(reflect.ValueOf(resp).Elem(), code, 2)
	}
	return resp
}

// setFirstErrorCodes sets code in v's ErrorCode, or else in the first
// element (added if missing) of each of its lists, depth levels down.
func setFirstErrorCodes(v reflect.Value, code int16, depth int) {
	if f := v.FieldByName("ErrorCode"); f.IsValid() && f.CanSet() {
		f.SetInt(int64(code))
		return
	}
	if depth == 0 {
		return
	}
	for i := range v.NumField() {
		if f := v.Field(i); f.Kind() == reflect.Slice && f.Type().Elem().Kind() == reflect.Struct {
			if f.Len() == 0 {
				f.Set(reflect.Append(f, reflect.New(f.Type().Elem()).Elem()))
			}
			setFirstErrorCodes(f.Index(0), code, depth-1)
		}
	}
}

// OverwriteErrorCodes sets code where an answer already built carries its
// errors: its ErrorCode if it has one, else that of every element of its
// nested lists (a commit's every partition), to any depth.
func OverwriteErrorCodes(resp kmsg.Response, code int16) {
	overwrite(reflect.ValueOf(resp).Elem(), code)
}

func overwrite(v reflect.Value, code int16) {
	if f := v.FieldByName("ErrorCode"); f.IsValid() && f.CanSet() {
		f.SetInt(int64(code))
		return
	}
	for i := range v.NumField() {
		if f := v.Field(i); f.Kind() == reflect.Slice && f.Type().Elem().Kind() == reflect.Struct {
			for j := range f.Len() {
				overwrite(f.Index(j), code)
			}
		}
	}
}
