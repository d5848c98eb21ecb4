package cluster

import (
	"fmt"
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Partition reassignment (KIP-455), as Kafka's ReplicationControlManager
// and PartitionReassignmentReplicas do it.
//
// Moving a partition from its replicas O to target T writes, at once,
// replicas T followed by O\T, adding T\O and removing O\T. The adding
// replicas fetch from the leader like any follower and the leader adds
// each to the ISR once caught up (AlterPartition). The change that makes
// the ISR contain every target replica also completes the move: replicas
// become T, the ISR loses the removing replicas, a leader outside T hands
// over to the first live target replica in the ISR, and the leader epoch
// goes up so that the removed replicas are fenced; they then delete their
// logs. No record leaves the ISR before it holds all of T, so a move never
// lowers the number of replicas holding an acknowledged record. A move
// whose adding replicas are all in the ISR already (a pure removal or a
// reordering) completes at once. A new target replaces the move in
// progress (from the original replicas, O = replicas minus adding), and a
// null target cancels it: replicas O again, the ISR without the adding
// replicas.

// Reassigning reports whether a reassignment is in progress.
func (p *Partition) Reassigning() bool {
	return len(p.AddingReplicas) > 0 || len(p.RemovingReplicas) > 0
}

// Target is the replica set a reassignment in progress moves to (the
// replicas without the removing ones).
func (p *Partition) Target() []int32 { return without(p.Replicas, p.RemovingReplicas) }

// original is the replica set before the reassignment in progress.
func (p *Partition) original() []int32 { return without(p.Replicas, p.AddingReplicas) }

func without(s, drop []int32) []int32 {
	out := make([]int32, 0, len(s))
	for _, b := range s {
		if !slices.Contains(drop, b) {
			out = append(out, b)
		}
	}
	return out
}

// CheckReplicas validates an explicit replica list, as Kafka's
// ReplicationControlManager.validateManualPartitionAssignment does:
// distinct registered brokers, at least one of them live (the partition
// needs a leader). It returns INVALID_REPLICA_ASSIGNMENT and why, or 0.
func (im *Image) CheckReplicas(partition int32, reps []int32) (int16, string) {
	if len(reps) == 0 {
		return kerr.InvalidReplicaAssignment.Code, "The manual partition assignment includes an empty replica list."
	}
	anyLive := false
	for i, b := range reps {
		if im.Brokers[b] == nil {
			return kerr.InvalidReplicaAssignment.Code, fmt.Sprintf("The manual partition assignment includes broker %d, but no such broker is registered.", b)
		}
		if slices.Contains(reps[:i], b) {
			return kerr.InvalidReplicaAssignment.Code, fmt.Sprintf("The manual partition assignment includes the broker %d more than once.", b)
		}
		anyLive = anyLive || im.Usable(b)
	}
	if !anyLive {
		return kerr.InvalidReplicaAssignment.Code, fmt.Sprintf("All brokers specified in the manual partition assignment for partition %d are fenced or in controlled shutdown.", partition)
	}
	return 0, ""
}

// CompleteReassignment returns the change that finishes p's reassignment
// once its ISR is isr, or nil while that is not yet possible: some adding
// replica is not in isr, or no target replica in it is live to lead.
func CompleteReassignment(topic string, partition int32, p *Partition, isr []int32, live func(int32) bool) *PartitionChange {
	if !p.Reassigning() {
		return nil
	}
	for _, b := range p.AddingReplicas {
		if !slices.Contains(isr, b) {
			return nil
		}
	}
	return finish(topic, partition, p, p.Target(), isr, live)
}

// finish is the change that makes target p's replicas, with isr minus
// the replicas not in target as its ISR, keeping p's leader if it is a
// live member of both, else electing the first live target replica in
// that ISR; nil if there is none.
func finish(topic string, partition int32, p *Partition, target, isr []int32, live func(int32) bool) *PartitionChange {
	next := make([]int32, 0, len(isr))
	for _, b := range isr {
		if slices.Contains(target, b) {
			next = append(next, b)
		}
	}
	leader := p.Leader
	if !slices.Contains(next, leader) || !live(leader) {
		leader = NoLeader
		for _, b := range target {
			if slices.Contains(next, b) && live(b) {
				leader = b
				break
			}
		}
	}
	if leader == NoLeader {
		return nil
	}
	ch := &PartitionChange{Topic: topic, Partition: partition, ExpectEpoch: p.PartitionEpoch, Leader: NoLeaderChange,
		ISR: next, Reassign: &Reassignment{Replicas: slices.Clone(target)}}
	if leader != p.Leader {
		ch.Leader = leader
	}
	return ch
}

// Reassign decides one partition's AlterPartitionReassignments entry on
// the image: the change to write (nil: nothing to write) or the error
// code and message. target nil cancels the reassignment in progress.
func (im *Image) Reassign(topic string, idx int32, target []int32, allowRFChange bool) (*PartitionChange, int16, string) {
	p := im.Partition(topic, idx)
	if p == nil {
		return nil, kerr.UnknownTopicOrPartition.Code, ""
	}
	orig := p.original()
	switch {
	case target == nil && !p.Reassigning():
		return nil, kerr.NoReassignmentInProgress.Code, ""
	case target == nil:
		target = orig
	case !allowRFChange && len(target) != len(orig):
		return nil, kerr.InvalidReplicationFactor.Code, fmt.Sprintf("The replication factor of %s-%d would change from %d to %d, which the request does not allow.", topic, idx, len(orig), len(target))
	default:
		if code, msg := im.CheckReplicas(idx, target); code != 0 {
			return nil, code, msg
		}
	}
	if !p.Reassigning() && slices.Equal(target, p.Replicas) {
		return nil, 0, ""
	}
	// Start from the state before any move in progress: its adding
	// replicas were never part of the partition's durability.
	isr := without(p.ISR, p.AddingReplicas)
	if len(isr) == 0 {
		return nil, kerr.InvalidReplicaAssignment.Code, fmt.Sprintf("Reassigning %s-%d now would leave it no in-sync replica.", topic, idx)
	}
	adding, removing := without(target, orig), without(orig, target)
	if len(adding) == 0 {
		if ch := finish(topic, idx, p, target, isr, im.Usable); ch != nil {
			return ch, 0, ""
		}
	}
	next := &Partition{Replicas: append(slices.Clone(target), removing...), ISR: isr, Leader: p.Leader}
	e := Elect(next, im.Usable, false)
	ch := &PartitionChange{Topic: topic, Partition: idx, ExpectEpoch: p.PartitionEpoch, Leader: NoLeaderChange,
		ISR: e.ISR, Reassign: &Reassignment{Replicas: next.Replicas, Adding: adding, Removing: removing}}
	if e.Leader != p.Leader {
		ch.Leader = e.Leader
	}
	return ch, 0, ""
}

// AlterReassignments decides an AlterPartitionReassignments request on
// the image. The response lists every outcome decided here; the changes
// to write come back with the place of their result, which the caller
// sets to the record's error once committed (success is 0 already).
func AlterReassignments(im *Image, r *kmsg.AlterPartitionAssignmentsRequest) (*kmsg.AlterPartitionAssignmentsResponse, []ElectionAt) {
	resp := r.ResponseKind().(*kmsg.AlterPartitionAssignmentsResponse)
	resp.SetVersion(r.GetVersion())
	resp.AllowReplicationFactorChange = r.AllowReplicationFactorChange
	allowRF := r.GetVersion() < 1 || r.AllowReplicationFactorChange
	var changes []ElectionAt
	for ti, rt := range r.Topics {
		out := kmsg.NewAlterPartitionAssignmentsResponseTopic()
		out.Topic = rt.Topic
		for pi, rp := range rt.Partitions {
			res := kmsg.NewAlterPartitionAssignmentsResponseTopicPartition()
			res.Partition = rp.Partition
			ch, code, msg := im.Reassign(rt.Topic, rp.Partition, rp.Replicas, allowRF)
			res.ErrorCode = code
			if code != 0 {
				if msg == "" {
					msg = kerr.ErrorForCode(code).Error()
				}
				res.ErrorMessage = &msg
			}
			if ch != nil {
				changes = append(changes, ElectionAt{Change: ch, Topic: ti, Position: pi})
			}
			out.Partitions = append(out.Partitions, res)
		}
		resp.Topics = append(resp.Topics, out)
	}
	return resp, changes
}

// ListReassignments answers ListPartitionReassignments from the image:
// the partitions with a reassignment in progress, of every topic (null
// topics) or of the named ones; unknown topics and partitions are left
// out, as Kafka does.
func ListReassignments(im *Image, r *kmsg.ListPartitionReassignmentsRequest) *kmsg.ListPartitionReassignmentsResponse {
	resp := r.ResponseKind().(*kmsg.ListPartitionReassignmentsResponse)
	resp.SetVersion(r.GetVersion())
	targets := r.Topics
	if targets == nil {
		targets = allPartitions(im, func(name string, parts []int32) kmsg.ListPartitionReassignmentsRequestTopic {
			return kmsg.ListPartitionReassignmentsRequestTopic{Topic: name, Partitions: parts}
		})
	}
	for _, rt := range targets {
		out := kmsg.NewListPartitionReassignmentsResponseTopic()
		out.Topic = rt.Topic
		for _, idx := range rt.Partitions {
			p := im.Partition(rt.Topic, idx)
			if p == nil || !p.Reassigning() {
				continue
			}
			res := kmsg.NewListPartitionReassignmentsResponseTopicPartition()
			res.Partition = idx
			res.Replicas = slices.Clone(p.Replicas)
			res.AddingReplicas = append([]int32{}, p.AddingReplicas...)
			res.RemovingReplicas = append([]int32{}, p.RemovingReplicas...)
			out.Partitions = append(out.Partitions, res)
		}
		if len(out.Partitions) > 0 {
			resp.Topics = append(resp.Topics, out)
		}
	}
	return resp
}
