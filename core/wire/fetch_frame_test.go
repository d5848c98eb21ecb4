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

// TestFetchFrameMatchesKmsg: the pieces, joined, are byte for byte what
// kmsg encodes, at every version the broker serves.
func TestFetchFrameMatchesKmsg(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for v := int16(4); v <= (*kmsg.FetchResponse)(nil).MaxVersion(); v++ {
		for range 200 {
			r := randomFetch(rng, v)
			want := append([]byte("prefix"), AppendResponse(nil, 77, r)...)
			buf, inserts, ok := AppendFetchFrame([]byte("prefix"), nil, 77, r)
			if !ok {
				t.Fatalf("v%d: plain response refused", v)
			}
			pieces := Pieces(buf, inserts, nil)
			got := bytes.Join(pieces, nil)
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

func TestFetchFrameDeclines(t *testing.T) {
	r := randomFetch(rand.New(rand.NewPCG(3, 4)), 12)
	rt := kmsg.NewFetchResponseTopic()
	rp := kmsg.NewFetchResponseTopicPartition()
	rp.CurrentLeader.LeaderID = 2 // KIP-951 tag: the fast path leaves it to kmsg
	rt.Partitions = append(rt.Partitions, rp)
	r.Topics = append(r.Topics, rt)
	if _, _, ok := AppendFetchFrame(nil, nil, 1, r); ok {
		t.Fatal("a response with a tagged field must be declined")
	}
}
