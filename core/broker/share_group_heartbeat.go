package broker

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/wire"
)

// ShareGroupHeartbeat v1 (KIP-932; v0 was Kafka 4.0's early access): a
// share group member joins, heartbeats and is assigned (share_groups.go).
func init() {
	register(76, api{min: 1, max: 1, serve: handleShareHeartbeat, acl: onHeartbeat{}})
}

func handleShareHeartbeat(b *Broker, r *Request) kmsg.Response {
	req := r.Msg.(*kmsg.ShareGroupHeartbeatRequest)
	if !b.coordinatesGroup(req.GroupID) {
		return wire.ErrorResponse(r.Msg, kerr.NotCoordinator.Code)
	}
	if b.shareGroupConflict(req.GroupID) {
		resp := req.ResponseKind().(*kmsg.ShareGroupHeartbeatResponse)
		resp.ErrorCode = kerr.GroupIDNotFound.Code
		resp.ErrorMessage = kmsg.StringPtr("Group " + req.GroupID + " is not a share group.")
		return resp
	}
	b.collectWrites(func() {
		resp := b.share.Heartbeat(b.now, r.Header.ClientID, r.Host, req)
		if b.persistShare(nil) {
			b.wakeShareFetches()
		}
		// The member learns its epoch and assignment only once the
		// records that carry them are durable: synced, and on every
		// in-sync replica in a cluster (as Kafka's coordinator runtime
		// answers a write).
		b.answerAfterWrites(*r, resp, b.cfg.Settings.Int64("offsets.commit.timeout.ms"))
	})
	return nil
}
