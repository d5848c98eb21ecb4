package broker

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/wire"
)

// DeleteTopics v0-6; v6 can name topics by id (KIP-516). With
// delete.topic.enable false every topic gets TOPIC_DELETION_DISABLED
// (INVALID_REQUEST before v3, which has no such error), as Kafka answers.
// In a cluster the controller deletes them (KIP-590 forwarding) and every
// broker removes its logs of them when it applies the removal (replica.go).
func init() { register(20, api{min: 0, max: 6, serve: handleDeleteTopics, acl: deleteTopicsACL{}}) }

func handleDeleteTopics(b *Broker, r *Request) kmsg.Response {
	req := r.Msg.(*kmsg.DeleteTopicsRequest)
	resp := req.ResponseKind().(*kmsg.DeleteTopicsResponse)
	if !b.cfg.Settings.Bool("delete.topic.enable") {
		code := kerr.TopicDeletionDisabled.Code
		if req.Version < 3 {
			code = kerr.InvalidRequest.Code
		}
		for _, rt := range wire.DeleteTopicsTargets(req) {
			st := kmsg.NewDeleteTopicsResponseTopic()
			st.Topic, st.TopicID, st.ErrorCode = rt.Topic, rt.TopicID, code
			resp.Topics = append(resp.Topics, st)
		}
		return resp
	}
	b.limitMutations(r) // mutation_quota.go
	return b.image.byController(r, applyDeleteTopics)
}

// applyDeleteTopics is how a single broker, its own controller, serves it.
func applyDeleteTopics(b *Broker, r *Request) kmsg.Response {
	req := r.Msg.(*kmsg.DeleteTopicsRequest)
	resp := req.ResponseKind().(*kmsg.DeleteTopicsResponse)
	for _, rt := range wire.DeleteTopicsTargets(req) {
		st := kmsg.NewDeleteTopicsResponseTopic()
		st.Topic, st.TopicID = rt.Topic, rt.TopicID
		var t *Topic
		if rt.Topic != nil {
			t = b.topics[*rt.Topic]
		} else {
			t = b.byID[rt.TopicID]
		}
		switch {
		case t == nil && rt.Topic == nil:
			st.ErrorCode = kerr.UnknownTopicID.Code
		case t == nil:
			st.ErrorCode = kerr.UnknownTopicOrPartition.Code
		default:
			name := t.Name
			st.Topic, st.TopicID = &name, t.ID
			if err := b.deleteTopic(t); err != nil {
				b.cfg.Logf("deleting %s: %v", name, err)
			} else {
				b.cfg.Logf("deleted topic %s", name)
			}
		}
		resp.Topics = append(resp.Topics, st)
	}
	return resp
}

// deleteTopicsACL: each topic needs DELETE. A topic given by id
// (v6+) that the principal may not DESCRIBE is refused without its name;
// an id no topic has is left to the handler (UNKNOWN_TOPIC_ID).
type deleteTopicsACL struct{}

func (deleteTopicsACL) authorize(b *Broker, r *Request) (kmsg.Response, func(kmsg.Response)) {
	q := r.Msg.(*kmsg.DeleteTopicsRequest)
	if q.Version < 6 {
		return partial(r, &q.TopicNames, b.topicParts(r, kmsg.ACLOperationDelete), addPart("Topics", "Topic", ""))
	}
	named := func(t kmsg.DeleteTopicsRequestTopic) *string {
		if t.Topic != nil {
			return t.Topic
		}
		if n := b.nameOf("", t.TopicID); n != "" && b.may(r, check{kmsg.ACLResourceTypeTopic, n, kmsg.ACLOperationDescribe}) {
			return &n
		}
		return nil
	}
	return partial(r, &q.Topics, func(part any) *kerr.Error {
		t := part.(kmsg.DeleteTopicsRequestTopic)
		if t.Topic == nil && named(t) == nil && b.nameOf("", t.TopicID) != "" {
			return kerr.TopicAuthorizationFailed
		}
		return b.topicRefusal(r, kmsg.ACLOperationDelete, derefString(t.Topic), t.TopicID)
	}, func(resp kmsg.Response, part any, e *kerr.Error) {
		t := part.(kmsg.DeleteTopicsRequestTopic)
		t.Topic = named(t)
		addTopics(resp, t, e)
	})
}
