package broker

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/gregor-kafka/gregor/core/cluster"
	"github.com/gregor-kafka/gregor/core/log"
	"github.com/gregor-kafka/gregor/core/producer"
	"github.com/gregor-kafka/gregor/core/quota"
	"github.com/gregor-kafka/gregor/core/store"
)

// metadataFile holds what KRaft's metadata log holds for a single broker:
// the cluster id, topics with their ids, configs and replica assignments,
// and the broker's dynamic settings. It is replaced atomically on change.
const metadataFile = "gregor-metadata.json"

type metadata struct {
	// Format is metadataFormat for files written since cluster ids are
	// the quorum's; older files have none (cluster_id.go migrates them).
	Format        int                        `json:"format,omitempty"`
	ClusterID     string                     `json:"cluster_id"`
	NextProducer  int64                      `json:"next_producer_id_block"`
	BrokerConfigs map[string]string          `json:"broker_configs,omitempty"`
	Topics        map[string]*topicRecord    `json:"topics"`
	StartOffsets  map[string]map[int32]int64 `json:"log_start_offsets,omitempty"`
	Quotas        quota.Quotas               `json:"client_quotas,omitempty"`
	// GroupConfigs are the group configs by group id (group_configs.go).
	GroupConfigs map[string]map[string]string `json:"group_configs,omitempty"`
	// drawnID is the id an earlier Gregor's clustered broker drew for
	// itself, until the broker adopts the quorum's (cluster_id.go).
	drawnID string
	// Scram are the SCRAM credentials (scram.go), by cluster.ScramKey.
	Scram map[string]*cluster.ScramCredential `json:"scram,omitempty"`
	// ACLs are the ACL bindings (acls.go), by cluster.ACLKey.
	ACLs map[string]*cluster.ACL `json:"acls,omitempty"`
	// Features are the finalized feature levels (features.go), and
	// FeaturesEpoch counts their changes.
	Features      map[string]int16 `json:"features,omitempty"`
	FeaturesEpoch int64            `json:"features_epoch,omitempty"`
}

type topicRecord struct {
	Name     string            `json:"name"`
	ID       [16]byte          `json:"id"`
	Configs  map[string]string `json:"configs,omitempty"`
	Replicas [][]int32         `json:"replicas"`
}

// Topic is a named, partitioned log.
type Topic struct {
	Name       string
	ID         [16]byte
	Configs    map[string]string // overrides only
	Partitions []*Partition
}

// Partition is one replica of one partition, led by this broker.
type Partition struct {
	Topic       *Topic
	Index       int32
	Replicas    []int32
	ISR         []int32
	Leader      int32
	LeaderEpoch int32
	// HighWatermark is the offset below which every in-sync replica has
	// the data; consumers read only below it.
	HighWatermark int64
	// PartitionEpoch and Recovering are the metadata's (cluster only).
	PartitionEpoch int32
	Recovering     bool

	log       *log.Log
	epochs    epochCache
	producers *producer.State // idempotence and transactions (producer_state.go)
	dirty     bool
	deleted   bool
	offline   bool // a write or sync failed (storage_failure.go)
	// lead and follow are set while this broker leads or follows p as
	// its cluster's image says (ApplyMetadata, replica.go): never on a
	// single broker, which replicates nothing.
	lead   *leaderState
	follow *followState
}

func (p *Partition) String() string { return fmt.Sprintf("%s-%d", p.Topic.Name, p.Index) }

// Log is the partition's log, for views that show segments and indexes.
func (p *Partition) Log() *log.Log { return p.log }

// dir is the partition's directory, as Kafka names it.
func (p *Partition) dir() string { return fmt.Sprintf("%s-%d", p.Topic.Name, p.Index) }

// advanceHighWatermark moves the high watermark after an append. With one
// broker the ISR is just the leader, so it follows the log end offset; in
// a cluster it is the smallest LEO in the ISR (maybeAdvanceHW).
func (b *Broker) advanceHighWatermark(p *Partition) {
	if p.lead != nil {
		b.maybeAdvanceHW(p)
		return
	}
	if leo := p.log.EndOffset(); leo > p.HighWatermark {
		p.HighWatermark = leo
	}
}

