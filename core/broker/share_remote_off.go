//go:build noquorum

package broker

import "github.com/twmb/franz-go/pkg/kerr"

// The single-broker build (noquorum) has no other broker to ask: its
// share coordinator is always in-process, and APIs 83-87 are not served
// (share_remote.go).
func (b *Broker) shareRemote(_ int32, _ shareOp, done func(shareAnswer)) {
	done(shareAnswer{code: kerr.CoordinatorNotAvailable.Code})
}
