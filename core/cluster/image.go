package cluster

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"

	"github.com/gregor-kafka/gregor/core/quota"
)

// Broker is one registered broker as the metadata knows it.
type Broker struct {
	ID            int32  `json:"id"`
	Epoch         int64  `json:"epoch"`
	IncarnationID UUID   `json:"incarnation"`
	Host          string `json:"host,omitempty"`
	Port          int32  `json:"port,omitempty"`
	Rack          string `json:"rack,omitempty"`
	Fenced        bool   `json:"fenced"`
	// InControlledShutdown: the broker asked for a controlled shutdown
	// and stays registered and unfenced until it stops, leading nothing
	// and in no ISR (Kafka's BrokerRegistration.inControlledShutdown).
	InControlledShutdown bool `json:"in_controlled_shutdown,omitempty"`
	// LogDirOffline: its log dir failed (KIP-858); it leads nothing, is
	// in no ISR, and Metadata lists it among the offline replicas.
	LogDirOffline bool `json:"log_dir_offline,omitempty"`
	// Endpoints are all its listeners (endpoint.go); Host and Port are
	// the first of them.
	Endpoints []Endpoint `json:"endpoints,omitempty"`
}

// Partition is one partition's replication state.
type Partition struct {
	Replicas       []int32 `json:"replicas"`
	ISR            []int32 `json:"isr"`
	Leader         int32   `json:"leader"`
	LeaderEpoch    int32   `json:"leader_epoch"`
	PartitionEpoch int32   `json:"partition_epoch"`
	// Recovering is KIP-704's RECOVERING leader state, set by an unclean
	// election until the new leader reports it has recovered.
	Recovering bool `json:"recovering,omitempty"`
	// AddingReplicas and RemovingReplicas are a reassignment in progress
	// (KIP-455): Replicas holds the target replicas followed by the
	// removing ones; the adding ones are among the targets.
	AddingReplicas   []int32 `json:"adding,omitempty"`
	RemovingReplicas []int32 `json:"removing,omitempty"`
}

// InISR reports whether broker id is in the ISR.
func (p *Partition) InISR(id int32) bool { return slices.Contains(p.ISR, id) }

// Clone copies a partition, replica lists included.
func (p *Partition) Clone() *Partition {
	c := *p
	c.Replicas = slices.Clone(p.Replicas)
	c.ISR = slices.Clone(p.ISR)
	c.AddingReplicas = slices.Clone(p.AddingReplicas)
	c.RemovingReplicas = slices.Clone(p.RemovingReplicas)
	return &c
}

// Topic is one topic: its id, configs and partitions.
type Topic struct {
	Name       string            `json:"name"`
	ID         UUID              `json:"id"`
	Configs    map[string]string `json:"configs,omitempty"`
	Partitions []*Partition      `json:"partitions"`
}

// Image is the metadata state machine: what every quorum member gets by
// applying the committed records in order (Kafka's MetadataImage).
type Image struct {
	// Index is the raft index of the last applied entry.
	Index uint64 `json:"index"`
	// ClusterID is the cluster's id (ClusterIDRecord); empty until the
	// first controller has written it.
	ClusterID string `json:"cluster_id,omitempty"`
	// Brokers by id.
	Brokers map[int32]*Broker `json:"brokers"`
	// Topics by name.
	Topics map[string]*Topic `json:"topics"`
	// Defaults are cluster-wide topic config defaults (ConfigRecord with
	// an empty topic).
	Defaults map[string]string `json:"defaults,omitempty"`
	// Groups are the group configs by group id (ConfigRecord with a
	// group); a group that sets none has no entry.
	Groups map[string]map[string]string `json:"group_configs,omitempty"`
	// NextProducerID is the first producer id not yet handed out.
	NextProducerID int64 `json:"next_producer_id"`
	// Quotas are the client quotas (ClientQuotaRecord), which every
	// broker enforces on its own traffic.
	Quotas quota.Quotas `json:"client_quotas,omitempty"`
	// Scram are the SCRAM credentials by ScramKey (scram.go).
	Scram map[string]*ScramCredential `json:"scram,omitempty"`
	// ACLs are the ACL bindings by ACLKey (acl.go).
	ACLs map[string]*ACL `json:"acls,omitempty"`
	// Features are the finalized feature levels (features.go).
	Features map[string]int16 `json:"features,omitempty"`
}

// NewImage returns the empty image.
func NewImage() *Image {
	return &Image{Brokers: map[int32]*Broker{}, Topics: map[string]*Topic{}}
}

