package broker

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/cluster"
	"github.com/gregor-kafka/gregor/core/quota"
)

// metadataImage is what the broker knows of its cluster, after Kafka's
// MetadataImage: the topics and their partitions, the brokers, the
// records every broker enforces (ACLs, client quotas, SCRAM credentials,
// group configs, finalized features), which partitions this broker leads
// and where the controller is. Every broker has one (Broker.image), so
// the handlers ask it and do not ask which kind of broker they run in:
//
//   - quorumImage (cluster.go), for a broker of a cluster (Config.Cluster
//     set), answers from the quorum's image the driver last applied
//     (ApplyMetadata), and forwards what the controller serves to it;
//   - clusterOfOne, for a single broker, answers as a cluster of one: this
//     broker is the only one, the controller, and the leader, only
//     replica and only ISR member of every partition it has; its
//     metadata file holds the records, and it serves the controller's
//     APIs itself.
//
// # Invariants
//
//   - clusterOfOne answers as quorumImage would for a cluster whose
//     only broker is this one, whose image holds this broker's topics,
//     every partition placed on it alone, and its metadata file's
//     records. So a partition a single broker does not lead is one it
//     does not have (UNKNOWN_TOPIC_OR_PARTITION), and one whose log
//     failed has no leader.
//   - The handlers that ask it have one path: no b.cl check decides
//     what the image answers.
//   - Callers must not modify what it returns (maps are the image's or
//     the metadata file's own).
type metadataImage interface {
	// topic is a topic as the metadata has it, ok false when there is
	// no such topic; topicByID finds it by id (KIP-516).
	topic(name string) (t imageTopic, ok bool)
	topicByID(id [16]byte) (t imageTopic, ok bool)
	// topicNames lists every topic, in no order.
	topicNames() []string
	// replicas are the brokers that hold a partition, ok false when the
	// partition does not exist.
	replicas(topic string, p int32) (replicas []int32, ok bool)
	// partition is a partition as Metadata describes it, ok false when
	// it does not exist.
	partition(topic string, p int32) (ip imagePartition, ok bool)
	// autoCreate creates a topic a Metadata request names
	// (auto.create.topics.enable): 0 once it exists, else the error to
	// answer. A single broker creates it at once, an internal topic with
	// its own partition count (UNKNOWN_TOPIC_OR_PARTITION when it
	// cannot); a broker of a cluster asks the controller and answers
	// LEADER_NOT_AVAILABLE until the topic exists, as Kafka does, and
	// leaves internal topics to their coordinators.
	autoCreate(name string) int16
	// leader is the broker leading a partition and its address, ok
	// false while the partition has none (or does not exist).
	leader(topic string, p int32) (id int32, host string, port int32, ok bool)
	// leads reports whether this broker serves reads and writes of p.
	leads(p *Partition) bool
	// routeError is the error for a request about a partition this
	// broker does not lead, or does not have: NOT_LEADER_OR_FOLLOWER
	// when the partition exists (the client refreshes its metadata and
	// goes to the leader), LEADER_NOT_AVAILABLE while it has no leader,
	// UNKNOWN_TOPIC_OR_PARTITION when it does not exist.
	routeError(topic string, p int32) int16
	// controller is the controller Metadata and DescribeCluster name, -1
	// when none is known.
	controller() int32
	// liveBrokers are the brokers a client is told of, by id.
	liveBrokers() []imageBroker
	// endpoint is the address of another broker on a listener, ok false
	// for a broker the metadata does not know.
	endpoint(id int32, listener string) (host string, port int32, ok bool)
	// The records every broker reads. features' epoch is the metadata
	// offset in a cluster (as KRaft brokers report it), the count of
	// changes on a single broker.
	acls() map[string]*cluster.ACL
	quotas() quota.Quotas
	scram() map[string]*cluster.ScramCredential
	groupConfigs(id string) map[string]string
	features() (levels map[string]int16, epoch int64)
	// producerID hands the transaction coordinator a producer id: a
	// single broker takes it from its own blocks (nextProducerID), a
	// broker of a cluster from the block the controller gave it, where
	// an empty block asks for the next and fails this once (the
	// coordinator answers COORDINATOR_NOT_AVAILABLE and the client
	// retries).
	producerID() (int64, error)
	// initProducerID answers an idempotent producer's InitProducerId
	// with a producer id: a single broker at once (KAFKA_STORAGE_ERROR
	// when its metadata file cannot record a new block), a broker of a
	// cluster once it has a block from the controller (nil: later).
	initProducerID(r Request, resp *kmsg.InitProducerIDResponse) kmsg.Response
	// byController serves a request that only the controller serves
	// (KIP-590: the admin APIs that change the metadata, wire.Forwardable):
	// a single broker is its own controller and answers it with apply;
	// a broker of a cluster gets one only in an Envelope, as the active
	// controller's node (serve forwards it from every other broker
	// before it is authorized, envelope.go), and hands it to the quorum
	// controller, answering later (nil).
	byController(r *Request, apply func(*Broker, *Request) kmsg.Response) kmsg.Response
	// coordinatorHere reports whether this broker is the coordinator of
	// the keys that hash to partition p of an internal topic: a single
	// broker always is (it is the only broker; an offline partition makes
	// its coordinator unavailable, not another broker's), a broker of a
	// cluster when it leads the partition (Broker.coordinates).
	coordinatorHere(topic string, p int32) bool
	// localInternalTopic creates an internal topic a single broker does
	// not have yet, at once (replication factor 1, on itself), before a
	// coordinator looks up, writes or commits through it. A broker of a
	// cluster leaves it to internalTopic, which asks the controller: a
	// write before the topic exists finds no partition it coordinates.
	localInternalTopic(name string) error
	// internalTopic makes sure an internal topic exists and returns its
	// partition count; a broker of a cluster asks the controller for a
	// missing one and returns errInternalCreating until its metadata has
	// the topic.
	internalTopic(name string) (int32, error)
}

