package broker

import "github.com/twmb/franz-go/pkg/kmsg"

// A trim completes a request's answer when it is delivered: the parts of
// the request a check took out before the handler ran (the authorizer's
// refused topics, authorize.go; the controller mutation quota's,
// mutation_quota.go) are added back to its answer, refused. Several trims
// of one request run in the order they were set.
//
// # Invariants
//
//   - A trim is part of the request (Request.trim), so every copy of it a
//     handler holds to answer later (a long poll, a forward, a wait for
//     a sync or a coordinator) carries it, and the broker keeps no trim
//     once the request is gone: a closed connection leaves none behind.
//   - It is set before the handler copies the request: the authorizer
//     runs before the handler, a mutation quota first thing in it.

// addTrim completes r's answer with fn when it is delivered.
func (r *Request) addTrim(fn func(kmsg.Response)) {
	if prev := r.trim; prev != nil {
		r.trim = func(resp kmsg.Response) { prev(resp); fn(resp) }
		return
	}
	r.trim = fn
}
