package server

import (
	"bytes"
	"errors"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/broker"
	"github.com/gregor-kafka/gregor/core/store"
	"github.com/gregor-kafka/gregor/core/wire"
	"github.com/gregor-kafka/gregor/server/filestore"
)

// A leader's Fetch answer to a follower, its batches pinned in segment
// files, is framed with each range read into its place: byte for byte the
// frame kmsg encodes from the same answer with the bytes copied out, in
// a pooled buffer; a range cut since it was pinned drops the answer
// (ErrShort), not a frame with other bytes in its place.
func TestPeerFetchFrame(t *testing.T) {
	fs, f := tempSegment(t)
	seg := make([]byte, 300<<10)
	for i := range seg {
		seg[i] = byte(i * 7)
	}
	if err := f.Append(seg); err != nil {
		t.Fatal(err)
	}
	pin := func(off, n int) wire.Span {
		s, err := f.(store.Ranger).Span(int64(off), n)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	resp := kmsg.NewPtrFetchResponse()
	resp.SetVersion(12)
	rt := kmsg.NewFetchResponseTopic()
	rt.Topic = "replicated"
	for p := range 4 {
		rp := kmsg.NewFetchResponseTopicPartition()
		rp.Partition, rp.HighWatermark = int32(p), int64(100*p)
		rt.Partitions = append(rt.Partitions, rp)
	}
	rt.Partitions[0].RecordBatches = []byte{} // ranged
	rt.Partitions[1].RecordBatches = []byte("bytes of its own")
	rt.Partitions[3].RecordBatches = []byte{} // ranged
	resp.Topics = append(resp.Topics, rt)
	ranged := []wire.Ranged{{Topic: 0, Partition: 0, Span: pin(0, 100<<10)}, {Topic: 0, Partition: 3, Span: pin(100<<10, 200<<10)}}

	frame, ok, err := peerFetchFrame(2, 9, resp, ranged)
	if !ok || err != nil {
		t.Fatalf("peerFetchFrame: ok=%v %v", ok, err)
	}
	copied := *resp
	copied.Topics = []kmsg.FetchResponseTopic{rt}
	copied.Topics[0].Partitions = append([]kmsg.FetchResponseTopicPartition(nil), rt.Partitions...)
	copied.Topics[0].Partitions[0].RecordBatches = seg[:100<<10]
	copied.Topics[0].Partitions[3].RecordBatches = seg[100<<10:]
	if want := kmsgFrame(frameResp, 2, 9, false, copied.Key(), copied.GetVersion(), copied.AppendTo); !bytes.Equal(frame, want) {
		t.Fatalf("the ranged frame (%d bytes) differs from kmsg's (%d bytes)", len(frame), len(want))
	}
	if cap(frame) != classSize(len(frame)) {
		t.Errorf("a %d-byte answer in a buffer of %d, not its pool class's %d", len(frame), cap(frame), classSize(len(frame)))
	}
	broker.Release(ranged)

	cut := []wire.Ranged{{Topic: 0, Partition: 0, Span: pin(0, 100<<10)}}
	if err := f.Truncate(50 << 10); err != nil {
		t.Fatal(err)
	}
	if frame, _, err := peerFetchFrame(2, 10, resp, cut); !errors.Is(err, filestore.ErrShort) || frame != nil {
		t.Fatalf("a cut range framed: %d bytes, %v; want ErrShort", len(frame), err)
	}
	broker.Release(cut)
	if fs.Pinned() != 0 {
		t.Fatalf("%d ranges pinned", fs.Pinned())
	}
}
