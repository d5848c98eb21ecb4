package broker

import (
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"maps"
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/gregor-kafka/gregor/core/cluster"
	"github.com/gregor-kafka/gregor/core/config"
)

// topicSpec is a topic to create, as CreateTopics or auto-creation asks.
type topicSpec struct {
	name       string
	partitions int32 // -1: num.partitions
	rf         int16 // -1: default.replication.factor
	assignment [][]int32
	configs    map[string]string
}

// kafkaError is a Kafka error code with its message.
type kafkaError struct {
	code int16
	msg  string
}

func errorf(e *kerr.Error, format string, args ...any) *kafkaError {
	return &kafkaError{e.Code, fmt.Sprintf(format, args...)}
}

func (e *kafkaError) message() *string {
	if e == nil || e.msg == "" {
		return nil
	}
	return &e.msg
}

func (e *kafkaError) errCode() int16 {
	if e == nil {
		return 0
	}
	return e.code
}

// MaxPartitions bounds a topic's partition count (cluster.MaxPartitions).
const MaxPartitions = cluster.MaxPartitions

// brokers lists the live brokers' ids; with one broker, just this one.
func (b *Broker) brokers() []int32 { return []int32{b.cfg.NodeID} }

// planTopic validates a spec and fills in its defaults and replica
// assignment, without creating anything.
func (b *Broker) planTopic(s *topicSpec) *kafkaError {
	if why := validTopicName(s.name); why != "" {
		return errorf(kerr.InvalidTopicException, "%s", why)
	}
	if s.name == cluster.MetadataTopic {
		return errorf(kerr.TopicAuthorizationFailed, "%s is the metadata quorum's log, not a topic", s.name)
	}
	if b.topics[s.name] != nil {
		return errorf(kerr.TopicAlreadyExists, "topic %q already exists", s.name)
	}
	for _, k := range slices.Sorted(maps.Keys(s.configs)) { // the first bad one is reported
		if err := config.CheckTopic(k, s.configs[k]); err != nil {
			return errorf(kerr.InvalidConfig, "%v", err)
		}
	}
	if len(s.assignment) > MaxPartitions {
		return errorf(kerr.InvalidPartitions, "more than %d partitions", MaxPartitions)
	}
	if len(s.assignment) > 0 {
		if s.partitions != -1 || s.rf != -1 {
			return errorf(kerr.InvalidRequest, "both a replica assignment and partitions/replication factor were given")
		}
		s.partitions, s.rf = int32(len(s.assignment)), int16(len(s.assignment[0]))
		for i, reps := range s.assignment {
			if ke := b.checkReplicas(reps, int(s.rf)); ke != nil {
				ke.msg = fmt.Sprintf("partition %d: %s", i, ke.msg)
				return ke
			}
		}
		return nil
	}
	if s.partitions == -1 {
		s.partitions = int32(b.cfg.Settings.Int64("num.partitions"))
	}
	if s.rf == -1 {
		s.rf = int16(b.cfg.Settings.Int64("default.replication.factor"))
	}
	if s.partitions <= 0 || s.partitions > MaxPartitions {
		return errorf(kerr.InvalidPartitions, "number of partitions must be between 1 and %d", MaxPartitions)
	}
	if s.rf <= 0 {
		return errorf(kerr.InvalidReplicationFactor, "replication factor must be larger than 0")
	}
	if n := len(b.brokers()); int(s.rf) > n {
		return errorf(kerr.InvalidReplicationFactor, "replication factor: %d larger than available brokers: %d", s.rf, n)
	}
	s.assignment = Place(b.brokers(), 0, 0, int(s.partitions), int(s.rf))
	return nil
}

// checkReplicas validates one partition's explicit replica list.
func (b *Broker) checkReplicas(reps []int32, rf int) *kafkaError {
	if len(reps) == 0 || len(reps) != rf {
		return errorf(kerr.InvalidReplicaAssignment, "every partition needs the same, non-zero number of replicas")
	}
	seen := map[int32]bool{}
	for _, r := range reps {
		if seen[r] {
			return errorf(kerr.InvalidReplicaAssignment, "duplicate replica %d", r)
		}
		seen[r] = true
		known := false
		for _, id := range b.brokers() {
			known = known || id == r
		}
		if !known {
			return errorf(kerr.BrokerNotAvailable, "replica %d is not a live broker", r)
		}
	}
	return nil
}

// Place is the cluster's replica placement (cluster.Place): partition i's
// j-th replica on broker (start+i+j) mod n.
func Place(brokers []int32, start, first, partitions, rf int) [][]int32 {
	return cluster.Place(brokers, start, first, partitions, rf)
}

// createTopic creates a planned topic.
func (b *Broker) createTopic(s *topicSpec) (*Topic, error) {
	rec := &topicRecord{Name: s.name, ID: b.newTopicID(), Configs: s.configs, Replicas: s.assignment}
	b.meta.Topics[s.name] = rec
	if err := b.openTopic(rec, b.now); err != nil {
		return nil, err
	}
	if err := b.saveMetadata(); err != nil {
		return nil, err
	}
	b.cfg.Logf("created topic %s with %d partitions (id %s)", s.name, len(s.assignment), encodeID(rec.ID))
	return b.topics[s.name], nil
}

func (b *Broker) newTopicID() [16]byte {
	for {
		var id [16]byte
		binary.BigEndian.PutUint64(id[:8], b.cfg.Rand.Uint64())
		binary.BigEndian.PutUint64(id[8:], b.cfg.Rand.Uint64())
		if id != ([16]byte{}) && b.byID[id] == nil {
			return id
		}
	}
}

func newClusterID(b *Broker) string {
	var id [16]byte
	binary.BigEndian.PutUint64(id[:8], b.cfg.Rand.Uint64())
	binary.BigEndian.PutUint64(id[8:], b.cfg.Rand.Uint64())
	return encodeID(id)
}

// encodeID renders a UUID as Kafka does: URL-safe base64 without padding.
func encodeID(id [16]byte) string { return base64.RawURLEncoding.EncodeToString(id[:]) }
