package cluster

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
)

// NoLeader is the leader id of a partition that has none (offline), as in
// Kafka's metadata.
const NoLeader int32 = -1

// MetadataTopic is the metadata quorum's log (KRaft's __cluster_metadata,
// kept in the partition directory __cluster_metadata-0). It is not a
// topic clients can create: Kafka refuses it with TOPIC_AUTHORIZATION_FAILED
// (ControllerApis.createTopics), and here its directory would collide with
// the quorum's.
const MetadataTopic = "__cluster_metadata"

// NoLeaderChange in a PartitionChange leaves the leader as it is (Kafka's
// PartitionChangeRecord uses the same -2).
const NoLeaderChange int32 = -2

// UUID is a Kafka Uuid (topic ids, broker incarnation ids). It encodes in
// JSON as Kafka prints it: URL-safe base64 without padding.
type UUID [16]byte

// MarshalText implements encoding.TextMarshaler.
func (u UUID) MarshalText() ([]byte, error) {
	return []byte(base64.RawURLEncoding.EncodeToString(u[:])), nil
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (u *UUID) UnmarshalText(b []byte) error {
	n, err := base64.RawURLEncoding.Decode(u[:], b)
	if err != nil || n != len(u) || base64.RawURLEncoding.EncodedLen(len(u)) != len(b) {
		return fmt.Errorf("%w: bad uuid %q", ErrCorrupt, b)
	}
	return nil
}

func (u UUID) String() string { s, _ := u.MarshalText(); return string(s) }

// RegisterBroker is KRaft's RegisterBrokerRecord (KIP-631). The broker's
// epoch is not in the record: it is the raft index of the entry holding it,
// as Kafka uses the record's offset, so every replica derives the same one.
// A new registration replaces an old one and always starts fenced.
type RegisterBroker struct {
	ID            int32  `json:"id"`
	IncarnationID UUID   `json:"incarnation"`
	Host          string `json:"host,omitempty"`
	Port          int32  `json:"port,omitempty"`
	Rack          string `json:"rack,omitempty"`
	// Endpoints are every listener of the broker; Host and Port repeat
	// the first, so records written before listeners read the same.
	Endpoints []Endpoint `json:"endpoints,omitempty"`
}

// FenceBroker fences a broker registration (session expired, or asked
// for); it applies only to the registration with the given epoch.
type FenceBroker struct {
	ID    int32 `json:"id"`
	Epoch int64 `json:"epoch"`
}

// UnfenceBroker unfences a caught-up broker registration with the epoch.
type UnfenceBroker struct {
	ID    int32 `json:"id"`
	Epoch int64 `json:"epoch"`
}

// BrokerChange is Kafka's BrokerRegistrationChangeRecord for the broker
// registration with the given epoch: InControlledShutdown puts it in
// controlled shutdown (KIP-631, metadata.version 3.3's
// InControlledShutdown), LogDirOffline records that its log dir failed
// (KIP-858's offline directories; a Gregor broker has one). Each flag only
// ever goes from false to true within a registration: a new registration
// starts without them.
type BrokerChange struct {
	ID                   int32 `json:"id"`
	Epoch                int64 `json:"epoch"`
	InControlledShutdown bool  `json:"in_controlled_shutdown,omitempty"`
	LogDirOffline        bool  `json:"log_dir_offline,omitempty"`
}

// UnregisterBroker removes a broker (KIP-631's UnregisterBroker).
type UnregisterBroker struct {
	ID    int32 `json:"id"`
	Epoch int64 `json:"epoch"`
}

// ClusterIDRecord fixes the cluster id (KIP-78), which every broker of the
// cluster reports in Metadata and DescribeCluster and sends when it
// registers. Kafka formats the id into each node's meta.properties before
// the first start (kafka-storage format) and the controller refuses a
// broker formatted with another one (INCONSISTENT_CLUSTER_ID). Gregor has
// no format step, so the first active controller writes the id into the
// metadata log, which is the storage the whole cluster shares; brokers
// adopt it from the image and keep it with their data. It applies only
// while the image has none: the first one committed is the cluster's for
// good.
type ClusterIDRecord struct {
	ID string `json:"id"`
}

// TopicRecord creates a topic with no partitions yet.
type TopicRecord struct {
	Name string `json:"name"`
	ID   UUID   `json:"id"`
}

// RemoveTopicRecord deletes a topic with its partitions and configs
// (KRaft's RemoveTopicRecord; DeleteTopics). It names the topic by id, so a
// removal decided before the topic was deleted and created again under the
// same name changes nothing.
type RemoveTopicRecord struct {
	// Name is for whoever reads the log; the id decides.
	Name string `json:"name"`
	ID   UUID   `json:"id"`
}

// PartitionRecord creates one partition of an existing topic. Partitions
// are created in order, by CreateTopics and later by CreatePartitions; one
// applies only if it is the topic's next partition.
type PartitionRecord struct {
	Topic          string  `json:"topic"`
	Partition      int32   `json:"partition"`
	Replicas       []int32 `json:"replicas"`
	ISR            []int32 `json:"isr"`
	Leader         int32   `json:"leader"`
	LeaderEpoch    int32   `json:"leader_epoch"`
	PartitionEpoch int32   `json:"partition_epoch"`
}

// PartitionChange is KRaft's PartitionChangeRecord with a compare-and-set
// guard: it applies only while the partition is still at ExpectEpoch, so a
// change computed from a stale view (a previous controller, a duplicate)
// is rejected by every replica alike. Applying it bumps the partition
// epoch; changing the leader (to NoLeader too) also bumps the leader epoch
// (KIP-101/279 use it to fence and truncate).
type PartitionChange struct {
	Topic       string `json:"topic"`
	Partition   int32  `json:"partition"`
	ExpectEpoch int32  `json:"expect_partition_epoch"`
	// Leader is the new leader, NoLeader, or NoLeaderChange.
	Leader int32 `json:"leader"`
	// ISR is the new ISR; nil keeps it.
	ISR []int32 `json:"isr,omitempty"`
	// Unclean marks an unclean election: the leader was not in the ISR,
	// and whatever only the old ISR held may be lost.
	Unclean bool `json:"unclean,omitempty"`
	// Preferred marks a preferred-leader election: leadership goes back
	// to the first replica (auto.leader.rebalance.enable).
	Preferred bool `json:"preferred,omitempty"`
	// Recovery sets the leader recovery state (KIP-704): 0 keeps it,
	// RecoveryRecovering or RecoveryRecovered set it.
	Recovery int8 `json:"recovery,omitempty"`
	// Reassign, when set, replaces the replicas and the reassignment in
	// progress (KIP-455; reassign.go).
	Reassign *Reassignment `json:"reassign,omitempty"`
}

// Reassignment is the replica set a PartitionChange writes: Replicas in
// full, and of them the ones being added and removed (both empty once no
// reassignment is in progress).
type Reassignment struct {
	Replicas []int32 `json:"replicas"`
	Adding   []int32 `json:"adding,omitempty"`
	Removing []int32 `json:"removing,omitempty"`
}

// Leader recovery states for PartitionChange.Recovery.
const (
	RecoveryRecovering int8 = 1
	RecoveryRecovered  int8 = 2
)

// ConfigRecord sets (Value non-nil) or deletes a topic config; an empty
// Topic is the cluster-wide default. A non-empty Group makes it a group
// config instead (resource type GROUP, KIP-848 / KIP-932; Topic empty).
type ConfigRecord struct {
	Topic string  `json:"topic,omitempty"`
	Group string  `json:"group,omitempty"`
	Name  string  `json:"name"`
	Value *string `json:"value,omitempty"`
}

// ClientQuotaRecord sets (Value non-nil) or removes one client quota of
// an entity (KRaft's ClientQuotaRecord; AlterClientQuotas, KIP-546).
// Entity is the entity's canonical key (quota.Entity.Key).
type ClientQuotaRecord struct {
	Entity string   `json:"entity"`
	Key    string   `json:"key"`
	Value  *float64 `json:"value,omitempty"`
}

// ProducerIDsBlock hands a block of producer ids to a broker (KIP-730). It
// applies only if Start is the next unallocated id.
type ProducerIDsBlock struct {
	BrokerID    int32 `json:"broker"`
	BrokerEpoch int64 `json:"broker_epoch"`
	Start       int64 `json:"start"`
	Len         int32 `json:"len"`
}

// Record is one metadata record: exactly one field is set.
type Record struct {
	ClusterID        *ClusterIDRecord   `json:"cluster_id,omitempty"`
	RegisterBroker   *RegisterBroker    `json:"register_broker,omitempty"`
	FenceBroker      *FenceBroker       `json:"fence_broker,omitempty"`
	UnfenceBroker    *UnfenceBroker     `json:"unfence_broker,omitempty"`
	BrokerChange     *BrokerChange      `json:"broker_change,omitempty"`
	UnregisterBroker *UnregisterBroker  `json:"unregister_broker,omitempty"`
	Topic            *TopicRecord       `json:"topic,omitempty"`
	RemoveTopic      *RemoveTopicRecord `json:"remove_topic,omitempty"`
	Partition        *PartitionRecord   `json:"partition,omitempty"`
	PartitionChange  *PartitionChange   `json:"partition_change,omitempty"`
	Config           *ConfigRecord      `json:"config,omitempty"`
	ProducerIDs      *ProducerIDsBlock  `json:"producer_ids,omitempty"`
	ClientQuota      *ClientQuotaRecord `json:"client_quota,omitempty"`
	// ScramCredential and RemoveScram are the SCRAM credential records
	// (scram.go).
	ScramCredential *ScramCredential       `json:"scram_credential,omitempty"`
	RemoveScram     *RemoveScramCredential `json:"remove_scram_credential,omitempty"`
	// ACL and RemoveACL are the ACL records (acl.go).
	ACL       *ACL       `json:"acl,omitempty"`
	RemoveACL *RemoveACL `json:"remove_acl,omitempty"`
	// FeatureLevel finalizes a feature's level (features.go).
	FeatureLevel *FeatureLevelRecord `json:"feature_level,omitempty"`
}

// Count is how many of the record's kinds are set; a valid record has one.
func (r *Record) Count() int {
	n := 0
	for _, set := range []bool{r.ClusterID != nil, r.RegisterBroker != nil, r.FenceBroker != nil,
		r.UnfenceBroker != nil, r.BrokerChange != nil, r.UnregisterBroker != nil, r.Topic != nil, r.RemoveTopic != nil,
		r.Partition != nil, r.PartitionChange != nil, r.Config != nil, r.ProducerIDs != nil, r.ClientQuota != nil,
		r.ScramCredential != nil, r.RemoveScram != nil, r.ACL != nil, r.RemoveACL != nil, r.FeatureLevel != nil} {
		if set {
			n++
		}
	}
	return n
}

// Batch is the payload of one raft entry: records applied together, in
// order. Proposer and Seq let the proposing controller match the committed
// entry to the requests waiting for it; they do not affect the image.
type Batch struct {
	Proposer uint64   `json:"proposer,omitempty"`
	Seq      uint64   `json:"seq,omitempty"`
	Records  []Record `json:"records"`
}

// batchMagic starts every encoded batch, so a raft entry that is not a
// metadata batch (or a future encoding) is recognised.
const batchMagic = 'M'

// EncodeBatch encodes a batch for a raft entry: a magic byte, then JSON.
// JSON keeps entries readable in lessons and snapshots diffable; the
// encoding is deterministic (struct fields in order, map keys sorted).
func EncodeBatch(b *Batch) []byte {
	data, err := json.Marshal(b)
	if err != nil {
		panic(fmt.Sprintf("cluster: encoding batch %+v: %v", b, err))
	}
	return append([]byte{batchMagic}, data...)
}

// DecodeBatch decodes EncodeBatch's output. Every record must have exactly
// one field set.
func DecodeBatch(data []byte) (*Batch, error) {
	if len(data) == 0 || data[0] != batchMagic {
		return nil, fmt.Errorf("%w: batch without magic byte", ErrCorrupt)
	}
	var b Batch
	if err := json.Unmarshal(data[1:], &b); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	for i := range b.Records {
		if n := b.Records[i].Count(); n != 1 {
			return nil, fmt.Errorf("%w: record %d has %d kinds", ErrCorrupt, i, n)
		}
	}
	return &b, nil
}

// Sentinel errors.
var (
	// ErrCorrupt is a batch, snapshot or stored file that does not decode.
	ErrCorrupt = errors.New("cluster: corrupt metadata")
	// ErrStale is a record whose guard (epoch, expected state) no longer
	// holds; the image skipped it.
	ErrStale = errors.New("cluster: stale record")
	// ErrUnknown is a record about a broker, topic or partition that does
	// not exist.
	ErrUnknown = errors.New("cluster: unknown broker, topic or partition")
	// ErrExists is a record creating something that exists already.
	ErrExists = errors.New("cluster: already exists")
	// ErrInvalid is a record that is malformed (empty ISR, leader outside
	// the replicas...).
	ErrInvalid = errors.New("cluster: invalid record")
)
