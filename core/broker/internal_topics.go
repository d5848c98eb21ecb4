package broker

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/gregor-kafka/gregor/core/coordinator"
	"github.com/gregor-kafka/gregor/core/describe"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/group"
	"github.com/gregor-kafka/gregor/core/record"
	"github.com/gregor-kafka/gregor/core/share"
)

// Kafka's internal topics (Topic.isInternal), reported IsInternal in
// Metadata. The coordinators that use them create them on the first
// lookup, with offsets.topic.num.partitions or
// transaction.state.log.num.partitions partitions: on a single broker at
// once with replication factor 1; in a cluster through the controller,
// with offsets.topic.replication.factor or
// transaction.state.log.replication.factor replicas (refused while fewer
// brokers are alive, as Kafka refuses it), and lookups answer
// COORDINATOR_NOT_AVAILABLE until the topic is in the metadata.
//
// A partition's coordinator is its leader: it loads the groups or
// transactions of the partition when it becomes leader and unloads them
// when it stops (coordinators.go).
const (
	OffsetsTopic          = group.Topic
	TransactionStateTopic = "__transaction_state"
)

// ErrNoInternalPartition is returned when an internal topic or partition
// does not exist here, or this broker does not lead it.
var ErrNoInternalPartition = errors.New("broker: no such internal topic partition")

// errInternalCreating is returned while the controller creates an
// internal topic.
var errInternalCreating = errors.New("broker: internal topic being created")

// isInternalTopic reports whether name is one of Kafka's internal topics.
func isInternalTopic(name string) bool {
	return name == OffsetsTopic || name == TransactionStateTopic || name == share.StateTopic
}

// internalTopicConfigs are the internal topics' overrides, Kafka's:
// compacted (the latest offset commit, group or transaction record of
// each key stays; a coordinator's load reads no more than that), with
// segments of offsets.topic.segment.bytes or
// transaction.state.log.segment.bytes (100 MiB by default).
func (b *Broker) internalTopicConfigs(name string) map[string]string {
	s := b.cfg.Settings
	c := map[string]string{"cleanup.policy": "compact", "segment.bytes": strconv.FormatInt(s.Int64("offsets.topic.segment.bytes"), 10)}
	if name == TransactionStateTopic {
		c["segment.bytes"] = strconv.FormatInt(s.Int64("transaction.state.log.segment.bytes"), 10)
		c["min.insync.replicas"] = strconv.FormatInt(s.Int64("transaction.state.log.min.isr"), 10)
	}
	return c
}

// internalCompacted compacts an internal topic created by a Gregor that
// could not (kept whole with retention.ms=-1 and no cleanup.policy), as
// Kafka always has; configs is returned, changed in place.
func internalCompacted(name string, configs map[string]string) map[string]string {
	if _, set := configs["cleanup.policy"]; isInternalTopic(name) && !set {
		configs["cleanup.policy"] = "compact"
	}
	return configs
}

// internalShape is an internal topic's partition count and replication
// factor as the settings give them.
func (b *Broker) internalShape(name string) (partitions int32, rf int16, err error) {
	s := b.cfg.Settings
	switch name {
	case OffsetsTopic:
		return int32(s.Int64("offsets.topic.num.partitions")), int16(s.Int64("offsets.topic.replication.factor")), nil
	case TransactionStateTopic:
		return int32(s.Int64("transaction.state.log.num.partitions")), int16(s.Int64("transaction.state.log.replication.factor")), nil
	case share.StateTopic:
		return int32(s.Int64("share.coordinator.state.topic.num.partitions")), int16(s.Int64("share.coordinator.state.topic.replication.factor")), nil
	}
	return 0, 0, fmt.Errorf("%w: %s is not an internal topic", ErrNoInternalPartition, name)
}

// How each image makes sure an internal topic exists
// (metadataImage.localInternalTopic, internalTopic): a single broker
// creates it itself, a broker of a cluster asks the controller.

func (o clusterOfOne) localInternalTopic(name string) error {
	b := o.b
	if b.topics[name] != nil {
		return nil
	}
	n, _, err := b.internalShape(name)
	if err != nil {
		return err
	}
	spec := &topicSpec{name: name, partitions: n, rf: 1, configs: b.internalTopicConfigs(name)}
	spec.assignment = Place(b.brokers(), 0, 0, int(n), 1)
	_, err = b.createTopic(spec)
	return err
}

func (o clusterOfOne) internalTopic(name string) (int32, error) {
	if err := o.localInternalTopic(name); err != nil {
		return 0, err
	}
	return int32(len(o.b.topics[name].Partitions)), nil
}

