package broker

import (
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

// The adders, one per answer shape; partitions refused are answered
// with Kafka's "unknown" values (-1 offsets and epochs).

func addProduce(resp kmsg.Response, t kmsg.ProduceRequestTopic, e *kerr.Error) {
	rt := kmsg.NewProduceResponseTopic()
	rt.Topic, rt.TopicID = t.Topic, t.TopicID
	for _, p := range t.Partitions {
		rp := kmsg.NewProduceResponseTopicPartition()
		rp.Partition, rp.ErrorCode = p.Partition, e.Code
		rt.Partitions = append(rt.Partitions, rp)
	}
	pr := resp.(*kmsg.ProduceResponse)
	pr.Topics = append(pr.Topics, rt)
}

func addFetch(resp kmsg.Response, t kmsg.FetchRequestTopic, e *kerr.Error) {
	rt := kmsg.NewFetchResponseTopic()
	rt.Topic, rt.TopicID = t.Topic, t.TopicID
	for _, p := range t.Partitions {
		rp := kmsg.NewFetchResponseTopicPartition()
		rp.Partition, rp.ErrorCode, rp.HighWatermark = p.Partition, e.Code, -1
		rt.Partitions = append(rt.Partitions, rp)
	}
	fr := resp.(*kmsg.FetchResponse)
	fr.Topics = append(fr.Topics, rt)
}

func addListOffsets(resp kmsg.Response, t kmsg.ListOffsetsRequestTopic, e *kerr.Error) {
	rt := kmsg.NewListOffsetsResponseTopic()
	rt.Topic = t.Topic
	for _, p := range t.Partitions {
		rp := kmsg.NewListOffsetsResponseTopicPartition()
		rp.Partition, rp.ErrorCode = p.Partition, e.Code
		rt.Partitions = append(rt.Partitions, rp)
	}
	lr := resp.(*kmsg.ListOffsetsResponse)
	lr.Topics = append(lr.Topics, rt)
}

func addOffsetCommit(resp kmsg.Response, t kmsg.OffsetCommitRequestTopic, e *kerr.Error) {
	rt := kmsg.NewOffsetCommitResponseTopic()
	rt.Topic, rt.TopicID = t.Topic, t.TopicID
	for _, p := range t.Partitions {
		rt.Partitions = append(rt.Partitions, kmsg.OffsetCommitResponseTopicPartition{Partition: p.Partition, ErrorCode: e.Code})
	}
	or := resp.(*kmsg.OffsetCommitResponse)
	or.Topics = append(or.Topics, rt)
}

func addTxnOffsetCommit(resp kmsg.Response, t kmsg.TxnOffsetCommitRequestTopic, e *kerr.Error) {
	rt := kmsg.NewTxnOffsetCommitResponseTopic()
	rt.Topic = t.Topic
	for _, p := range t.Partitions {
		rt.Partitions = append(rt.Partitions, kmsg.TxnOffsetCommitResponseTopicPartition{Partition: p.Partition, ErrorCode: e.Code})
	}
	tr := resp.(*kmsg.TxnOffsetCommitResponse)
	tr.Topics = append(tr.Topics, rt)
}

// addOffsetFetch answers refused topics (Kafka's UNAUTHORIZED_PARTITION:
// offset -1) unless the group itself failed, whose answer Kafka gives
// without partitions.
func addOffsetFetch(resp kmsg.Response, t kmsg.OffsetFetchRequestTopic, e *kerr.Error) {
	or := resp.(*kmsg.OffsetFetchResponse)
	if or.ErrorCode != 0 {
		return
	}
	rt := kmsg.NewOffsetFetchResponseTopic()
	rt.Topic = t.Topic
	for _, p := range t.Partitions {
		rp := kmsg.NewOffsetFetchResponseTopicPartition()
		rp.Partition, rp.Offset, rp.ErrorCode = p, -1, e.Code
		rt.Partitions = append(rt.Partitions, rp)
	}
	or.Topics = append(or.Topics, rt)
}

func addOffsetFetchGroup(resp kmsg.Response, g kmsg.OffsetFetchRequestGroup, e *kerr.Error) {
	rg := kmsg.NewOffsetFetchResponseGroup()
	rg.Group, rg.ErrorCode = g.Group, e.Code
	or := resp.(*kmsg.OffsetFetchResponse)
	or.Groups = append(or.Groups, rg)
}

// addOffsetFetchGroupTopic answers a refused topic of group (v8+).
func addOffsetFetchGroupTopic(group string) adder[kmsg.OffsetFetchRequestGroupTopic] {
	return func(resp kmsg.Response, t kmsg.OffsetFetchRequestGroupTopic, e *kerr.Error) {
		or := resp.(*kmsg.OffsetFetchResponse)
		for i := range or.Groups {
			g := &or.Groups[i]
			if g.Group != group || g.ErrorCode != 0 {
				continue
			}
			rt := kmsg.NewOffsetFetchResponseGroupTopic()
			rt.Topic = t.Topic
			for _, p := range t.Partitions {
				rp := kmsg.NewOffsetFetchResponseGroupTopicPartition()
				rp.Partition, rp.Offset, rp.ErrorCode = p, -1, e.Code
				rt.Partitions = append(rt.Partitions, rp)
			}
			g.Topics = append(g.Topics, rt)
			return
		}
	}
}

func addOffsetDelete(resp kmsg.Response, t kmsg.OffsetDeleteRequestTopic, e *kerr.Error) {
	or := resp.(*kmsg.OffsetDeleteResponse)
	if or.ErrorCode != 0 {
		return // a group error is answered without partitions
	}
	rt := kmsg.NewOffsetDeleteResponseTopic()
	rt.Topic = t.Topic
	for _, p := range t.Partitions {
		rp := kmsg.NewOffsetDeleteResponseTopicPartition()
		rp.Partition, rp.ErrorCode = p.Partition, e.Code
		rt.Partitions = append(rt.Partitions, rp)
	}
	or.Topics = append(or.Topics, rt)
}

func addDeleteRecords(resp kmsg.Response, t kmsg.DeleteRecordsRequestTopic, e *kerr.Error) {
	rt := kmsg.NewDeleteRecordsResponseTopic()
	rt.Topic = t.Topic
	for _, p := range t.Partitions {
		rp := kmsg.NewDeleteRecordsResponseTopicPartition()
		rp.Partition, rp.LowWatermark, rp.ErrorCode = p.Partition, -1, e.Code
		rt.Partitions = append(rt.Partitions, rp)
	}
	dr := resp.(*kmsg.DeleteRecordsResponse)
	dr.Topics = append(dr.Topics, rt)
}

func addDescribeProducers(resp kmsg.Response, t kmsg.DescribeProducersRequestTopic, e *kerr.Error) {
	rt := kmsg.NewDescribeProducersResponseTopic()
	rt.Topic = t.Topic
	for _, p := range t.Partitions {
		rp := kmsg.NewDescribeProducersResponseTopicPartition()
		rp.Partition, rp.ErrorCode = p, e.Code
		rt.Partitions = append(rt.Partitions, rp)
	}
	dr := resp.(*kmsg.DescribeProducersResponse)
	dr.Topics = append(dr.Topics, rt)
}

func addOffsetForLeaderEpoch(resp kmsg.Response, t kmsg.OffsetForLeaderEpochRequestTopic, e *kerr.Error) {
	rt := kmsg.NewOffsetForLeaderEpochResponseTopic()
	rt.Topic = t.Topic
	for _, p := range t.Partitions {
		rp := kmsg.NewOffsetForLeaderEpochResponseTopicPartition()
		rp.Partition, rp.ErrorCode = p.Partition, e.Code
		rt.Partitions = append(rt.Partitions, rp)
	}
	or := resp.(*kmsg.OffsetForLeaderEpochResponse)
	or.Topics = append(or.Topics, rt)
}

func addCreateTopic(resp kmsg.Response, t kmsg.CreateTopicsRequestTopic, e *kerr.Error) {
	rt := kmsg.NewCreateTopicsResponseTopic()
	msg := "Authorization failed."
	rt.Topic, rt.ErrorCode, rt.ErrorMessage = t.Topic, e.Code, &msg
	cr := resp.(*kmsg.CreateTopicsResponse)
	cr.Topics = append(cr.Topics, rt)
}

func addCreatePartitions(resp kmsg.Response, t kmsg.CreatePartitionsRequestTopic, e *kerr.Error) {
	rt := kmsg.NewCreatePartitionsResponseTopic()
	msg := "The topic authorization is failed."
	rt.Topic, rt.ErrorCode, rt.ErrorMessage = t.Topic, e.Code, &msg
	cr := resp.(*kmsg.CreatePartitionsResponse)
	cr.Topics = append(cr.Topics, rt)
}

// addDeleteTopicName answers a topic named by a v0-5 request.
func addDeleteTopicName(resp kmsg.Response, name string, e *kerr.Error) {
	rt := kmsg.NewDeleteTopicsResponseTopic()
	rt.Topic, rt.ErrorCode = &name, e.Code
	dr := resp.(*kmsg.DeleteTopicsResponse)
	dr.Topics = append(dr.Topics, rt)
}

func addDescribeConfigs(resp kmsg.Response, res kmsg.DescribeConfigsRequestResource, e *kerr.Error) {
	rr := kmsg.NewDescribeConfigsResponseResource()
	rr.ResourceType, rr.ResourceName, rr.ErrorCode = res.ResourceType, res.ResourceName, e.Code
	dr := resp.(*kmsg.DescribeConfigsResponse)
	dr.Resources = append(dr.Resources, rr)
}

func addIncrementalAlterConfigs(resp kmsg.Response, res kmsg.IncrementalAlterConfigsRequestResource, e *kerr.Error) {
	rr := kmsg.NewIncrementalAlterConfigsResponseResource()
	rr.ResourceType, rr.ResourceName, rr.ErrorCode = res.ResourceType, res.ResourceName, e.Code
	ar := resp.(*kmsg.IncrementalAlterConfigsResponse)
	ar.Resources = append(ar.Resources, rr)
}

func addAlterConfigs(resp kmsg.Response, res kmsg.AlterConfigsRequestResource, e *kerr.Error) {
	rr := kmsg.NewAlterConfigsResponseResource()
	rr.ResourceType, rr.ResourceName, rr.ErrorCode = res.ResourceType, res.ResourceName, e.Code
	ar := resp.(*kmsg.AlterConfigsResponse)
	ar.Resources = append(ar.Resources, rr)
}

func addDescribeGroup(resp kmsg.Response, id string, e *kerr.Error) {
	g := kmsg.NewDescribeGroupsResponseGroup()
	g.Group, g.ErrorCode = id, e.Code
	dr := resp.(*kmsg.DescribeGroupsResponse)
	dr.Groups = append(dr.Groups, g)
}

func addDeleteGroup(resp kmsg.Response, id string, e *kerr.Error) {
	g := kmsg.NewDeleteGroupsResponseGroup()
	g.Group, g.ErrorCode = id, e.Code
	dr := resp.(*kmsg.DeleteGroupsResponse)
	dr.Groups = append(dr.Groups, g)
}

func addConsumerGroupDescribe(resp kmsg.Response, id string, e *kerr.Error) {
	g := kmsg.NewConsumerGroupDescribeResponseGroup()
	g.Group, g.ErrorCode = id, e.Code
	dr := resp.(*kmsg.ConsumerGroupDescribeResponse)
	dr.Groups = append(dr.Groups, g)
}

func addDescribeTransaction(resp kmsg.Response, id string, e *kerr.Error) {
	s := kmsg.NewDescribeTransactionsResponseTransactionState()
	s.TransactionalID, s.ErrorCode = id, e.Code
	dr := resp.(*kmsg.DescribeTransactionsResponse)
	dr.TransactionStates = append(dr.TransactionStates, s)
}

func addCoordinator(resp kmsg.Response, key string, e *kerr.Error) {
	c := kmsg.NewFindCoordinatorResponseCoordinator()
	c.Key, c.NodeID, c.Port, c.ErrorCode = key, -1, -1, e.Code
	fr := resp.(*kmsg.FindCoordinatorResponse)
	fr.Coordinators = append(fr.Coordinators, c)
}
