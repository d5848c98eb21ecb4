package cluster

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Election types of ElectLeaders v1+ (KIP-460); v0 elects preferred
// leaders only.
const (
	ElectionPreferred int8 = 0
	ElectionUnclean   int8 = 1
)

// ElectionAt is one election an ElectLeaders request asks for, and where
// its outcome goes in the response.
type ElectionAt struct {
	Change          *PartitionChange
	Topic, Position int // index in resp.Topics, then in its Partitions
}

// ElectLeaders decides an ElectLeaders request on the image, as Kafka's
// ReplicationControlManager.electLeaders does:
//
//   - preferred: ELECTION_NOT_NEEDED while the first replica leads; the
//     first replica leads if it is live and in the ISR, else
//     PREFERRED_LEADER_NOT_AVAILABLE;
//   - unclean: ELECTION_NOT_NEEDED while the partition has a leader;
//     otherwise a live ISR member leads, or else the first live replica,
//     whatever the topic's unclean.leader.election.enable (the operator
//     asked for it), or ELIGIBLE_LEADERS_NOT_AVAILABLE;
//   - a partition that does not exist is UNKNOWN_TOPIC_OR_PARTITION;
//   - null topics ask for every partition, and then the partitions that
//     need no election are left out of the response.
//
// The response lists every outcome decided here; the elections to write
// come back with the place of their result, which the caller sets to the
// record's error once the changes are committed (success is 0 already).
func ElectLeaders(im *Image, r *kmsg.ElectLeadersRequest) (*kmsg.ElectLeadersResponse, []ElectionAt) {
	resp := r.ResponseKind().(*kmsg.ElectLeadersResponse)
	resp.SetVersion(r.GetVersion())
	all := r.Topics == nil
	targets := r.Topics
	if all {
		targets = allPartitions(im, func(name string, parts []int32) kmsg.ElectLeadersRequestTopic {
			return kmsg.ElectLeadersRequestTopic{Topic: name, Partitions: parts}
		})
	}
	var elections []ElectionAt
	for _, rt := range targets {
		out := kmsg.NewElectLeadersResponseTopic()
		out.Topic = rt.Topic
		var mine []ElectionAt
		for _, idx := range rt.Partitions {
			ch, code := im.electOne(rt.Topic, idx, r.ElectionType)
			if all && code == kerr.ElectionNotNeeded.Code {
				continue
			}
			res := kmsg.NewElectLeadersResponseTopicPartition()
			res.Partition, res.ErrorCode = idx, code
			if code != 0 {
				msg := kerr.ErrorForCode(code).Error()
				res.ErrorMessage = &msg
			}
			if ch != nil {
				mine = append(mine, ElectionAt{Change: ch, Topic: len(resp.Topics), Position: len(out.Partitions)})
			}
			out.Partitions = append(out.Partitions, res)
		}
		if len(out.Partitions) > 0 {
			resp.Topics = append(resp.Topics, out)
			elections = append(elections, mine...)
		}
	}
	return resp, elections
}

// electOne decides one partition's election: the change to write, or the
// error that says why there is none.
func (im *Image) electOne(topic string, idx int32, typ int8) (*PartitionChange, int16) {
	t := im.Topics[topic]
	if t == nil || idx < 0 || int(idx) >= len(t.Partitions) {
		return nil, kerr.UnknownTopicOrPartition.Code
	}
	p := t.Partitions[idx]
	switch typ {
	case ElectionPreferred:
		if p.Leader == p.Replicas[0] {
			return nil, kerr.ElectionNotNeeded.Code
		}
		if ch := ElectPreferred(topic, idx, p, im.Live); ch != nil {
			return ch, 0
		}
		return nil, kerr.PreferredLeaderNotAvailable.Code
	case ElectionUnclean:
		if p.Leader != NoLeader {
			return nil, kerr.ElectionNotNeeded.Code
		}
		e := Elect(p, im.Live, true)
		if e.Leader == NoLeader {
			return nil, kerr.EligibleLeadersNotAvailable.Code
		}
		return e.Change(topic, idx, p), 0
	}
	return nil, kerr.InvalidRequest.Code
}

// allPartitions is what null topics in a request ask for: mk of every
// topic's name and partition indexes, in name order.
func allPartitions[T any](im *Image, mk func(name string, parts []int32) T) []T {
	var out []T
	for _, name := range im.TopicNames() {
		parts := make([]int32, len(im.Topics[name].Partitions))
		for i := range parts {
			parts[i] = int32(i)
		}
		out = append(out, mk(name, parts))
	}
	return out
}
