package broker

import "github.com/twmb/franz-go/pkg/kmsg"

// DescribeCluster v0-2 (KIP-700): the brokers, the controller and the
// cluster id, without a topic list. In a cluster the brokers are the live
// ones of the metadata image, as Metadata lists them.
func init() {
	register(60, api{
		min: 0, max: 2, serve: handleDescribeCluster,
		acl: noCheck{}, ops: describeClusterOps, addresses: listedBrokers,
	})
}

// describeClusterOps: the cluster's authorized operations, when asked
// (KIP-430).
func describeClusterOps(b *Broker, r *Request, resp kmsg.Response) {
	if m, _ := resp.(*kmsg.DescribeClusterResponse); m != nil {
		m.ClusterAuthorizedOperations = b.clusterOps(r, r.Msg.(*kmsg.DescribeClusterRequest).IncludeClusterAuthorizedOperations)
	}
}

func handleDescribeCluster(b *Broker, r *Request) kmsg.Response {
	resp := r.Msg.ResponseKind().(*kmsg.DescribeClusterResponse)
	resp.ClusterID = b.meta.ClusterID
	resp.ControllerID = b.controllerID()
	for _, ib := range b.image.liveBrokers() {
		br := kmsg.NewDescribeClusterResponseBroker()
		br.NodeID, br.Host, br.Port, br.Rack = ib.id, ib.host, ib.port, rackField(ib.rack)
		resp.Brokers = append(resp.Brokers, br)
	}
	return resp
}
