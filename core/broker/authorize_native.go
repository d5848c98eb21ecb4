//go:build !js

package broker

import (
	"github.com/twmb/franz-go/pkg/kmsg"
)

// allows reports whether r may pass c: without an authorizer or a
// principal every check passes (authorized_ops.go).
func (b *Broker) allows(r *Request, c check) bool {
	return b.cfg.Authorizer == nil || r.Principal == "" || b.may(r, c)
}

// authorize returns the answer refusing r, or nil to let the handler run:
// r's API's rule decides (api.acl), CLUSTER_ACTION where it has none.
func (b *Broker) authorize(r *Request) kmsg.Response {
	if b.cfg.Authorizer == nil || r.Principal == "" {
		return nil
	}
	acl := handlers[r.Msg.Key()].acl
	if acl == nil {
		acl = onCluster{kmsg.ACLOperationClusterAction}
	}
	deny, trim := acl.authorize(b, r)
	if deny == nil && trim != nil {
		r.addTrim(trim)
	}
	return deny
}

// Allows reports whether principal, connecting from host, may do op on
// the resource (rtype, name): the check a request of principal's would
// pass, true with no authorizer or no principal. It is for what filters
// on a principal's behalf rather than refuses, as Metadata, ListGroups
// and ListTransactions list only what may be described: the operator's
// console (server/console) filters its snapshots of the broker with it.
func (b *Broker) Allows(principal, host string, rtype kmsg.ACLResourceType, name string, op kmsg.ACLOperation) bool {
	return b.allows(&Request{Principal: principal, Host: host}, check{rtype, name, op})
}
