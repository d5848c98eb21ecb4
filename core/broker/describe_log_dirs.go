package broker

import (
	"slices"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// DescribeLogDirs v1-4 (KIP-113; the volume's total and usable bytes from
// v4, KIP-827). Kafka 4 no longer serves v0 (KIP-896). A broker has one log
// directory, Config.LogDir, and describes the replicas it holds there: per
// partition the size of its segment files and its offset lag, which for a
// current (not future) replica is Kafka's max(high watermark - log end
// offset, 0). Null topics ask for every replica; a topic or partition this
// broker holds no replica of is left out, as Kafka leaves it out. Every
// broker answers for itself: a client asks each one.
func init() {
	register(35, api{
		min: 1, max: 4, serve: handleDescribeLogDirs,
		acl: onCluster{kmsg.ACLOperationDescribe},
	})
}

func handleDescribeLogDirs(b *Broker, r *Request) kmsg.Response {
	req := r.Msg.(*kmsg.DescribeLogDirsRequest)
	resp := req.ResponseKind().(*kmsg.DescribeLogDirsResponse)
	dir := kmsg.NewDescribeLogDirsResponseDir()
	dir.Dir = b.cfg.LogDir
	if b.cfg.DiskSpace != nil {
		dir.TotalBytes, dir.UsableBytes = b.cfg.DiskSpace()
	}
	wantedTopic := func(name string) ([]int32, bool) {
		if req.Topics == nil {
			return nil, true
		}
		for _, t := range req.Topics {
			if t.Topic == name {
				return t.Partitions, true
			}
		}
		return nil, false
	}
	for _, name := range b.topicNames() {
		parts, ok := wantedTopic(name)
		if !ok {
			continue
		}
		dt := kmsg.NewDescribeLogDirsResponseDirTopic()
		dt.Topic = name
		for _, p := range b.topics[name].Partitions {
			if req.Topics != nil && !slices.Contains(parts, p.Index) {
				continue
			}
			dp := kmsg.NewDescribeLogDirsResponseDirTopicPartition()
			dp.Partition, dp.Size = p.Index, p.log.Size()
			dp.OffsetLag = max(p.HighWatermark-p.log.EndOffset(), 0)
			dt.Partitions = append(dt.Partitions, dp)
		}
		if len(dt.Partitions) > 0 {
			dir.Topics = append(dir.Topics, dt)
		}
	}
	resp.Dirs = append(resp.Dirs, dir)
	return resp
}
