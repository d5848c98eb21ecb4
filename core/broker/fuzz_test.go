package broker

import (
	"encoding/binary"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/wire"
)

// FuzzHandle feeds whatever the wire decoder accepts to a broker that has a
// topic with data: no request may panic it, and every request but an
// acks=0 produce must be answered (after a Tick past any long poll).
func FuzzHandle(f *testing.F) {
	seeds := []kmsg.Request{
		produceReq("t", 0, 1, batchOf("a", "b")),
		fetchReq("t", 0, 0, 1, 100),
		kmsg.NewPtrMetadataRequest(),
		kmsg.NewPtrApiVersionsRequest(),
		kmsg.NewPtrListOffsetsRequest(),
		kmsg.NewPtrCreateTopicsRequest(),
		kmsg.NewPtrDeleteTopicsRequest(),
		kmsg.NewPtrCreatePartitionsRequest(),
		kmsg.NewPtrDeleteRecordsRequest(),
		kmsg.NewPtrDescribeConfigsRequest(),
		kmsg.NewPtrIncrementalAlterConfigsRequest(),
		kmsg.NewPtrAlterConfigsRequest(),
		kmsg.NewPtrDescribeLogDirsRequest(),
		kmsg.NewPtrElectLeadersRequest(),
		kmsg.NewPtrAlterPartitionAssignmentsRequest(),
		kmsg.NewPtrListPartitionReassignmentsRequest(),
		kmsg.NewPtrDescribeClientQuotasRequest(),
		kmsg.NewPtrAlterClientQuotasRequest(),
		kmsg.NewPtrDescribeClusterRequest(),
		kmsg.NewPtrInitProducerIDRequest(),
	}
	for _, req := range seeds {
		for _, v := range []int16{0, req.GetVersion(), req.MaxVersion()} {
			req.SetVersion(v)
			frame := binary.BigEndian.AppendUint16(nil, uint16(req.Key()))
			frame = binary.BigEndian.AppendUint16(frame, uint16(v))
			frame = append(frame, 0, 0, 0, 1, 0, 0)
			if req.IsFlexible() {
				frame = append(frame, 0)
			}
			f.Add(req.AppendTo(frame))
		}
	}
	f.Fuzz(func(t *testing.T, frame []byte) {
		hdr, req, err := wire.ParseRequest(frame)
		if err != nil {
			return
		}
		h := newHarness(t, nil)
		h.createTopic("t", 2, nil)
		call[*kmsg.ProduceResponse](h, produceReq("t", 0, 1, batchOf("x", "y")))
		h.reset()
		h.b.Handle(h.now, Request{Conn: 9, Header: hdr, Msg: req})
		h.now += 1 << 31
		h.b.Tick(h.now)
		if err := h.b.Commit(); err != nil {
			t.Fatal(err)
		}
		if p, ok := req.(*kmsg.ProduceRequest); ok && p.Acks == 0 {
			return
		}
		if len(h.answers()) != 1 {
			t.Fatalf("%s v%d got %d answers, want 1", kmsg.NameForKey(hdr.Key), hdr.Version, len(h.answers()))
		}
	})
}
