package broker

import "github.com/twmb/franz-go/pkg/kmsg"

// A trim completes a request's answer when it is delivered: the parts of
// the request a check took out before the handler ran (the authorizer's
// refused topics, authorize.go; the controller mutation quota's,
// mutation_quota.go) are added back to its answer, refused. Several trims
// of one request run in the order they were set.

// trimKey names a request whose answer a trim completes.
type trimKey struct {
	conn uint64
	corr int32
}

// trim completes r's answer with fn when it is delivered.
func (b *Broker) trim(r *Request, fn func(kmsg.Response)) {
	k := trimKey{r.Conn, r.Header.CorrelationID}
	if prev := b.trims[k]; prev != nil {
		b.trims[k] = func(resp kmsg.Response) { prev(resp); fn(resp) }
		return
	}
	b.trims[k] = fn
}

// dropTrims forgets the trims of a closed connection.
func (b *Broker) dropTrims(conn uint64) {
	//purity:unordered deletes only; order cannot matter
	for k := range b.trims {
		if k.conn == conn {
			delete(b.trims, k)
		}
	}
}
