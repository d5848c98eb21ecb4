package broker

import (
	"github.com/gregor-kafka/gregor/core/cluster"
)

// DescribeAcls, CreateAcls and DeleteAcls v0-3 (KIP-11; prefixed patterns
// from v1, KIP-290). The bindings live in the metadata (core/cluster
// acl.go): a single broker keeps the records in its metadata file; in a
// cluster CreateAcls and DeleteAcls are forwarded to the controller
// (KIP-590), which writes them to the metadata log every broker reads.
// They are enforced only with an authorizer (authorize.go).

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