func (b *Broker) loadMetadata() error {
	raw, err := b.st.ReadFile(metadataFile)
	switch {
	case errors.Is(err, store.ErrNotExist):
		b.meta = metadata{Format: metadataFormat, ClusterID: b.cfg.ClusterID, Topics: map[string]*topicRecord{}}
		if b.meta.ClusterID == "" && b.cfg.Cluster == nil {
			// A clustered broker adopts the quorum's id instead
			// (cluster_id.go).
			b.meta.ClusterID = newClusterID(b)
		}
		b.bootstrapFeatures(true)
		return b.saveMetadata()
	case err != nil:
		return fmt.Errorf("broker: reading %s: %w", metadataFile, err)
	}
	if err := json.Unmarshal(raw, &b.meta); err != nil {
		return fmt.Errorf("broker: %s is corrupt: %w", metadataFile, err)
	}
	if b.meta.Topics == nil {
		b.meta.Topics = map[string]*topicRecord{}
	}
	//purity:unordered copies into a map
	for k, v := range b.meta.BrokerConfigs {
		b.cfg.Settings.Dynamic[k] = v
	}
	return b.migrateMetadata()
}

func (b *Broker) saveMetadata() error {
	b.meta.BrokerConfigs = b.cfg.Settings.Dynamic
	b.meta.StartOffsets = map[string]map[int32]int64{}
	//purity:unordered fills a map; json.Marshal sorts map keys
	for name, t := range b.topics {
		for _, p := range t.Partitions {
			if so := p.log.StartOffset(); so > 0 {
				if b.meta.StartOffsets[name] == nil {
					b.meta.StartOffsets[name] = map[int32]int64{}
				}
				b.meta.StartOffsets[name][p.Index] = so
			}
		}
	}
	raw, err := json.MarshalIndent(&b.meta, "", "  ")
	if err != nil {
		return err
	}
	return b.st.WriteFile(metadataFile, raw)
}

// logConfig resolves a topic's log settings.
func (b *Broker) logConfig(overrides map[string]string) log.Config {
	s := b.cfg.Settings
	v, _, _ := s.Topic(overrides, "cleanup.policy")
	var policy []string
	for _, p := range strings.Split(v, ",") {
		policy = append(policy, strings.TrimSpace(p))
	}
	return log.Config{
		SegmentBytes:       s.TopicInt64(overrides, "segment.bytes"),
		SegmentMs:          s.TopicInt64(overrides, "segment.ms"),
		SegmentIndexBytes:  s.TopicInt64(overrides, "segment.index.bytes"),
		IndexIntervalBytes: s.TopicInt64(overrides, "index.interval.bytes"),
		RetentionMs:        s.TopicInt64(overrides, "retention.ms"),
		RetentionBytes:     s.TopicInt64(overrides, "retention.bytes"),
		FlushMessages:      s.TopicInt64(overrides, "flush.messages"),
		FlushMs:            s.TopicInt64(overrides, "flush.ms"),

		Delete:                 slices.Contains(policy, "delete"),
		Compact:                slices.Contains(policy, "compact"),
		DeleteRetentionMs:      s.TopicInt64(overrides, "delete.retention.ms"),
		MinCleanableDirtyRatio: s.TopicFloat64(overrides, "min.cleanable.dirty.ratio"),
		MinCompactionLagMs:     s.TopicInt64(overrides, "min.compaction.lag.ms"),
		MaxCompactionLagMs:     s.TopicInt64(overrides, "max.compaction.lag.ms"),

		Scratch: &b.scratch,
	}
}

// openTopic opens (recovering) or creates the logs of a topic record.
func (b *Broker) openTopic(rec *topicRecord, now int64) error {
	t := &Topic{Name: rec.Name, ID: rec.ID, Configs: rec.Configs}
	if t.Configs == nil {
		t.Configs = map[string]string{}
	}
	t.Configs = internalCompacted(t.Name, t.Configs)
	b.topics[t.Name] = t
	b.byID[t.ID] = t
	return b.addPartitions(t, rec.Replicas, now)
}

