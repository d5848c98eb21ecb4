//go:build noquorum

package broker

import (
	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/gregor-kafka/gregor/core/coordinator"
)

// The single-broker build (noquorum) has no other broker to ask: its
// share coordinator is always in-process, and APIs 83-87 are not served
// (share_state.go).
func (b *Broker) shareRemote(_ int32, _ coordinator.ShareOp, done func(coordinator.ShareAnswer)) {
	done(coordinator.ShareAnswer{Code: kerr.CoordinatorNotAvailable.Code})
}
