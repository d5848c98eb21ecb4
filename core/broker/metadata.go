package broker

import (
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/cluster"
)

// Metadata v0-13. v0 lists every topic when asked for none; v1+ does so
// only for a null list. Unknown topics are created when the broker's
// auto.create.topics.enable is true and the request allows it (always
// before v4, by flag from v4, KIP-204). v10+ carries topic ids (KIP-516) and
// v12+ can ask by id alone.
func init() {
	register(3, api{
		min: 0, max: 13, serve: handleMetadata,
		acl: metadataACL{}, ops: metadataOps, addresses: listedBrokers,
	})
}

// metadataOps: v8+ answers each topic's authorized operations (not for
// one refused), and v8-10 the cluster's, when asked (KIP-430).
func metadataOps(b *Broker, r *Request, resp kmsg.Response) {
	q := r.Msg.(*kmsg.MetadataRequest)
	m, _ := resp.(*kmsg.MetadataResponse)
	if m == nil {
		return
	}
	m.AuthorizedOperations = b.clusterOps(r, q.IncludeClusterAuthorizedOperations && q.Version >= 8 && q.Version <= 10)
	for i := range m.Topics {
		t := &m.Topics[i]
		t.AuthorizedOperations = b.opsIf(r, q.IncludeTopicAuthorizedOperations && q.Version >= 8,
			t.Topic != nil && t.ErrorCode != kerr.TopicAuthorizationFailed.Code, kmsg.ACLResourceTypeTopic, derefString(t.Topic))
	}
}

// handleMetadata answers from the metadata image: the live brokers, and
// per partition its leader, leader epoch, replicas, ISR and the replicas
// that are offline (metadataImage.partition). An unknown topic is created
// when allowed (metadataImage.autoCreate).
func handleMetadata(b *Broker, r *Request) kmsg.Response {
	req := r.Msg.(*kmsg.MetadataRequest)
	resp := req.ResponseKind().(*kmsg.MetadataResponse)
	for _, br := range b.image.liveBrokers() {
		resp.Brokers = append(resp.Brokers, kmsg.MetadataResponseBroker{NodeID: br.id, Host: br.host, Port: br.port, Rack: rackField(br.rack)})
	}
	resp.ClusterID = b.clusterIDField()
	resp.ControllerID = b.controllerID()
	if req.Topics == nil || req.Version == 0 && len(req.Topics) == 0 {
		for _, name := range slices.Sorted(slices.Values(b.image.topicNames())) {
			resp.Topics = append(resp.Topics, b.describeTopic(name))
		}
		return resp
	}
	autoCreate := b.cfg.Settings.Bool("auto.create.topics.enable") && (req.Version < 4 || req.AllowAutoTopicCreation)
	for _, rt := range req.Topics {
		var it imageTopic
		ok := false
		if rt.Topic != nil {
			it, ok = b.image.topic(*rt.Topic)
		} else {
			it, ok = b.image.topicByID(rt.TopicID)
		}
		mt := kmsg.NewMetadataResponseTopic()
		mt.Topic, mt.TopicID = rt.Topic, rt.TopicID
		switch {
		case ok:
			mt = b.describeTopic(it.name)
		case rt.Topic == nil:
			mt.ErrorCode = kerr.UnknownTopicID.Code
		case validTopicName(*rt.Topic) != "":
			mt.ErrorCode = kerr.InvalidTopicException.Code
		case !autoCreate:
			mt.ErrorCode = kerr.UnknownTopicOrPartition.Code
		default:
			if mt.ErrorCode = b.image.autoCreate(*rt.Topic); mt.ErrorCode == 0 {
				mt = b.describeTopic(*rt.Topic)
			}
		}
		resp.Topics = append(resp.Topics, mt)
	}
	return resp
}

// describeTopic is a topic the image has, as Metadata describes it: a
// partition without a leader is LEADER_NOT_AVAILABLE.
func (b *Broker) describeTopic(name string) kmsg.MetadataResponseTopic {
	it, _ := b.image.topic(name)
	mt := kmsg.NewMetadataResponseTopic()
	mt.Topic, mt.TopicID = &name, it.id
	mt.IsInternal = isInternalTopic(name)
	for i := range int32(it.partitions) {
		ip, _ := b.image.partition(name, i)
		mp := kmsg.NewMetadataResponseTopicPartition()
		mp.Partition, mp.Leader, mp.LeaderEpoch = i, ip.leader, ip.leaderEpoch
		mp.Replicas, mp.ISR, mp.OfflineReplicas = ip.replicas, ip.isr, ip.offline
		if ip.leader == cluster.NoLeader {
			mp.ErrorCode = kerr.LeaderNotAvailable.Code
		}
		mt.Partitions = append(mt.Partitions, mp)
	}
	return mt
}

// metadataACL: the topics asked for or listed are those the principal
// may describe (filterMetadata).
type metadataACL struct{}

func (metadataACL) authorize(b *Broker, r *Request) (kmsg.Response, func(kmsg.Response)) {
	return nil, b.filterMetadata(r)
}

// filterMetadata lets a Metadata request ask only for topics the
// principal may describe, and answers the others
// TOPIC_AUTHORIZATION_FAILED (by id: the id, no name; by name: no id); of
// all topics it lists the describable ones. An id no topic has is
// answered UNKNOWN_TOPIC_ID by the handler.
func (b *Broker) filterMetadata(r *Request) func(kmsg.Response) {
	q := r.Msg.(*kmsg.MetadataRequest)
	describe := b.topicParts(r, kmsg.ACLOperationDescribe)
	trim, kept := split(&q.Topics, func(part any) *kerr.Error {
		t := part.(kmsg.MetadataRequestTopic)
		// A topic that would be auto-created needs CREATE on the
		// cluster or the topic (Kafka's handleTopicMetadataRequest).
		name := b.nameOf(derefString(t.Topic), t.TopicID)
		if name != "" && !b.topicExists(name) &&
			!b.may(r, check{kmsg.ACLResourceTypeCluster, cluster.ClusterResource, kmsg.ACLOperationCreate}) &&
			!b.may(r, check{kmsg.ACLResourceTypeTopic, name, kmsg.ACLOperationCreate}) {
			return kerr.TopicAuthorizationFailed
		}
		return describe(part)
	}, addTopics)
	if trim != nil && kept == 0 && q.Version == 0 {
		q.Topics = nil // v0: an empty list would ask for every topic
	}
	listed := func(resp kmsg.Response) {
		mr := resp.(*kmsg.MetadataResponse)
		mr.Topics = slices.DeleteFunc(mr.Topics, func(t kmsg.MetadataResponseTopic) bool {
			name := b.nameOf(derefString(t.Topic), t.TopicID)
			return name != "" && !b.may(r, check{kmsg.ACLResourceTypeTopic, name, kmsg.ACLOperationDescribe})
		})
	}
	return both(listed, trim)
}
