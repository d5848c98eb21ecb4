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

func handleMetadata(b *Broker, r *Request) kmsg.Response {
	req := r.Msg.(*kmsg.MetadataRequest)
	resp := req.ResponseKind().(*kmsg.MetadataResponse)
	for _, br := range b.image.liveBrokers() {
		resp.Brokers = append(resp.Brokers, kmsg.MetadataResponseBroker{NodeID: br.id, Host: br.host, Port: br.port, Rack: rackField(br.rack)})
	}
	resp.ClusterID = b.clusterIDField()
	resp.ControllerID = b.controllerID()
	if b.cl != nil {
		// The topics as the quorum's image has them, which tells of
		// partitions on other brokers.
		return b.clusterMetadata(req, resp)
	}
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
		if b.soloInternalTopic(name) != nil { // with its own partition count
			return nil
		}
		return b.topics[name]
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
		if p.offline {
			// Its only replica's log failed (storage_failure.go): no
			// leader, this broker offline, as Kafka reports it.
			mp.Leader, mp.ErrorCode = -1, kerr.LeaderNotAvailable.Code
			mp.OfflineReplicas = []int32{b.cfg.NodeID}
		}
		mt.Partitions = append(mt.Partitions, mp)
	}
	return mt
}

// clusterMetadata answers Metadata from the quorum's image: the live
// brokers, and per partition its leader, leader epoch, replicas, ISR and
// the replicas on brokers that are not live or whose log dir failed
// (offline; a broker in controlled shutdown is listed and its replicas
// are not offline, as Kafka's KRaftMetadataCache has it). An unknown topic is
// created through the controller when allowed, and reported
// LEADER_NOT_AVAILABLE until it exists, as Kafka does.
func (b *Broker) clusterMetadata(req *kmsg.MetadataRequest, resp *kmsg.MetadataResponse) kmsg.Response {
	im := b.cl.image
	describe := func(it *cluster.Topic) kmsg.MetadataResponseTopic {
		mt := kmsg.NewMetadataResponseTopic()
		name := it.Name
		mt.Topic, mt.TopicID = &name, [16]byte(it.ID)
		mt.IsInternal = isInternalTopic(name)
		for i, ip := range it.Partitions {
			mp := kmsg.NewMetadataResponseTopicPartition()
			mp.Partition, mp.Leader, mp.LeaderEpoch = int32(i), ip.Leader, ip.LeaderEpoch
			mp.Replicas, mp.ISR = slices.Clone(ip.Replicas), slices.Clone(ip.ISR)
			mp.OfflineReplicas = []int32{}
			for _, r := range ip.Replicas {
				if !im.Live(r) || im.Brokers[r].LogDirOffline || r == b.cfg.NodeID && b.topics[name].partition(int32(i)).Offline() {
					mp.OfflineReplicas = append(mp.OfflineReplicas, r)
				}
			}
			if ip.Leader == cluster.NoLeader {
				mp.ErrorCode = kerr.LeaderNotAvailable.Code
			}
			mt.Partitions = append(mt.Partitions, mp)
		}
		return mt
	}
	if req.Topics == nil || req.Version == 0 && len(req.Topics) == 0 {
		for _, name := range im.TopicNames() {
			resp.Topics = append(resp.Topics, describe(im.Topics[name]))
		}
		return resp
	}
	autoCreate := b.cfg.Settings.Bool("auto.create.topics.enable") && (req.Version < 4 || req.AllowAutoTopicCreation)
	for _, rt := range req.Topics {
		var it *cluster.Topic
		if rt.Topic != nil {
			it = im.Topics[*rt.Topic]
		} else {
			it = im.TopicByID(cluster.UUID(rt.TopicID))
		}
		if it != nil {
			resp.Topics = append(resp.Topics, describe(it))
			continue
		}
		mt := kmsg.NewMetadataResponseTopic()
		mt.Topic, mt.TopicID = rt.Topic, rt.TopicID
		switch {
		case rt.Topic == nil:
			mt.ErrorCode = kerr.UnknownTopicID.Code
		case validTopicName(*rt.Topic) != "":
			mt.ErrorCode = kerr.InvalidTopicException.Code
		case autoCreate && !isInternalTopic(*rt.Topic):
			mt.ErrorCode = kerr.LeaderNotAvailable.Code
			create := kmsg.NewPtrCreateTopicsRequest()
			create.SetVersion(4)
			ct := kmsg.NewCreateTopicsRequestTopic()
			ct.Topic, ct.NumPartitions, ct.ReplicationFactor = *rt.Topic, -1, -1
			create.Topics = append(create.Topics, ct)
			b.send(ToController, create, func(kmsg.Response) {})
		default:
			mt.ErrorCode = kerr.UnknownTopicOrPartition.Code
		}
		resp.Topics = append(resp.Topics, mt)
	}
	return resp
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
