package broker

import (
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// AlterReplicaLogDirs v1-2 (KIP-113; Kafka 4 no longer serves v0,
// KIP-896). A broker has one log directory, Config.LogDir, so every
// replica it holds is already where the request asks: moving it there is
// a success that moves nothing. Another directory is LOG_DIR_NOT_FOUND,
// as Kafka answers for a directory not in its log.dirs; a partition the
// metadata has but this broker holds no replica of is
// REPLICA_NOT_AVAILABLE, an unknown one UNKNOWN_TOPIC_OR_PARTITION. Like
// DescribeLogDirs it is sent to each broker for its own replicas, and
// needs ALTER on the cluster. A topic named under several directories is
// answered once, with all its partitions, as Kafka groups its results by
// topic (clients such as kadm keep the last entry of a topic only).
func init() {
	register(34, api{
		min: 1, max: 2, serve: handleAlterReplicaLogDirs,
		acl: onCluster{kmsg.ACLOperationAlter},
	})
}

func handleAlterReplicaLogDirs(b *Broker, r *Request) kmsg.Response {
	req := r.Msg.(*kmsg.AlterReplicaLogDirsRequest)
	resp := req.ResponseKind().(*kmsg.AlterReplicaLogDirsResponse)
	at := map[string]int{} // a topic's index in resp.Topics
	for _, d := range req.Dirs {
		for _, rt := range d.Topics {
			i, ok := at[rt.Topic]
			if !ok {
				i, at[rt.Topic] = len(resp.Topics), len(resp.Topics)
				st := kmsg.NewAlterReplicaLogDirsResponseTopic()
				st.Topic = rt.Topic
				resp.Topics = append(resp.Topics, st)
			}
			st := &resp.Topics[i]
			for _, p := range rt.Partitions {
				sp := kmsg.NewAlterReplicaLogDirsResponseTopicPartition()
				sp.Partition = p
				switch {
				case d.Dir != b.cfg.LogDir:
					sp.ErrorCode = kerr.LogDirNotFound.Code
				case b.hosts(rt.Topic, p):
				case p >= 0 && p < int32(b.partitionCount(rt.Topic)):
					sp.ErrorCode = kerr.ReplicaNotAvailable.Code
				default:
					sp.ErrorCode = kerr.UnknownTopicOrPartition.Code
				}
				st.Partitions = append(st.Partitions, sp)
			}
		}
	}
	return resp
}

// hosts reports whether this broker holds a replica of the partition.
func (b *Broker) hosts(topic string, p int32) bool {
	replicas, _ := b.image.replicas(topic, p)
	return slices.Contains(replicas, b.cfg.NodeID)
}
