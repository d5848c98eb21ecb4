package broker

import "github.com/twmb/franz-go/pkg/kmsg"

// DescribeCluster v0-2 (KIP-700): the brokers, the controller and the
// cluster id, without a topic list.
func init() { register(60, 0, 2, handleDescribeCluster) }

func handleDescribeCluster(b *Broker, r *Request) kmsg.Response {
	resp := r.Msg.ResponseKind().(*kmsg.DescribeClusterResponse)
	resp.ClusterID = b.meta.ClusterID
	resp.ControllerID = b.cfg.NodeID
	br := kmsg.NewDescribeClusterResponseBroker()
	br.NodeID, br.Host, br.Port = b.cfg.NodeID, b.cfg.Host, b.cfg.Port
	resp.Brokers = []kmsg.DescribeClusterResponseBroker{br}
	return resp
}
