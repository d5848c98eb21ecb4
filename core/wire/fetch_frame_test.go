package wire

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// randomFetch builds a Fetch response with the shapes the broker produces:
// several topics and partitions, null, empty and filled record sets, null
// and listed aborted transactions.
func randomFetch(rng *rand.Rand, version int16) *kmsg.FetchResponse {
	r := kmsg.NewPtrFetchResponse()
	r.Version = version
	r.ThrottleMillis, r.ErrorCode, r.SessionID = rng.Int32N(9), int16(rng.IntN(2)), rng.Int32()
	for t := range rng.IntN(3) {
		rt := kmsg.NewFetchResponseTopic()
		rt.Topic = string(rune('a'+t)) + "-topic"
		rt.TopicID[0], rt.TopicID[15] = byte(t+1), byte(rng.IntN(256))
		for p := range rng.IntN(4) {
			rp := kmsg.NewFetchResponseTopicPartition()
			rp.Partition, rp.ErrorCode = int32(p), int16(rng.IntN(2))
			rp.HighWatermark, rp.LastStableOffset, rp.LogStartOffset = rng.Int64(), rng.Int64(), rng.Int64()
			switch rng.IntN(3) {
			case 0:
				rp.RecordBatches = nil
			case 1:
				rp.RecordBatches = []byte{}
			default:
				rp.RecordBatches = make([]byte, 1+rng.IntN(300))
				for i := range rp.RecordBatches {
					rp.RecordBatches[i] = byte(rng.IntN(256))
				}
			}
			if rng.IntN(2) == 0 {
				rp.AbortedTransactions = []kmsg.FetchResponseTopicPartitionAbortedTransaction{}
				for range rng.IntN(3) {
					rp.AbortedTransactions = append(rp.AbortedTransactions, kmsg.FetchResponseTopicPartitionAbortedTransaction{ProducerID: rng.Int64(), FirstOffset: rng.Int64()})
				}
			}
			rp.PreferredReadReplica = rng.Int32N(3) - 1
			rt.Partitions = append(rt.Partitions, rp)
		}
		r.Topics = append(r.Topics, rt)
	}
	return r
}

// testSpan is a Span holding its bytes.
type testSpan []byte

func (s testSpan) Len() int { return len(s) }

// moveToSpans turns some partitions' record batches into Spans, as the
// broker does for batches it pinned in a segment file.
func moveToSpans(rng *rand.Rand, r *kmsg.FetchResponse) []Ranged {
	var ranged []Ranged
	for i := range r.Topics {
		for j := range r.Topics[i].Partitions {
			p := &r.Topics[i].Partitions[j]
			if len(p.RecordBatches) > 0 && rng.IntN(2) == 0 {
				ranged = append(ranged, Ranged{Topic: i, Partition: j, Span: testSpan(p.RecordBatches)})
				p.RecordBatches = []byte{}
			}
		}
	}
	return ranged
}

// joined is what Send writes: the pieces and each Span's bytes, in order.
func joined(t *testing.T, buf []byte, inserts []Insert) (out []byte, pieces [][]byte) {
	err := Send(buf, inserts, nil, func(ps [][]byte) error {
		pieces = append(pieces, ps...)
		out = append(out, bytes.Join(ps, nil)...)
		return nil
	}, func(s Span) error {
		out = append(out, s.(testSpan)...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out, pieces
}

// TestFetchFrameMatchesKmsg: the pieces and spans, joined, are byte for
// byte what kmsg encodes, at every version the broker serves, and no
// batch was copied.
func TestFetchFrameMatchesKmsg(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for v := int16(4); v <= (*kmsg.FetchResponse)(nil).MaxVersion(); v++ {
		for range 200 {
			r := randomFetch(rng, v)
			want := append([]byte("prefix"), AppendResponse(nil, 77, r)...)
			ranged := moveToSpans(rng, r)
			buf, inserts, ok := AppendFetchFrame([]byte("prefix"), nil, 77, r, ranged)
			if !ok {
				t.Fatalf("v%d: plain response refused", v)
			}
			got, pieces := joined(t, buf, inserts)
			if !bytes.Equal(got, want) {
				t.Fatalf("v%d: frame differs from kmsg\n got % x\nwant % x", v, got, want)
			}
			for _, tp := range r.Topics {
				for _, p := range tp.Partitions {
					if len(p.RecordBatches) == 0 {
						continue
					}
					found := false
					for _, pc := range pieces {
						found = found || len(pc) > 0 && &pc[0] == &p.RecordBatches[0]
					}
					if !found {
						t.Fatalf("v%d: record batches were copied, not handed over", v)
					}
				}
			}
		}
	}
}

// TestFetchFrameDeclinesStraySpans: a Span for a partition that has
// bytes of its own, or for none at all, is refused, and nothing of the
// frame is left in the buffer.
func TestFetchFrameDeclinesStraySpans(t *testing.T) {
	r := kmsg.NewPtrFetchResponse()
	r.Version = 12
	rt := kmsg.NewFetchResponseTopic()
	rp := kmsg.NewFetchResponseTopicPartition()
	rp.RecordBatches = []byte("own")
	rt.Partitions = append(rt.Partitions, rp)
	r.Topics = append(r.Topics, rt)
	for _, ranged := range [][]Ranged{
		{{Topic: 0, Partition: 0, Span: testSpan("x")}},
		{{Topic: 0, Partition: 1, Span: testSpan("x")}},
	} {
		buf, ins, ok := AppendFetchFrame([]byte("p"), nil, 1, r, ranged)
		if ok || string(buf) != "p" || len(ins) != 0 {
			t.Fatalf("stray span %+v: ok=%v, %q left, %d inserts", ranged, ok, buf, len(ins))
		}
	}
}

func TestFetchFrameDeclines(t *testing.T) {
	r := randomFetch(rand.New(rand.NewPCG(3, 4)), 12)
	rt := kmsg.NewFetchResponseTopic()
	rp := kmsg.NewFetchResponseTopicPartition()
	rp.CurrentLeader.LeaderID = 2 // KIP-951 tag: the fast path leaves it to kmsg
	rt.Partitions = append(rt.Partitions, rp)
	r.Topics = append(r.Topics, rt)
	if _, _, ok := AppendFetchFrame(nil, nil, 1, r, nil); ok {
		t.Fatal("a response with a tagged field must be declined")
	}
}