// Clone returns a deep copy: nothing of it is shared with im. Drivers hand
// every applied image to their broker this way, so it is copied field by
// field rather than through Encode (a fifth of a cluster lesson's time in
// the browser went to the JSON round trip).
func (im *Image) Clone() *Image {
	c := *im
	c.Brokers = make(map[int32]*Broker, len(im.Brokers))
	//purity:unordered copies into a map
	for id, b := range im.Brokers {
		if b != nil {
			cb := *b
			cb.Endpoints = slices.Clone(b.Endpoints)
			b = &cb
		}
		c.Brokers[id] = b
	}
	c.Topics = make(map[string]*Topic, len(im.Topics))
	//purity:unordered copies into a map
	for name, t := range im.Topics {
		if t != nil {
			ct := *t
			ct.Configs = maps.Clone(t.Configs)
			ct.Partitions = slices.Clone(t.Partitions)
			for i, p := range ct.Partitions {
				if p != nil {
					ct.Partitions[i] = p.Clone()
				}
			}
			t = &ct
		}
		c.Topics[name] = t
	}
	c.Defaults = maps.Clone(im.Defaults)
	if im.Groups != nil {
		c.Groups = make(map[string]map[string]string, len(im.Groups))
		//purity:unordered copies into a map
		for g, cfg := range im.Groups {
			c.Groups[g] = maps.Clone(cfg)
		}
	}
	c.Features = maps.Clone(im.Features)
	if im.Quotas != nil {
		c.Quotas = im.Quotas.Clone()
	}
	if im.ACLs != nil {
		c.ACLs = make(map[string]*ACL, len(im.ACLs))
		//purity:unordered copies into a map
		for k, v := range im.ACLs {
			cv := *v
			c.ACLs[k] = &cv
		}
	}
	if im.Scram != nil {
		c.Scram = make(map[string]*ScramCredential, len(im.Scram))
		//purity:unordered copies into a map
		for k, v := range im.Scram {
			cv := *v // the byte slices are never written to
			c.Scram[k] = &cv
		}
	}
	return &c
}

// Encode returns the image as snapshot bytes (deterministic JSON).
func (im *Image) Encode() []byte {
	data, err := json.Marshal(im)
	if err != nil {
		panic(fmt.Sprintf("cluster: encoding image: %v", err))
	}
	return data
}

// DecodeImage decodes Encode's output; empty data is the empty image.
func DecodeImage(data []byte) (*Image, error) {
	im := NewImage()
	if len(data) == 0 {
		return im, nil
	}
	if err := json.Unmarshal(data, im); err != nil {
		return nil, fmt.Errorf("%w: snapshot: %v", ErrCorrupt, err)
	}
	if im.Brokers == nil {
		im.Brokers = map[int32]*Broker{}
	}
	if im.Topics == nil {
		im.Topics = map[string]*Topic{}
	}
	return im, nil
}

// Live reports whether a broker is registered and unfenced: the brokers
// Metadata lists.
func (im *Image) Live(id int32) bool {
	b := im.Brokers[id]
	return b != nil && !b.Fenced
}

// Usable reports whether a broker may lead, join an ISR or get new
// replicas: live, not in controlled shutdown, its log dir online (Kafka's
// isAcceptableLeader and ClusterControlManager.usableBrokers).
func (im *Image) Usable(id int32) bool {
	b := im.Brokers[id]
	return b != nil && !b.Fenced && !b.InControlledShutdown && !b.LogDirOffline
}

