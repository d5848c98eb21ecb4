package broker

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/cluster"
)

// DescribeAcls, CreateAcls and DeleteAcls v0-3 (KIP-11; prefixed patterns
// from v1, KIP-290). The bindings live in the metadata (core/cluster
// acl.go): a single broker keeps the records in its metadata file; in a
// cluster CreateAcls and DeleteAcls are forwarded to the controller
// (KIP-590), which writes them to the metadata log every broker reads.
// They are enforced only with an authorizer (authorize.go).
func init() {
	register(29, api{
		min: 0, max: 3, serve: handleDescribeAcls,
		acl: onCluster{kmsg.ACLOperationDescribe},
	})
	register(30, api{
		min: 0, max: 3, serve: handleCreateAcls,
		acl: onCluster{kmsg.ACLOperationAlter},
	})
	register(31, api{
		min: 0, max: 3, serve: handleDeleteAcls,
		acl: onCluster{kmsg.ACLOperationAlter},
	})
}

func (b *Broker) acls() map[string]*cluster.ACL {
	if b.cl != nil {
		return b.cl.image.ACLs
	}
	return b.meta.ACLs
}

func handleDescribeAcls(b *Broker, r *Request) kmsg.Response {
	return cluster.DescribeACLs(r.Msg.(*kmsg.DescribeACLsRequest), b.acls())
}

func handleCreateAcls(b *Broker, r *Request) kmsg.Response {
	if b.cl != nil {
		b.forward(r)
		return nil
	}
	resp, recs := cluster.CreateACLs(r.Msg.(*kmsg.CreateACLsRequest), b.meta.ACLs)
	if b.applyACLs(recs) {
		for i := range resp.Results {
			if resp.Results[i].ErrorCode == 0 {
				resp.Results[i].ErrorCode = kerr.KafkaStorageError.Code
			}
		}
	}
	return resp
}

func handleDeleteAcls(b *Broker, r *Request) kmsg.Response {
	if b.cl != nil {
		b.forward(r)
		return nil
	}
	resp, recs := cluster.DeleteACLs(r.Msg.(*kmsg.DeleteACLsRequest), b.meta.ACLs)
	if b.applyACLs(recs) {
		for i := range resp.Results {
			resp.Results[i].ErrorCode = kerr.KafkaStorageError.Code
		}
	}
	return resp
}

// applyACLs applies ACL records to a single broker's metadata and saves
// it; true when saving failed.
func (b *Broker) applyACLs(recs []cluster.Record) bool {
	if len(recs) == 0 {
		return false
	}
	if b.meta.ACLs == nil {
		b.meta.ACLs = map[string]*cluster.ACL{}
	}
	for i := range recs {
		cluster.ApplyACL(b.meta.ACLs, &recs[i])
	}
	if err := b.saveMetadata(); err != nil {
		b.cfg.Logf("saving ACLs: %v", err)
		return true
	}
	return false
}