// imageTopic is a topic as the metadata has it.
type imageTopic struct {
	name       string
	id         [16]byte
	partitions int
	configs    map[string]string // overrides only
}

// imagePartition is a partition as Metadata describes it: its leader
// (cluster.NoLeader for none), leader epoch, replicas, ISR and the
// replicas that are offline (on a broker that is not live or whose log
// dir failed).
type imagePartition struct {
	leader, leaderEpoch    int32
	replicas, isr, offline []int32
}

// imageBroker is a broker as Metadata and DescribeCluster describe it.
type imageBroker struct {
	id   int32
	host string
	port int32
	rack string
}

// clusterOfOne is the metadata image of a single broker (metadataImage).
type clusterOfOne struct{ b *Broker }

func (o clusterOfOne) topic(name string) (imageTopic, bool) {
	return localTopic(o.b.topics[name])
}

func (o clusterOfOne) topicByID(id [16]byte) (imageTopic, bool) {
	return localTopic(o.b.byID[id])
}

// localTopic describes a topic of this broker's; ok false for nil.
func localTopic(t *Topic) (imageTopic, bool) {
	if t == nil {
		return imageTopic{}, false
	}
	return imageTopic{name: t.Name, id: t.ID, partitions: len(t.Partitions), configs: t.Configs}, true
}

func (o clusterOfOne) topicNames() []string {
	names := make([]string, 0, len(o.b.topics))
	//purity:unordered callers sort
	for name := range o.b.topics {
		names = append(names, name)
	}
	return names
}

func (o clusterOfOne) replicas(topic string, p int32) ([]int32, bool) {
	if o.b.topics[topic].partition(p) == nil {
		return nil, false
	}
	return []int32{o.b.cfg.NodeID}, true
}

