package quorum

import (
	"fmt"
	"slices"

	"github.com/gregor-kafka/gregor/core/cluster"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// createTopics creates topics (CreateTopics), placing replicas over the
// live brokers with Place from a random start, as Kafka does. Each topic
// is a TopicRecord, its ConfigRecords and one PartitionRecord per
// partition, all in one batch; the response waits for it. A topic whose
// deletion is in flight can be created again once that has committed.
func (c *controller) createTopics(id uint64, r *kmsg.CreateTopicsRequest) {
	names := make([]string, len(r.Topics))
	for i, t := range r.Topics {
		names[i] = t.Topic
	}
	if c.holdForTopics(id, r, names) {
		return
	}
	im := c.n.image
	resp := newResponse[*kmsg.CreateTopicsResponse](r)
	var recs []cluster.Record
	var keys []string
	type span struct{ topic, rec int } // response topic -> its cluster.TopicRecord
	var spans []span
	live := im.UsableBrokers()
	seen := map[string]bool{}
	for _, t := range r.Topics {
		rt := kmsg.NewCreateTopicsResponseTopic()
		rt.Topic = t.Topic
		assignment, code := c.planTopic(&t, live, seen[t.Topic])
		seen[t.Topic] = true
		rt.ErrorCode = code
		if code == 0 {
			rt.NumPartitions, rt.ReplicationFactor = int32(len(assignment)), int16(len(assignment[0]))
		}
		resp.Topics = append(resp.Topics, rt)
		if code != 0 || r.ValidateOnly {
			continue
		}
		var tid cluster.UUID
		for tid == (cluster.UUID{}) || im.TopicByID(tid) != nil {
			for i := range tid {
				tid[i] = byte(c.n.cfg.Rand.Uint32())
			}
		}
		resp.Topics[len(resp.Topics)-1].TopicID = tid
		spans = append(spans, span{len(resp.Topics) - 1, len(recs)})
		recs = append(recs, cluster.Record{Topic: &cluster.TopicRecord{Name: t.Topic, ID: tid}})
		for _, cfg := range t.Configs {
			if cfg.Value != nil {
				recs = append(recs, cluster.Record{Config: &cluster.ConfigRecord{Topic: t.Topic, Name: cfg.Name, Value: cfg.Value}})
			}
		}
		for i, reps := range assignment {
			recs = append(recs, c.newPartition(t.Topic, int32(i), reps))
			keys = append(keys, partitionKey(t.Topic, int32(i)))
		}
		keys = append(keys, topicKey(t.Topic))
	}
	if len(recs) == 0 {
		c.n.respond(id, resp)
		return
	}
	c.propose(recs, &pending{id: id, req: r, done: func(errs []error) kmsg.Response {
		for _, s := range spans {
			if code := recordError(errs[s.rec]); code != 0 {
				rt := &resp.Topics[s.topic]
				rt.ErrorCode, rt.TopicID, rt.NumPartitions, rt.ReplicationFactor = code, cluster.UUID{}, -1, -1
			}
		}
		return resp
	}}, keys)
}

// planTopic validates one CreateTopics topic and returns its assignment.
func (c *controller) planTopic(t *kmsg.CreateTopicsRequestTopic, live []int32, dup bool) ([][]int32, int16) {
	im := c.n.image
	if !validTopicName(t.Topic) {
		return nil, kerr.InvalidTopicException.Code
	}
	if t.Topic == cluster.MetadataTopic {
		return nil, kerr.TopicAuthorizationFailed.Code
	}
	if dup || im.Topics[t.Topic] != nil {
		return nil, kerr.TopicAlreadyExists.Code
	}
	if len(t.ReplicaAssignment) > 0 {
		if t.NumPartitions != -1 || t.ReplicationFactor != -1 {
			return nil, kerr.InvalidRequest.Code
		}
		out := make([][]int32, len(t.ReplicaAssignment))
		for _, a := range t.ReplicaAssignment {
			if a.Partition < 0 || int(a.Partition) >= len(out) || out[a.Partition] != nil {
				return nil, kerr.InvalidReplicaAssignment.Code
			}
			if code, _ := c.checkReplicas(a.Partition, a.Replicas, len(t.ReplicaAssignment[0].Replicas)); code != 0 {
				return nil, code
			}
			out[a.Partition] = slices.Clone(a.Replicas)
		}
		return out, 0
	}
	np, rf := t.NumPartitions, t.ReplicationFactor
	if np == -1 {
		np = c.n.cfg.DefaultPartitions
	}
	if rf == -1 {
		rf = c.n.cfg.DefaultReplicationFactor
	}
	if np <= 0 || np > cluster.MaxPartitions {
		return nil, kerr.InvalidPartitions.Code
	}
	if rf <= 0 || int(rf) > len(live) {
		return nil, kerr.InvalidReplicationFactor.Code
	}
	return im.PlaceOn(live, c.n.cfg.Rand.IntN(len(live)), 0, int(np), int(rf)), 0
}

// checkReplicas validates one partition's explicit replica list
// (cluster.CheckReplicas) and that it has rf replicas, as the partitions
// before it.
func (c *controller) checkReplicas(partition int32, reps []int32, rf int) (int16, string) {
	if code, msg := c.n.image.CheckReplicas(partition, reps); code != 0 {
		return code, msg
	}
	if len(reps) != rf {
		return kerr.InvalidReplicaAssignment.Code, fmt.Sprintf("The manual partition assignment includes a partition with %d replica(s), but this is not consistent with previous partitions, which have %d replica(s).", len(reps), rf)
	}
	return 0, ""
}

// newPartition is the record creating a partition on replicas: its ISR is
// the live replicas, led by the first of them, at epochs 0. The replicas
// were checked to include a live broker.
func (c *controller) newPartition(topic string, index int32, replicas []int32) cluster.Record {
	var isr []int32
	for _, b := range replicas {
		if c.n.image.Usable(b) {
			isr = append(isr, b)
		}
	}
	return cluster.Record{Partition: &cluster.PartitionRecord{Topic: topic, Partition: index,
		Replicas: replicas, ISR: isr, Leader: isr[0]}}
}

// validTopicName is Kafka's rule: 1-249 of [a-zA-Z0-9._-], not "." or "..".
func validTopicName(s string) bool {
	if s == "" || s == "." || s == ".." || len(s) > 249 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}

// alterPartition handles a leader's ISR change (KIP-497). The leader sends
// the ISR it wants with the leader and partition epochs it holds; a request
// from a broker that is no longer leader, or made against an older
// partition state, is refused, so two writers never race the ISR.
// Additions must be live brokers (KIP-841); while the leader is RECOVERING
// after an unclean election the ISR stays just the leader (KIP-704).
func (c *controller) alterPartition(id uint64, r *kmsg.AlterPartitionRequest) {
	im := c.n.image
	resp := newResponse[*kmsg.AlterPartitionResponse](r)
	if b := im.Brokers[r.BrokerID]; b == nil || b.Epoch != r.BrokerEpoch {
		resp.ErrorCode = kerr.StaleBrokerEpoch.Code
		c.n.respond(id, resp)
		return
	}
	type slot struct {
		t, p  int
		topic string
		rec   int // index in recs, or -1
	}
	var recs []cluster.Record
	var slots []slot
	for ti, rt := range r.Topics {
		out := kmsg.NewAlterPartitionResponseTopic()
		out.Topic, out.TopidID = rt.Topic, rt.TopicID
		t := im.Topics[rt.Topic]
		if rt.Topic == "" {
			t = im.TopicByID(rt.TopicID)
		}
		for pi, rp := range rt.Partitions {
			op := kmsg.NewAlterPartitionResponseTopicPartition()
			op.Partition = rp.Partition
			var ch *cluster.PartitionChange
			if t == nil {
				op.ErrorCode = kerr.UnknownTopicOrPartition.Code
				if rt.Topic == "" {
					op.ErrorCode = kerr.UnknownTopicID.Code
				}
			} else {
				ch, op.ErrorCode = c.checkAlter(r.BrokerID, t.Name, &rp)
			}
			out.Partitions = append(out.Partitions, op)
			if op.ErrorCode != 0 {
				continue
			}
			s := slot{ti, pi, t.Name, -1}
			if ch != nil {
				s.rec = len(recs)
				recs = append(recs, cluster.Record{PartitionChange: ch})
			}
			slots = append(slots, s)
		}
		resp.Topics = append(resp.Topics, out)
	}
	fill := func(errs []error) kmsg.Response {
		for _, s := range slots {
			op := &resp.Topics[s.t].Partitions[s.p]
			if s.rec >= 0 {
				if op.ErrorCode = recordError(errs[s.rec]); op.ErrorCode != 0 {
					continue
				}
			}
			p := c.n.image.Partition(s.topic, op.Partition)
			op.LeaderID, op.LeaderEpoch, op.PartitionEpoch = p.Leader, p.LeaderEpoch, p.PartitionEpoch
			op.ISR = slices.Clone(p.ISR)
			if p.Recovering {
				op.LeaderRecoveryState = 1
			}
		}
		return resp
	}
	if len(recs) == 0 {
		c.n.respond(id, fill(nil))
		return
	}
	c.propose(recs, &pending{id: id, req: r, done: fill}, nil)
}

// checkAlter validates one partition of an AlterPartition request against
// the committed image and returns the change (nil: nothing to change).
func (c *controller) checkAlter(broker int32, topic string, rp *kmsg.AlterPartitionRequestTopicPartition) (*cluster.PartitionChange, int16) {
	im := c.n.image
	p := im.Partition(topic, rp.Partition)
	switch {
	case p == nil:
		return nil, kerr.UnknownTopicOrPartition.Code
	case p.Leader != broker:
		return nil, kerr.NotLeaderForPartition.Code // NOT_LEADER_OR_FOLLOWER
	case rp.LeaderEpoch != p.LeaderEpoch:
		return nil, kerr.FencedLeaderEpoch.Code
	case rp.PartitionEpoch != p.PartitionEpoch:
		return nil, kerr.InvalidUpdateVersion.Code
	}
	isr := slices.Clone(rp.NewISR)
	for _, e := range rp.NewEpochISR {
		if b := im.Brokers[e.BrokerID]; b == nil || (e.BrokerEpoch != -1 && b.Epoch != e.BrokerEpoch) {
			return nil, kerr.IneligibleReplica.Code
		}
		isr = append(isr, e.BrokerID)
	}
	if len(isr) == 0 || !slices.Contains(isr, broker) {
		return nil, kerr.InvalidRequest.Code
	}
	for i, b := range isr {
		if !slices.Contains(p.Replicas, b) || slices.Contains(isr[:i], b) {
			return nil, kerr.InvalidRequest.Code
		}
		if !p.InISR(b) && !im.Usable(b) {
			return nil, kerr.IneligibleReplica.Code
		}
	}
	ch := &cluster.PartitionChange{Topic: topic, Partition: rp.Partition, ExpectEpoch: p.PartitionEpoch, Leader: cluster.NoLeaderChange}
	switch {
	case rp.LeaderRecoveryState == 1 && !p.Recovering:
		return nil, kerr.InvalidRequest.Code
	case rp.LeaderRecoveryState == 1 && len(isr) > 1:
		return nil, kerr.InvalidRequest.Code
	case rp.LeaderRecoveryState == 0 && p.Recovering:
		ch.Recovery = cluster.RecoveryRecovered
	}
	if !slices.Equal(isr, p.ISR) {
		ch.ISR = isr
		if done := cluster.CompleteReassignment(topic, rp.Partition, p, isr, im.Usable); done != nil {
			// The ISR now holds every target replica: the same change
			// completes the reassignment (KIP-455).
			done.Recovery = ch.Recovery
			return done, 0
		}
	}
	if ch.ISR == nil && ch.Recovery == 0 {
		return nil, 0
	}
	return ch, 0
}
