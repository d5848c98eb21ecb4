package wire

import "github.com/twmb/franz-go/pkg/kmsg"

// BrokerHeartbeat (key 63, KIP-631): an error answer also says fenced, so
// that the broker registers again.
func init() {
	errorAnswer(func(_ *kmsg.BrokerHeartbeatRequest, out *kmsg.BrokerHeartbeatResponse, code int16) {
		out.ErrorCode, out.IsFenced = code, true
	})
}