func (b *Broker) addPartitions(t *Topic, replicas [][]int32, now int64) error {
	cfg := b.logConfig(t.Configs)
	cfg.CleanShutdown = b.cleanStart
	for i := len(t.Partitions); i < len(replicas); i++ {
		p := &Partition{Topic: t, Index: int32(i), Replicas: replicas[i], Leader: b.cfg.NodeID}
		p.ISR = append([]int32(nil), replicas[i]...)
		start := int64(-1)
		if so, ok := b.meta.StartOffsets[t.Name][p.Index]; ok {
			start = so
		}
		l, notes, err := log.Open(b.st, p.dir(), cfg, start, now)
		if err != nil {
			return err
		}
		for _, n := range notes {
			b.cfg.Logf("recovery: %s", n)
		}
		p.log = l
		p.HighWatermark = l.EndOffset()
		if err := b.loadProducerState(p); err != nil {
			_ = l.Close()
			return err
		}
		t.Partitions = append(t.Partitions, p)
	}
	return nil
}

// deleteTopic removes a topic and its files; waiting fetches see it gone.
func (b *Broker) deleteTopic(t *Topic) error {
	delete(b.topics, t.Name)
	delete(b.byID, t.ID)
	delete(b.meta.Topics, t.Name)
	var firstErr error
	for _, p := range t.Partitions {
		p.deleted = true
		if err := p.log.Delete(); err != nil && firstErr == nil {
			firstErr = err
		}
	}
	if err := b.saveMetadata(); err != nil && firstErr == nil {
		firstErr = err
	}
	b.wakeFetches(nil)
	return firstErr
}

// validTopicName applies Kafka's Topic.validate rules.
func validTopicName(name string) string {
	switch {
	case name == "":
		return "topic name is empty"
	case name == "." || name == "..":
		return "topic name cannot be \".\" or \"..\""
	case len(name) > 249:
		return "topic name is longer than 249 characters"
	}
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return fmt.Sprintf("topic name %q contains a character other than ASCII alphanumerics, '.', '_' and '-'", name)
		}
	}
	return ""
}

// lookup finds a topic by name or, when the name is empty, by id.
func (b *Broker) lookup(name string, id [16]byte) *Topic {
	if name != "" {
		return b.topics[name]
	}
	return b.byID[id]
}

// partition finds a partition by topic and index.
func (t *Topic) partition(i int32) *Partition {
	if t == nil || i < 0 || int(i) >= len(t.Partitions) {
		return nil
	}
	return t.Partitions[i]
}

// Topics lists the broker's topics in name order, for views and the
// simulator. Callers must not modify them.
func (b *Broker) Topics() []*Topic {
	out := make([]*Topic, 0, len(b.topics))
	for _, name := range b.topicNames() {
		out = append(out, b.topics[name])
	}
	return out
}

// Topic returns a topic by name, or nil.
func (b *Broker) Topic(name string) *Topic { return b.topics[name] }

// LastStableOffset is the offset below which read_committed consumers may
// read (KIP-98).
func (p *Partition) LastStableOffset() int64 { return p.lastStableOffset() }

// topicExists reports whether the metadata has the topic.
func (b *Broker) topicExists(name string) bool {
	_, ok := b.image.topic(name)
	return ok
}

// knowsTopicID reports whether the metadata has a topic of that id.
func (b *Broker) knowsTopicID(id [16]byte) bool {
	_, ok := b.image.topicByID(id)
	return ok
}

// nameOf names a topic given by name or id (KIP-516); an unknown id
// names no topic, which only a binding on "*" or "" matches.
func (b *Broker) nameOf(name string, id [16]byte) string {
	if name != "" {
		return name
	}
	if t := b.lookup("", id); t != nil {
		return t.Name
	}
	t, _ := b.image.topicByID(id)
	return t.name
}

func derefString(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