func (quorumImage) localInternalTopic(string) error { return nil }

func (q quorumImage) internalTopic(name string) (int32, error) {
	b := q.b
	if t, ok := q.topic(name); ok {
		return int32(t.partitions), nil
	}
	if b.cl.creating[name] {
		return 0, errInternalCreating
	}
	n, rf, err := b.internalShape(name)
	if err != nil {
		return 0, err
	}
	b.cl.creating[name] = true
	req := kmsg.NewPtrCreateTopicsRequest()
	req.TimeoutMillis = 30000
	t := kmsg.NewCreateTopicsRequestTopic()
	t.Topic, t.NumPartitions, t.ReplicationFactor = name, n, rf
	configs := b.internalTopicConfigs(name)
	for _, k := range slices.Sorted(maps.Keys(configs)) {
		c := kmsg.NewCreateTopicsRequestTopicConfig()
		c.Name, c.Value = k, kmsg.StringPtr(configs[k])
		t.Configs = append(t.Configs, c)
	}
	req.Topics = append(req.Topics, t)
	b.cfg.Logf("asking the controller to create %s (%d partitions, replication factor %d)", name, n, rf)
	b.send(ToController, req, func(r kmsg.Response) {
		b.cl.creating[name] = false
		if resp, _ := r.(*kmsg.CreateTopicsResponse); resp != nil && len(resp.Topics) == 1 {
			if code := resp.Topics[0].ErrorCode; code != 0 && code != kerr.TopicAlreadyExists.Code {
				b.cfg.Logf("creating %s: %s", name, describe.ErrorName(code))
			}
		}
	})
	return 0, errInternalCreating
}

// internalLeader is the broker leading partition p of an internal topic:
// the coordinator of the keys that hash there.
func (b *Broker) internalLeader(name string, p int32) (id int32, host string, port int32, ok bool) {
	return b.image.leader(name, p)
}

// coordinates reports whether this broker leads partition p of an
// internal topic, and so serves the groups or transactions stored there.
func (b *Broker) coordinates(name string, p int32) bool {
	part := b.topics[name].partition(p)
	return part != nil && part.Leader == b.cfg.NodeID && b.leads(part) && !part.offline
}

// AppendInternal appends a batch (built with record.NewBuilder) to
// partition p of an internal topic this broker leads, through the same
// path as Produce: the leader epoch is stamped, the high watermark
// advances, waiting fetches wake. The answers the coordinator gives in the
// same step (collectWrites) wait until the batch is durable
// (answerAfterWrites): replicated to the ISR in a cluster, synced at the
// next Commit when the flush policy asks.
func (b *Broker) AppendInternal(topic string, p int32, batch record.Batch) (int64, error) {
	if err := b.image.localInternalTopic(topic); err != nil {
		return 0, err
	}
	part := b.topics[topic].partition(p)
	if part == nil || !isInternalTopic(topic) || !b.coordinates(topic, p) {
		return 0, fmt.Errorf("%w: %s-%d", ErrNoInternalPartition, topic, p)
	}
	batch.SetPartitionLeaderEpoch(part.LeaderEpoch)
	base, err := part.log.Append(batch, b.now)
	if err != nil {
		err = fmt.Errorf("broker: appending to %s: %w", part, err)
		b.failPartition(part, err)
		return 0, err
	}
	part.epochs.assign(part.LeaderEpoch, base)
	b.advanceHighWatermark(part)
	b.wakeFetches(part)
	if w := b.step; w != nil && part.lead != nil {
		w.waits = append(w.waits, ackWait{p: part, lead: part.lead, need: part.log.EndOffset()})
	}
	if part.log.NeedsFlush(b.now) {
		b.markDirty(part)
		if w := b.step; w != nil {
			w.syncs = append(w.syncs, ackWait{p: part})
		}
	}
	return base, nil
}

// ReplayInternal calls fn for every record of partition p of an internal
// topic, in offset order, skipping control batches. Coordinators rebuild
// their state with it when they start leading p. It reads the whole log,
// not just below the high watermark: the leader's log is what the
// partition will hold as long as it leads. It reads through Log.Scan,
// which checks every batch's CRC: a byte flipped at rest stops the replay
// with log.ErrCorrupt rather than load a corrupt record into a
// coordinator.
func (b *Broker) ReplayInternal(topic string, p int32, fn func(offset int64, r record.Record)) error {
	return coordinator.Records(coordinatorHost{b}, topic, p, fn)
}
