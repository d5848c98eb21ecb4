package broker

import (
	"reflect"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Answering a request per part (authorize.go): one mechanism, split, and
// for each API a small adapter that says how a refused part (a topic, a
// group, a transactional id, a config resource) is answered. The refused
// parts never reach the handler; the trim adds them to its answer, after
// the allowed ones, as Kafka's KafkaApis merges its "unauthorized" map
// into the response.

// refuser names the error of a part the principal may not use, nil to
// let the handler have it.
type refuser[P any] func(P) *kerr.Error

// adder puts a refused part, answered with its error, into an answer.
type adder[P any] func(kmsg.Response, P, *kerr.Error)

// split keeps in *ps the parts refuse lets through (a request's slice
// stays non-nil: an empty list is not "all") and returns a trim adding
// the others to an answer, nil when none is refused, with how many parts
// were kept.
func split[P any](ps *[]P, refuse refuser[P], add adder[P]) (trim func(kmsg.Response), kept int) {
	var out []P
	var errs []*kerr.Error
	keep := (*ps)[:0:0]
	for _, p := range *ps {
		if e := refuse(p); e != nil {
			out, errs = append(out, p), append(errs, e)
		} else {
			keep = append(keep, p)
		}
	}
	if len(out) == 0 {
		return nil, len(keep)
	}
	*ps = keep
	return func(resp kmsg.Response) {
		for i, p := range out {
			add(resp, p, errs[i])
		}
	}, len(keep)
}

// partial answers r per part: with no part left for the handler, the
// answer is the refused parts alone (Kafka skips the handler's work when
// nothing is authorized); else the handler runs and trim completes it.
func partial[P any](r *Request, ps *[]P, refuse refuser[P], add adder[P]) (deny kmsg.Response, trim func(kmsg.Response)) {
	trim, kept := split(ps, refuse, add)
	if trim != nil && kept == 0 {
		return answered(r, trim), nil
	}
	return nil, trim
}

// answered is r's empty answer completed by trim.
func answered(r *Request, trim func(kmsg.Response)) kmsg.Response {
	resp := r.Msg.ResponseKind()
	resp.SetVersion(r.Msg.GetVersion())
	trim(resp)
	return resp
}

// refuseEvery refuses every part with e.
func refuseEvery[P any](e *kerr.Error) refuser[P] {
	return func(P) *kerr.Error { return e }
}

// both runs the trims that are set, in order.
func both(trims ...func(kmsg.Response)) func(kmsg.Response) {
	var set []func(kmsg.Response)
	for _, t := range trims {
		if t != nil {
			set = append(set, t)
		}
	}
	if len(set) == 0 {
		return nil
	}
	return func(resp kmsg.Response) {
		for _, t := range set {
			t(resp)
		}
	}
}

// topicRefusal refuses a topic, given by name or id, that the principal
// may not op. A topic id no topic has is let through, for the handler to
// answer UNKNOWN_TOPIC_ID: Kafka resolves ids before it authorizes.
func (b *Broker) topicRefusal(r *Request, op kmsg.ACLOperation, name string, id [16]byte) *kerr.Error {
	n := b.nameOf(name, id)
	if n == "" && name == "" && id != ([16]byte{}) {
		return nil
	}
	if b.may(r, check{kmsg.ACLResourceTypeTopic, n, op}) {
		return nil
	}
	return kerr.TopicAuthorizationFailed
}

// byName refuses what names a topic the principal may not op.
func byName[P any](b *Broker, r *Request, op kmsg.ACLOperation, name func(P) string) refuser[P] {
	return func(p P) *kerr.Error { return b.topicRefusal(r, op, name(p), [16]byte{}) }
}

// ofResource refuses ids of one resource type the principal may not op,
// with e.
func ofResource(b *Broker, r *Request, rtype kmsg.ACLResourceType, op kmsg.ACLOperation, e *kerr.Error) refuser[string] {
	return func(id string) *kerr.Error {
		if b.may(r, check{rtype, id, op}) {
			return nil
		}
		return e
	}
}

// naming are the fields that say which part an answer's item is about.
var naming = []string{"Topic", "TopicID", "Partition", "Group", "ResourceType", "ResourceName"}

// addPart answers a refused part in the answer's list field: a new item
// (kmsg's defaults) named as the part (its naming fields copied; a string
// or int32 part stored in key), with the part's error and msg, if any, as
// ErrorMessage; the part's partitions each answered alike, with -1 in
// every int64 field (Kafka's unknown offset, watermark and timestamp). An
// answer failed whole (a top-level error code) gets no part, as Kafka's
// getErrorResponse lists none.
func addPart[P any](list, key, msg string) adder[P] {
	return func(resp kmsg.Response, p P, e *kerr.Error) { appendPart(resp, list, key, msg, p, e) }
}

// appendPart is addPart on any answer or item of one (a pointer).
func appendPart(to any, list, key, msg string, part any, e *kerr.Error) {
	v := reflect.ValueOf(to).Elem()
	if ec := v.FieldByName("ErrorCode"); ec.IsValid() && ec.Int() != 0 {
		return
	}
	l := v.FieldByName(list)
	l.Set(reflect.Append(l, answerItem(l.Type().Elem(), reflect.ValueOf(part), key, msg, e.Code, false)))
}

// The adders of the answers with a list of parts.
var (
	addProduce                 = addPart[kmsg.ProduceRequestTopic]("Topics", "", "")
	addFetch                   = addPart[kmsg.FetchRequestTopic]("Topics", "", "")
	addListOffsets             = addPart[kmsg.ListOffsetsRequestTopic]("Topics", "", "")
	addOffsetForLeaderEpoch    = addPart[kmsg.OffsetForLeaderEpochRequestTopic]("Topics", "", "")
	addOffsetCommit            = addPart[kmsg.OffsetCommitRequestTopic]("Topics", "", "")
	addTxnOffsetCommit         = addPart[kmsg.TxnOffsetCommitRequestTopic]("Topics", "", "")
	addOffsetFetch             = addPart[kmsg.OffsetFetchRequestTopic]("Topics", "", "")
	addOffsetFetchGroup        = addPart[kmsg.OffsetFetchRequestGroup]("Groups", "", "")
	addOffsetDelete            = addPart[kmsg.OffsetDeleteRequestTopic]("Topics", "", "")
	addDeleteRecords           = addPart[kmsg.DeleteRecordsRequestTopic]("Topics", "", "")
	addDescribeProducers       = addPart[kmsg.DescribeProducersRequestTopic]("Topics", "", "")
	addCreateTopic             = addPart[kmsg.CreateTopicsRequestTopic]("Topics", "", "Authorization failed.")
	addCreatePartitions        = addPart[kmsg.CreatePartitionsRequestTopic]("Topics", "", "The topic authorization is failed.")
	addDeleteTopicName         = addPart[string]("Topics", "Topic", "")
	addDeleteTopic             = addPart[kmsg.DeleteTopicsRequestTopic]("Topics", "", "")
	addDescribeConfigs         = addPart[kmsg.DescribeConfigsRequestResource]("Resources", "", "")
	addIncrementalAlterConfigs = addPart[kmsg.IncrementalAlterConfigsRequestResource]("Resources", "", "")
	addAlterConfigs            = addPart[kmsg.AlterConfigsRequestResource]("Resources", "", "")
	addDescribeGroup           = addPart[string]("Groups", "Group", "")
	addDeleteGroup             = addPart[string]("Groups", "Group", "")
	addConsumerGroupDescribe   = addPart[string]("Groups", "Group", "")
	addDescribeTransaction     = addPart[string]("TransactionStates", "TransactionalID", "")
)

// answerItem builds an answer's item of type typ for a request's part.
func answerItem(typ reflect.Type, part reflect.Value, key, msg string, code int16, partition bool) reflect.Value {
	ptr := reflect.New(typ)
	if d, ok := ptr.Interface().(interface{ Default() }); ok {
		d.Default()
	}
	v := ptr.Elem()
	set := func(name string, from reflect.Value) {
		switch f := v.FieldByName(name); {
		case !f.IsValid():
		case f.Type() == from.Type():
			f.Set(from)
		case f.Kind() == reflect.Pointer && f.Type().Elem() == from.Type(): // a nullable name
			p := reflect.New(from.Type())
			p.Elem().Set(from)
			f.Set(p)
		}
	}
	if part.Kind() == reflect.Struct {
		for _, name := range naming {
			if from := part.FieldByName(name); from.IsValid() {
				set(name, from)
			}
		}
	} else {
		set(key, part)
	}
	if f := v.FieldByName("ErrorCode"); f.IsValid() { // a topic's error is its partitions'
		f.SetInt(int64(code))
	}
	if msg != "" {
		set("ErrorMessage", reflect.ValueOf(msg))
	}
	for i := range v.NumField() {
		if partition && v.Field(i).Kind() == reflect.Int64 {
			v.Field(i).SetInt(-1)
		}
	}
	if part.Kind() == reflect.Struct {
		if ps, rs := part.FieldByName("Partitions"), v.FieldByName("Partitions"); ps.IsValid() && rs.IsValid() {
			for i := range ps.Len() {
				rs.Set(reflect.Append(rs, answerItem(rs.Type().Elem(), ps.Index(i), "Partition", "", code, true)))
			}
		}
	}
	return v
}

// addOffsetFetchGroupTopic answers a refused topic of group (OffsetFetch
// v8+), unless the group failed.
func addOffsetFetchGroupTopic(group string) adder[kmsg.OffsetFetchRequestGroupTopic] {
	return func(resp kmsg.Response, t kmsg.OffsetFetchRequestGroupTopic, e *kerr.Error) {
		or := resp.(*kmsg.OffsetFetchResponse)
		for i := range or.Groups {
			if g := &or.Groups[i]; g.Group == group && g.ErrorCode == 0 {
				appendPart(g, "Topics", "", "", t, e)
				return
			}
		}
	}
}

// addCoordinator answers a refused key with Kafka's Node.noNode.
func addCoordinator(resp kmsg.Response, key string, e *kerr.Error) {
	c := kmsg.NewFindCoordinatorResponseCoordinator()
	c.Key, c.NodeID, c.Port, c.ErrorCode = key, -1, -1, e.Code
	fr := resp.(*kmsg.FindCoordinatorResponse)
	fr.Coordinators = append(fr.Coordinators, c)
}