// partition: a partition whose log failed (storage_failure.go) has no
// leader and this broker offline, as Kafka reports it.
func (o clusterOfOne) partition(topic string, p int32) (imagePartition, bool) {
	part := o.b.topics[topic].partition(p)
	if part == nil {
		return imagePartition{}, false
	}
	ip := imagePartition{leader: part.Leader, leaderEpoch: part.LeaderEpoch, replicas: part.Replicas, isr: part.ISR}
	if part.offline {
		ip.leader, ip.offline = cluster.NoLeader, []int32{o.b.cfg.NodeID}
	}
	return ip, true
}

func (o clusterOfOne) autoCreate(name string) int16 {
	b := o.b
	if isInternalTopic(name) {
		if o.localInternalTopic(name) != nil {
			return kerr.UnknownTopicOrPartition.Code
		}
		return 0
	}
	spec := &topicSpec{name: name, partitions: -1, rf: -1}
	if b.planTopic(spec) != nil {
		return kerr.UnknownTopicOrPartition.Code
	}
	if _, err := b.createTopic(spec); err != nil {
		b.cfg.Logf("auto-creating %s failed: %v", name, err)
		return kerr.UnknownTopicOrPartition.Code
	}
	return 0
}

// leader: a single broker leads each of its partitions, except one whose
// log failed (storage_failure.go), which has no leader until a restart,
// as a cluster's controller would take the leadership from a replica
// whose log dir failed.
func (o clusterOfOne) leader(topic string, p int32) (int32, string, int32, bool) {
	b := o.b
	part := b.topics[topic].partition(p)
	if part == nil || part.Leader != b.cfg.NodeID || part.offline {
		return 0, "", 0, false
	}
	return b.cfg.NodeID, b.cfg.Host, b.cfg.Port, true
}

func (clusterOfOne) leads(*Partition) bool { return true }

// routeError: a single broker leads every partition it has, so a
// partition it does not lead is one that does not exist.
func (clusterOfOne) routeError(string, int32) int16 { return kerr.UnknownTopicOrPartition.Code }

func (o clusterOfOne) controller() int32 { return o.b.cfg.NodeID }

func (o clusterOfOne) liveBrokers() []imageBroker {
	b := o.b
	return []imageBroker{{id: b.cfg.NodeID, host: b.cfg.Host, port: b.cfg.Port, rack: b.ownRack()}}
}

func (clusterOfOne) endpoint(int32, string) (string, int32, bool) { return "", 0, false }

func (o clusterOfOne) acls() map[string]*cluster.ACL { return o.b.meta.ACLs }

func (o clusterOfOne) quotas() quota.Quotas { return o.b.meta.Quotas }

func (o clusterOfOne) scram() map[string]*cluster.ScramCredential { return o.b.meta.Scram }

func (o clusterOfOne) groupConfigs(id string) map[string]string { return o.b.meta.GroupConfigs[id] }

func (o clusterOfOne) features() (map[string]int16, int64) {
	return o.b.meta.Features, o.b.meta.FeaturesEpoch
}

func (o clusterOfOne) producerID() (int64, error) { return o.b.nextProducerID() }

func (o clusterOfOne) initProducerID(_ Request, resp *kmsg.InitProducerIDResponse) kmsg.Response {
	id, err := o.b.nextProducerID()
	if err != nil {
		o.b.cfg.Logf("allocating a producer id: %v", err)
		resp.ErrorCode = kerr.KafkaStorageError.Code
		return resp
	}
	resp.ProducerID, resp.ProducerEpoch = id, 0
	return resp
}

func (clusterOfOne) coordinatorHere(string, int32) bool { return true }

func (o clusterOfOne) byController(r *Request, apply func(*Broker, *Request) kmsg.Response) kmsg.Response {
	return apply(o.b, r)
}

// byController is the serve of an API only the controller serves
// (metadataImage.byController): apply is how a single broker, its own
// controller, serves it.
func byController(apply func(*Broker, *Request) kmsg.Response) func(*Broker, *Request) kmsg.Response {
	return func(b *Broker, r *Request) kmsg.Response { return b.image.byController(r, apply) }
}