// UsableBrokers returns the usable brokers' ids in ascending order.
func (im *Image) UsableBrokers() []int32 {
	var ids []int32
	for id := range im.Brokers {
		if im.Usable(id) {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids
}

// LiveBrokers returns the unfenced brokers' ids in ascending order.
func (im *Image) LiveBrokers() []int32 {
	var ids []int32
	for id, b := range im.Brokers {
		if !b.Fenced {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids
}

// BrokerIDs returns every registered broker's id in ascending order.
func (im *Image) BrokerIDs() []int32 {
	ids := make([]int32, 0, len(im.Brokers))
	for id := range im.Brokers {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// TopicNames returns the topics' names in order.
func (im *Image) TopicNames() []string {
	names := make([]string, 0, len(im.Topics))
	for n := range im.Topics {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Partition returns a partition, or nil.
func (im *Image) Partition(topic string, p int32) *Partition {
	t := im.Topics[topic]
	if t == nil || p < 0 || int(p) >= len(t.Partitions) {
		return nil
	}
	return t.Partitions[p]
}

// TopicByID finds a topic by id.
func (im *Image) TopicByID(id UUID) *Topic {
	//purity:unordered Apply keeps topic IDs unique: at most one matches
	for _, t := range im.Topics {
		if t.ID == id {
			return t
		}
	}
	return nil
}

// Config returns a topic config: the topic's own value, else the cluster
// default recorded in the image.
func (im *Image) Config(topic, name string) (string, bool) {
	if t := im.Topics[topic]; t != nil {
		if v, ok := t.Configs[name]; ok {
			return v, true
		}
	}
	v, ok := im.Defaults[name]
	return v, ok
}

// MinInsyncReplicas is the topic's min.insync.replicas (default def). The
// partition leader enforces it on acks=all produce; the controller only
// stores it.
func (im *Image) MinInsyncReplicas(topic string, def int) int {
	if v, ok := im.Config(topic, "min.insync.replicas"); ok {
		if n, err := strconv.Atoi(v); err == nil {
			return n
		}
	}
	return def
}

// UncleanLeaderElection is the topic's unclean.leader.election.enable
// (default def).
func (im *Image) UncleanLeaderElection(topic string, def bool) bool {
	if v, ok := im.Config(topic, "unclean.leader.election.enable"); ok {
		if b, err := strconv.ParseBool(v); err == nil {
			return b
		}
	}
	return def
}

// PartitionDelta is one partition's change made by an applied record.
// Before is nil for a new partition, After is nil for a partition whose
// topic was removed.
type PartitionDelta struct {
	Topic     string
	Partition int32
	Before    *Partition
	After     *Partition
	Unclean   bool
	Preferred bool // a preferred-leader election (PartitionChange.Preferred)
}

// Apply applies a batch committed at raft index. Each record applies or is
// skipped alone; errs[i] is nil or why record i was skipped (ErrStale,
// ErrUnknown, ErrExists, ErrInvalid). It is deterministic: every replica
// applying the same entries gets the same image and the same errors.
func (im *Image) Apply(index uint64, b *Batch) (errs []error, deltas []PartitionDelta) {
	errs = make([]error, len(b.Records))
	for i := range b.Records {
		var ds []PartitionDelta
		ds, errs[i] = im.applyRecord(index, &b.Records[i])
		deltas = append(deltas, ds...)
	}
	if index > im.Index {
		im.Index = index
	}
	return errs, deltas
}

func (im *Image) applyRecord(index uint64, r *Record) ([]PartitionDelta, error) {
	switch {
	case r.ClusterID != nil:
		switch {
		case r.ClusterID.ID == "":
			return nil, fmt.Errorf("%w: empty cluster id", ErrInvalid)
		case im.ClusterID != "":
			return nil, fmt.Errorf("%w: cluster id %s, record has %s", ErrExists, im.ClusterID, r.ClusterID.ID)
		}
		im.ClusterID = r.ClusterID.ID
	case r.RegisterBroker != nil:
		x := r.RegisterBroker
		im.Brokers[x.ID] = &Broker{ID: x.ID, Epoch: int64(index), IncarnationID: x.IncarnationID,
			Host: x.Host, Port: x.Port, Rack: x.Rack, Fenced: true, Endpoints: x.Endpoints}
	case r.FenceBroker != nil, r.UnfenceBroker != nil:
		id, epoch, fence := int32(0), int64(0), r.FenceBroker != nil
		if fence {
			id, epoch = r.FenceBroker.ID, r.FenceBroker.Epoch
		} else {
			id, epoch = r.UnfenceBroker.ID, r.UnfenceBroker.Epoch
		}
		b := im.Brokers[id]
		if b == nil {
			return nil, fmt.Errorf("%w: broker %d", ErrUnknown, id)
		}
		if b.Epoch != epoch || b.Fenced == fence {
			return nil, fmt.Errorf("%w: broker %d epoch %d fenced=%v, record epoch %d fence=%v", ErrStale, id, b.Epoch, b.Fenced, epoch, fence)
		}
		b.Fenced = fence
	case r.BrokerChange != nil:
		x := r.BrokerChange
		b := im.Brokers[x.ID]
		if b == nil || b.Epoch != x.Epoch {
			return nil, fmt.Errorf("%w: broker change of broker %d epoch %d", ErrStale, x.ID, x.Epoch)
		}
		b.InControlledShutdown = b.InControlledShutdown || x.InControlledShutdown
		b.LogDirOffline = b.LogDirOffline || x.LogDirOffline
	case r.UnregisterBroker != nil:
		b := im.Brokers[r.UnregisterBroker.ID]
		if b == nil || b.Epoch != r.UnregisterBroker.Epoch {
			return nil, fmt.Errorf("%w: unregister broker %d", ErrStale, r.UnregisterBroker.ID)
		}
		delete(im.Brokers, b.ID)
	case r.Topic != nil:
		if im.Topics[r.Topic.Name] != nil || im.TopicByID(r.Topic.ID) != nil {
			return nil, fmt.Errorf("%w: topic %q", ErrExists, r.Topic.Name)
		}
		im.Topics[r.Topic.Name] = &Topic{Name: r.Topic.Name, ID: r.Topic.ID, Partitions: []*Partition{}}
	case r.RemoveTopic != nil:
		return im.removeTopic(r.RemoveTopic)
	case r.Partition != nil:
		d, err := im.applyPartition(r.Partition)
		return oneDelta(d), err
	case r.PartitionChange != nil:
		d, err := im.applyChange(r.PartitionChange)
		return oneDelta(d), err
	case r.Config != nil:
		x := r.Config
		m := &im.Defaults
		if x.Group != "" {
			im.applyGroupConfig(x)
			return nil, nil
		}
		if x.Topic != "" {
			t := im.Topics[x.Topic]
			if t == nil {
				return nil, fmt.Errorf("%w: topic %q", ErrUnknown, x.Topic)
			}
			m = &t.Configs
		}
		if x.Value == nil {
			delete(*m, x.Name)
		} else {
			if *m == nil {
				*m = map[string]string{}
			}
			(*m)[x.Name] = *x.Value
		}
	case r.ClientQuota != nil:
		x := r.ClientQuota
		if im.Quotas == nil {
			im.Quotas = quota.Quotas{}
		}
		op := quota.Op{Key: x.Key, Remove: x.Value == nil}
		if x.Value != nil {
			op.Value = *x.Value
		}
		im.Quotas.Apply(x.Entity, []quota.Op{op})
	case r.ProducerIDs != nil:
		x := r.ProducerIDs
		if x.Start != im.NextProducerID || x.Len <= 0 {
			return nil, fmt.Errorf("%w: producer id block at %d, next is %d", ErrStale, x.Start, im.NextProducerID)
		}
		im.NextProducerID = x.Start + int64(x.Len)
	case r.ScramCredential != nil, r.RemoveScram != nil:
		if im.Scram == nil {
			im.Scram = map[string]*ScramCredential{}
		}
		ApplyScram(im.Scram, r)
	case r.ACL != nil, r.RemoveACL != nil:
		if im.ACLs == nil {
			im.ACLs = map[string]*ACL{}
		}
		ApplyACL(im.ACLs, r)
	case r.FeatureLevel != nil:
		if _, ok := supported(r.FeatureLevel.Name); !ok {
			return nil, fmt.Errorf("%w: unknown feature %q", ErrInvalid, r.FeatureLevel.Name)
		}
		if im.Features == nil {
			im.Features = map[string]int16{}
		}
		ApplyFeature(im.Features, r.FeatureLevel)
	default:
		return nil, fmt.Errorf("%w: empty record", ErrInvalid)
	}
	return nil, nil
}

func oneDelta(d *PartitionDelta) []PartitionDelta {
	if d == nil {
		return nil
	}
	return []PartitionDelta{*d}
}

// removeTopic deletes the topic with the record's id; its partitions are
// reported removed, in order.
func (im *Image) removeTopic(x *RemoveTopicRecord) ([]PartitionDelta, error) {
	t := im.TopicByID(x.ID)
	if t == nil {
		return nil, fmt.Errorf("%w: topic id %s (%q)", ErrUnknown, x.ID, x.Name)
	}
	delete(im.Topics, t.Name)
	deltas := make([]PartitionDelta, len(t.Partitions))
	for i, p := range t.Partitions {
		deltas[i] = PartitionDelta{Topic: t.Name, Partition: int32(i), Before: p}
	}
	return deltas, nil
}

func (im *Image) applyPartition(x *PartitionRecord) (*PartitionDelta, error) {
	t := im.Topics[x.Topic]
	if t == nil {
		return nil, fmt.Errorf("%w: topic %q", ErrUnknown, x.Topic)
	}
	if int(x.Partition) != len(t.Partitions) {
		return nil, fmt.Errorf("%w: partition %s-%d, topic has %d", ErrExists, x.Topic, x.Partition, len(t.Partitions))
	}
	p := &Partition{Replicas: slices.Clone(x.Replicas), ISR: slices.Clone(x.ISR), Leader: x.Leader,
		LeaderEpoch: x.LeaderEpoch, PartitionEpoch: x.PartitionEpoch}
	if err := p.check(); err != nil {
		return nil, err
	}
	t.Partitions = append(t.Partitions, p)
	return &PartitionDelta{Topic: x.Topic, Partition: x.Partition, After: p.Clone()}, nil
}

func (im *Image) applyChange(x *PartitionChange) (*PartitionDelta, error) {
	p := im.Partition(x.Topic, x.Partition)
	if p == nil {
		return nil, fmt.Errorf("%w: partition %s-%d", ErrUnknown, x.Topic, x.Partition)
	}
	if p.PartitionEpoch != x.ExpectEpoch {
		return nil, fmt.Errorf("%w: partition %s-%d is at epoch %d, change expects %d", ErrStale, x.Topic, x.Partition, p.PartitionEpoch, x.ExpectEpoch)
	}
	next := p.Clone()
	if x.ISR != nil {
		next.ISR = slices.Clone(x.ISR)
	}
	bump := x.Leader != NoLeaderChange
	if x.Leader != NoLeaderChange {
		next.Leader = x.Leader
	}
	if r := x.Reassign; r != nil {
		// Removing a replica fences it with a new leader epoch, as
		// Kafka's PartitionChangeBuilder does on reassignment.
		bump = bump || slices.ContainsFunc(p.Replicas, func(b int32) bool { return !slices.Contains(r.Replicas, b) })
		next.Replicas = slices.Clone(r.Replicas)
		next.AddingReplicas, next.RemovingReplicas = slices.Clone(r.Adding), slices.Clone(r.Removing)
	}
	if bump {
		next.LeaderEpoch++
	}
	switch x.Recovery {
	case RecoveryRecovering:
		next.Recovering = true
	case RecoveryRecovered:
		next.Recovering = false
	}
	next.PartitionEpoch++
	if err := next.check(); err != nil {
		return nil, err
	}
	before := p.Clone()
	*p = *next
	return &PartitionDelta{Topic: x.Topic, Partition: x.Partition, Before: before, After: next.Clone(), Unclean: x.Unclean, Preferred: x.Preferred}, nil
}

// check enforces the shape every partition keeps: a non-empty ISR drawn
// from distinct replicas, a leader that is NoLeader or in the ISR, and
// adding and removing replicas that are distinct replicas.
func (p *Partition) check() error {
	if len(p.Replicas) == 0 || len(p.ISR) == 0 {
		return fmt.Errorf("%w: empty replicas or ISR", ErrInvalid)
	}
	seen := map[int32]bool{}
	for _, r := range p.Replicas {
		if seen[r] {
			return fmt.Errorf("%w: duplicate replica %d", ErrInvalid, r)
		}
		seen[r] = true
	}
	for i, r := range p.ISR {
		if !seen[r] || slices.Contains(p.ISR[:i], r) {
			return fmt.Errorf("%w: ISR %v is not a subset of replicas %v", ErrInvalid, p.ISR, p.Replicas)
		}
	}
	for _, r := range append(slices.Clone(p.AddingReplicas), p.RemovingReplicas...) {
		if !seen[r] {
			return fmt.Errorf("%w: adding %v or removing %v is not a subset of replicas %v", ErrInvalid, p.AddingReplicas, p.RemovingReplicas, p.Replicas)
		}
		seen[r] = false
	}
	if p.Leader != NoLeader && !p.InISR(p.Leader) {
		return fmt.Errorf("%w: leader %d not in ISR %v", ErrInvalid, p.Leader, p.ISR)
	}
	return nil
}

// applyGroupConfig sets or deletes one group config; a group left with
// none has no entry.
func (im *Image) applyGroupConfig(x *ConfigRecord) {
	if x.Value == nil {
		delete(im.Groups[x.Group], x.Name)
		if len(im.Groups[x.Group]) == 0 {
			delete(im.Groups, x.Group)
		}
		return
	}
	if im.Groups == nil {
		im.Groups = map[string]map[string]string{}
	}
	if im.Groups[x.Group] == nil {
		im.Groups[x.Group] = map[string]string{}
	}
	im.Groups[x.Group][x.Name] = *x.Value
}
