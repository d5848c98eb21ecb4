package broker

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Metadata v0-13. v0 lists every topic when asked for none; v1+ does so
// only for a null list. Unknown topics are created when the broker's
// auto.create.topics.enable is true and the request allows it (always
// before v4, by flag from v4, KIP-204). v10+ carries topic ids (KIP-516) and
// v12+ can ask by id alone.
func init() { register(3, 0, 13, handleMetadata) }

func handleMetadata(b *Broker, r *Request) kmsg.Response {
	req := r.Msg.(*kmsg.MetadataRequest)
	resp := req.ResponseKind().(*kmsg.MetadataResponse)
	resp.Brokers = []kmsg.MetadataResponseBroker{{NodeID: b.cfg.NodeID, Host: b.cfg.Host, Port: b.cfg.Port}}
	cid := b.meta.ClusterID
	resp.ClusterID = &cid
	resp.ControllerID = b.cfg.NodeID
	all := req.Topics == nil || req.Version == 0 && len(req.Topics) == 0
	if all {
		for _, name := range b.topicNames() {
			resp.Topics = append(resp.Topics, b.describeTopic(b.topics[name]))
		}
		return resp
	}
	autoCreate := b.cfg.Settings.Bool("auto.create.topics.enable") && (req.Version < 4 || req.AllowAutoTopicCreation)
	for _, rt := range req.Topics {
		var t *Topic
		if rt.Topic != nil {
			t = b.topics[*rt.Topic]
		} else {
			t = b.byID[rt.TopicID]
		}
		if t == nil && rt.Topic != nil && autoCreate {
			t = b.autoCreate(*rt.Topic)
		}
		if t == nil {
			mt := kmsg.NewMetadataResponseTopic()
			mt.Topic, mt.TopicID = rt.Topic, rt.TopicID
			mt.ErrorCode = kerr.UnknownTopicOrPartition.Code
			if rt.Topic == nil {
				mt.ErrorCode = kerr.UnknownTopicID.Code
			} else if validTopicName(*rt.Topic) != "" {
				mt.ErrorCode = kerr.InvalidTopicException.Code
			}
			resp.Topics = append(resp.Topics, mt)
			continue
		}
		resp.Topics = append(resp.Topics, b.describeTopic(t))
	}
	return resp
}

// autoCreate creates a topic with the broker's defaults, or returns nil.
func (b *Broker) autoCreate(name string) *Topic {
	if isInternalTopic(name) {
		t, _ := b.EnsureInternalTopic(name) // with its own partition count
		return t
	}
	spec := &topicSpec{name: name, partitions: -1, rf: -1}
	if b.planTopic(spec) != nil {
		return nil
	}
	t, err := b.createTopic(spec)
	if err != nil {
		b.cfg.Logf("auto-creating %s failed: %v", name, err)
		return nil
	}
	return t
}

func (b *Broker) describeTopic(t *Topic) kmsg.MetadataResponseTopic {
	mt := kmsg.NewMetadataResponseTopic()
	name := t.Name
	mt.Topic, mt.TopicID = &name, t.ID
	mt.IsInternal = isInternalTopic(name)
	for _, p := range t.Partitions {
		mp := kmsg.NewMetadataResponseTopicPartition()
		mp.Partition = p.Index
		mp.Leader = p.Leader
		mp.LeaderEpoch = p.LeaderEpoch
		mp.Replicas = p.Replicas
		mp.ISR = p.ISR
		mt.Partitions = append(mt.Partitions, mp)
	}
	return mt
}
