//go:build !noquorum

package broker

import "github.com/twmb/franz-go/pkg/kmsg"

// The full build serves the share coordinator's inter-broker APIs
// (share_state.go); quorum_apis_off_test.go is the noquorum side.

// clusterOnlyAPIs: the keys docs/api.md lists as served that this build
// leaves out. None here: the table is this build's.
var clusterOnlyAPIs map[int16]bool

// shareStateAPIs says whether this build serves APIs 83-87.
const shareStateAPIs = true

// readShareState reads a share partition's state as another broker
// would, through ReadShareGroupState (84).
func readShareState(h *harness, group string, id [16]byte, p int32) kmsg.ReadShareGroupStateResponseTopicPartition {
	rd := kmsg.NewPtrReadShareGroupStateRequest()
	rd.GroupID = group
	rd.Topics = []kmsg.ReadShareGroupStateRequestTopic{{TopicID: id, Partitions: []kmsg.ReadShareGroupStateRequestTopicPartition{{Partition: p}}}}
	return call[*kmsg.ReadShareGroupStateResponse](h, rd).Topics[0].Partitions[0]
}
