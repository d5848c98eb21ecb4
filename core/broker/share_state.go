//go:build !noquorum

package broker

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/coordinator"
	"github.com/gregor-kafka/gregor/core/share"
)

// The share coordinator's inter-broker APIs (KIP-932, CLUSTER_ACTION),
// each registered from its own file with both of its sides:
// InitializeShareGroupState v0 (83, initialize_share_group_state.go),
// ReadShareGroupState v0 (84), WriteShareGroupState v0-1 (85),
// DeleteShareGroupState v0 (86) and ReadShareGroupStateSummary v0-1 (87).
// A request is served one share partition at a time by coordinator.Shares
// and answered once its appends are durable; shareRemote asks another
// broker for one share partition. The single-broker build (noquorum) has
// no other broker and leaves these files out (share_state_off.go).

// shareState is the asking side of one share coordinator API: the
// request for one ShareOp, and the answer read from its response (ok
// false when the response does not hold exactly that share partition).
type shareState struct {
	ask    func(coordinator.ShareOp) kmsg.Request
	answer func(kmsg.Response) (coordinator.ShareAnswer, bool)
}

// shareStates is filled by registerShareState.
var shareStates = map[int16]shareState{}

// registerShareState registers a share coordinator API: serve fills
// resp from the request in the coordinator step in progress, ask and
// answer are its side in shareRemote.
func registerShareState[Q kmsg.Request, R kmsg.Response](key, min, max int16,
	serve func(b *Broker, q Q, resp R), ask func(coordinator.ShareOp) Q, answer func(R) (coordinator.ShareAnswer, bool)) {
	register(key, api{min: min, max: max, serve: func(b *Broker, r *Request) kmsg.Response {
		b.collectWrites(func() {
			resp := r.Msg.ResponseKind()
			serve(b, r.Msg.(Q), resp.(R))
			b.answerAfterWrites(*r, resp, b.cfg.Settings.Int64("offsets.commit.timeout.ms"))
		})
		return nil
	}})
	shareStates[key] = shareState{
		ask: func(op coordinator.ShareOp) kmsg.Request { return ask(op) },
		answer: func(r kmsg.Response) (coordinator.ShareAnswer, bool) {
			m, ok := r.(R)
			if !ok {
				return coordinator.ShareAnswer{}, false
			}
			return answer(m)
		},
	}
}

// shareRemote asks broker to, the coordinator of op's share partition,
// and hands done its answer (REQUEST_TIMED_OUT when none came).
func (b *Broker) shareRemote(to int32, op coordinator.ShareOp, done func(coordinator.ShareAnswer)) {
	s := shareStates[op.API]
	b.send(to, s.ask(op), func(r kmsg.Response) {
		a, ok := s.answer(r)
		if !ok {
			a = coordinator.ShareAnswer{Code: kerr.RequestTimedOut.Code}
		}
		done(a)
	})
}

// shareKey is the key of a share partition a request names.
func shareKey(group string, topic [16]byte, p int32) share.Key {
	return share.Key{Group: group, TopicID: topic, Partition: p}
}
