package wire

import "github.com/twmb/franz-go/pkg/kmsg"

// Throttle is the throttle_time_ms of an answer core throttles itself:
// Produce and Fetch (byte rates), CreateTopics, CreatePartitions and
// DeleteTopics (controller mutations); 0 for any other message. A type
// switch rather than kmsg.ThrottleResponse, whose use would link every
// response's Throttle method into the browser build. The request-time
// quota's throttle travels beside an answer (broker.Response.Throttle).
func Throttle(msg any) int32 {
	switch m := msg.(type) {
	case *kmsg.ProduceResponse:
		return m.ThrottleMillis
	case *kmsg.FetchResponse:
		return m.ThrottleMillis
	case *kmsg.CreateTopicsResponse:
		return m.ThrottleMillis
	case *kmsg.CreatePartitionsResponse:
		return m.ThrottleMillis
	case *kmsg.DeleteTopicsResponse:
		return m.ThrottleMillis
	}
	return 0
}
