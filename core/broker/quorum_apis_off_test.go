//go:build noquorum

package broker

import (
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/coordinator"
	"github.com/gregor-kafka/gregor/core/share"
)

// The single-broker build (noquorum) leaves out the share coordinator's
// inter-broker APIs (share_state.go and its five APIs' files, share_state_off.go); its share
// coordinator is only reached in-process.

// clusterOnlyAPIs: the keys docs/api.md lists as served (by the full
// build) that this build must not serve.
var clusterOnlyAPIs = map[int16]bool{
	coordinator.ShareInit: true, coordinator.ShareRead: true, coordinator.ShareWrite: true, coordinator.ShareDelete: true, coordinator.ShareSummary: true,
}

// shareStateAPIs says whether this build serves APIs 83-87.
const shareStateAPIs = false

// readShareState reads a share partition's state from the coordinator's
// in-memory state (what ReadShareGroupState would answer at leader epoch
// 0), since this build does not serve ReadShareGroupState (84).
func readShareState(h *harness, group string, id [16]byte, p int32) kmsg.ReadShareGroupStateResponseTopicPartition {
	rp := kmsg.NewReadShareGroupStateResponseTopicPartition()
	rp.Partition, rp.StartOffset = p, -1
	st := h.b.shares.State(share.Key{Group: group, TopicID: id, Partition: p})
	if st == nil {
		return rp
	}
	rp.StateEpoch, rp.StartOffset = st.StateEpoch, st.Start
	for _, sb := range st.Batches() {
		rp.StateBatches = append(rp.StateBatches, kmsg.ReadShareGroupStateResponseTopicPartitionStateBatch{
			FirstOffset: sb.First, LastOffset: sb.Last, DeliveryState: int8(sb.State), DeliveryCount: sb.Count})
	}
	return rp
}
