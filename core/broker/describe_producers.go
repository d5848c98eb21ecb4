package broker

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// DescribeProducers v0 (KIP-664): the active producers of each partition
// as its leader's producer state has them: id, epoch, last sequence, last
// timestamp, coordinator epoch and the first offset of the open
// transaction (-1 for none), in producer id order. It is how an operator
// finds the transaction that holds a partition's last stable offset back.
func init() {
	register(61, api{
		min: 0, max: 0, serve: handleDescribeProducers,
		acl: onTopics{op: kmsg.ACLOperationRead},
	})
}

func handleDescribeProducers(b *Broker, r *Request) kmsg.Response {
	req := r.Msg.(*kmsg.DescribeProducersRequest)
	resp := req.ResponseKind().(*kmsg.DescribeProducersResponse)
	for _, rt := range req.Topics {
		st := kmsg.NewDescribeProducersResponseTopic()
		st.Topic = rt.Topic
		t := b.topics[rt.Topic]
		for _, idx := range rt.Partitions {
			sp := kmsg.NewDescribeProducersResponseTopicPartition()
			sp.Partition = idx
			p := t.partition(idx)
			if p == nil {
				sp.ErrorCode = kerr.UnknownTopicOrPartition.Code
				st.Partitions = append(st.Partitions, sp)
				continue
			}
			for _, e := range p.producers.Entries() {
				ap := kmsg.NewDescribeProducersResponseTopicPartitionActiveProducer()
				ap.ProducerID, ap.ProducerEpoch = e.ProducerID, int32(e.Epoch)
				ap.LastSequence, ap.LastTimestamp = e.LastSeq(), e.LastTimestamp
				ap.CoordinatorEpoch, ap.CurrentTxnStartOffset = e.CoordinatorEpoch, e.TxnFirstOffset
				sp.ActiveProducers = append(sp.ActiveProducers, ap)
			}
			st.Partitions = append(st.Partitions, sp)
		}
		resp.Topics = append(resp.Topics, st)
	}
	return resp
}
