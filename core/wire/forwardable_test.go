//go:build !noquorum

package wire

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestForwardedRoundTrip: what AppendForwarded writes, ParseRequest and
// ParseForwarded read back alike, header included, at the oldest and
// newest versions; an answer likewise through AppendForwardedResponse
// and ParseForwardedResponse; a request of an API brokers do not forward
// is not decoded.
func TestForwardedRoundTrip(t *testing.T) {
	for _, v := range []int16{0, 7} {
		req := kmsg.NewPtrCreateTopicsRequest()
		req.SetVersion(v)
		req.Topics = []kmsg.CreateTopicsRequestTopic{{Topic: "orders", NumPartitions: 3, ReplicationFactor: 1}}
		frame := AppendForwarded(nil, Header{CorrelationID: 9, ClientID: "cli"}, req)
		h1, r1, err1 := ParseRequest(frame)
		h2, r2, err2 := ParseForwarded(frame)
		if err1 != nil || err2 != nil || h1 != h2 || h2.CorrelationID != 9 || h2.ClientID != "cli" || h2.Version != v {
			t.Fatalf("v%d: %+v %v / %+v %v", v, h1, err1, h2, err2)
		}
		if ct := r2.(*kmsg.CreateTopicsRequest); len(ct.Topics) != 1 || ct.Topics[0].Topic != "orders" || ct.Topics[0].NumPartitions != 3 || r1.(*kmsg.CreateTopicsRequest).Topics[0].Topic != "orders" {
			t.Fatalf("v%d: %+v", v, r2)
		}
		resp := kmsg.NewPtrCreateTopicsResponse()
		resp.SetVersion(v)
		resp.Topics = []kmsg.CreateTopicsResponseTopic{{Topic: "orders", ErrorCode: 29}}
		back := kmsg.NewPtrCreateTopicsResponse()
		back.SetVersion(v)
		corr, err := ParseForwardedResponse(AppendForwardedResponse(nil, 9, resp), back)
		if err != nil || corr != 9 || len(back.Topics) != 1 || back.Topics[0].ErrorCode != 29 {
			t.Fatalf("v%d answer: %d %v %+v", v, corr, err, back)
		}
	}
	produce := kmsg.NewPtrProduceRequest()
	if _, _, err := ParseForwarded(frameOf(produce, 1, "cli")); err == nil {
		t.Error("a Produce decoded as a forwarded request")
	}
}

func FuzzParseForwarded(f *testing.F) {
	for _, req := range []kmsg.Request{kmsg.NewPtrCreateTopicsRequest(), kmsg.NewPtrDeleteTopicsRequest(), kmsg.NewPtrIncrementalAlterConfigsRequest()} {
		for _, v := range []int16{0, req.MaxVersion()} {
			req.SetVersion(v)
			f.Add(AppendForwarded(nil, Header{CorrelationID: 1, ClientID: "seed"}, req))
		}
	}
	f.Fuzz(func(t *testing.T, frame []byte) {
		h, req, err := ParseForwarded(frame)
		if err == nil && (req == nil || req.Key() != h.Key || !Forwardable(h.Key)) {
			t.Fatalf("parsed without a forwardable request: %+v", h)
		}
		resp := kmsg.NewPtrCreateTopicsResponse()
		_, _ = ParseForwardedResponse(frame, resp)
	})
}
