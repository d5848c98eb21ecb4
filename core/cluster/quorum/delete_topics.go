package quorum

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/cluster"
	"github.com/gregor-kafka/gregor/core/wire"
)

// deleteTopics deletes topics (DeleteTopics), named by name or, from v6,
// by id (KIP-516), with one RemoveTopicRecord each, in one batch; the
// response waits for it. It resolves names and ids as Kafka's
// ControllerApis.deleteTopics does: a topic given by both name and id, or
// by neither, or more than once, is INVALID_REQUEST; an unknown name is
// UNKNOWN_TOPIC_OR_PARTITION and an unknown id UNKNOWN_TOPIC_ID. Internal
// topics may be deleted, as Kafka's controller allows (only its command
// line tool refuses). The answer keeps the request's order, where Kafka
// shuffles it. delete.topic.enable is the broker's to check before it
// forwards the request.
func (c *controller) deleteTopics(id uint64, r *kmsg.DeleteTopicsRequest) {
	im := c.n.image
	targets := wire.DeleteTopicsTargets(r)
	names := map[string]int{}
	ids := map[cluster.UUID]int{}
	var busy []string
	for _, t := range targets {
		switch {
		case t.Topic != nil && t.TopicID != [16]byte{}: // refused below
		case t.Topic != nil:
			names[*t.Topic]++
			busy = append(busy, *t.Topic)
		case t.TopicID != [16]byte{}:
			ids[t.TopicID]++
			if it := im.TopicByID(t.TopicID); it != nil {
				names[it.Name]++ // a name and its id both given: a duplicate too
				busy = append(busy, it.Name)
			}
		}
	}
	if c.holdForTopics(id, r, busy) {
		return
	}
	resp := newResponse[*kmsg.DeleteTopicsResponse](r)
	var recs []cluster.Record
	var keys []string
	type span struct{ topic, rec int }
	var spans []span
	answered := map[string]bool{}
	for _, t := range targets {
		rt := kmsg.NewDeleteTopicsResponseTopic()
		rt.Topic, rt.TopicID = t.Topic, t.TopicID
		var it *cluster.Topic
		var msg string
		switch {
		case t.Topic != nil && t.TopicID != [16]byte{}:
			rt.ErrorCode, msg = kerr.InvalidRequest.Code, "You may not specify both topic name and topic id."
		case t.Topic == nil && t.TopicID == [16]byte{}:
			rt.ErrorCode, msg = kerr.InvalidRequest.Code, "Neither topic name nor id were specified."
		case t.Topic != nil:
			it = im.Topics[*t.Topic]
			if it == nil {
				rt.ErrorCode = kerr.UnknownTopicOrPartition.Code
			}
		default:
			it = im.TopicByID(t.TopicID)
			if it == nil {
				rt.ErrorCode = kerr.UnknownTopicID.Code
			}
		}
		if it != nil && (names[it.Name] > 1 || ids[it.ID] > 1) {
			if answered[it.Name] {
				continue // a duplicate, answered once
			}
			answered[it.Name] = true
			rt.ErrorCode, msg, it = kerr.InvalidRequest.Code, "Duplicate topic name or id.", nil
		}
		if msg != "" {
			rt.ErrorMessage = &msg
		}
		if it != nil {
			name := it.Name
			rt.Topic, rt.TopicID = &name, [16]byte(it.ID)
			spans = append(spans, span{len(resp.Topics), len(recs)})
			recs = append(recs, cluster.Record{RemoveTopic: &cluster.RemoveTopicRecord{Name: it.Name, ID: it.ID}})
			keys = append(keys, topicKey(it.Name))
		}
		resp.Topics = append(resp.Topics, rt)
	}
	if len(recs) == 0 {
		c.n.respond(id, resp)
		return
	}
	c.propose(recs, &pending{id: id, req: r, done: func(errs []error) kmsg.Response {
		for _, s := range spans {
			if code := recordError(errs[s.rec]); code != 0 {
				resp.Topics[s.topic].ErrorCode = code
			}
		}
		return resp
	}}, keys)
}
