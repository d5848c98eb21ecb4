package wire

import (
	"encoding/binary"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// Insert marks what belongs at an offset of an encoded frame but was not
// copied into it: a partition's record batches, as Bytes or, when they
// stayed in a file, as a Span its sender writes from there (sendfile(2),
// issue 23). Exactly one of Bytes and Span is set.
type Insert struct {
	At    int // offset in the buffer, before which the batches go
	Bytes []byte
	Span  Span
}

// Span is a run of bytes a frame refers to without holding them: Len
// bytes its sender writes itself (store.Span, a pinned range of a
// segment file, is one).
type Span interface{ Len() int }

// Ranged names the partition of a FetchResponse, Topics[Topic].
// Partitions[Partition], whose record batches are a Span; its
// RecordBatches is empty, and the frame carries the Span in their place.
type Ranged struct {
	Topic, Partition int
	Span             Span
}

// AppendFetchFrame appends a whole Fetch response frame (size prefix and
// header included) to dst without copying its record batches: dst gets
// everything kmsg would write around them, and each partition's batches
// are returned as an Insert, bytes to hand to the socket as they are with
// a vectored write (writev), or the Span ranged lists for it (in the
// response's order). Together they are exactly kmsg's encoding of the
// response with each Span's bytes as that partition's RecordBatches;
// TestFetchFrameMatchesKmsg holds the two together across every version.
//
// ok is false when the response carries what this fast path does not lay
// out (tagged fields, unknown tags, the KIP-951 broker list), or when
// ranged does not name, in order, partitions with no bytes of their own;
// the caller then encodes it with AppendResponse. Those responses are
// small errors.
func AppendFetchFrame(dst []byte, inserts []Insert, correlationID int32, r *kmsg.FetchResponse, ranged []Ranged) ([]byte, []Insert, bool) {
	start := len(dst)
	b := append(dst, 0, 0, 0, 0)
	b = binary.BigEndian.AppendUint32(b, uint32(correlationID))
	if r.Version >= 12 {
		b = append(b, 0) // the flexible response header's tagged fields
	}
	b, ins, total, ok := AppendFetchBody(b, inserts, r, ranged)
	if !ok {
		return dst[:start], inserts, false
	}
	binary.BigEndian.PutUint32(b[start:], uint32(len(b)-start+total-4))
	return b, ins, true
}

// AppendFetchBody is AppendFetchFrame without the frame's size and
// response header: kmsg's AppendTo of the response, its record batches
// returned as inserts, total bytes of them. Between brokers a Fetch
// answer travels in a frame of their own (server/cluster.go).
func AppendFetchBody(dst []byte, inserts []Insert, r *kmsg.FetchResponse, ranged []Ranged) (_ []byte, _ []Insert, total int, ok bool) {
	if !plainFetch(r) {
		return dst, inserts, 0, false
	}
	from := len(inserts)
	v, flex := r.Version, r.Version >= 12
	start, b := len(dst), dst

	b = binary.BigEndian.AppendUint32(b, uint32(r.ThrottleMillis))
	if v >= 7 {
		b = binary.BigEndian.AppendUint16(b, uint16(r.ErrorCode))
		b = binary.BigEndian.AppendUint32(b, uint32(r.SessionID))
	}
	b = appendArrayLen(b, len(r.Topics), flex)
	for i := range r.Topics {
		t := &r.Topics[i]
		if v <= 12 {
			b = appendString(b, t.Topic, flex)
		} else {
			b = append(b, t.TopicID[:]...)
		}
		b = appendArrayLen(b, len(t.Partitions), flex)
		for j := range t.Partitions {
			p := &t.Partitions[j]
			b = binary.BigEndian.AppendUint32(b, uint32(p.Partition))
			b = binary.BigEndian.AppendUint16(b, uint16(p.ErrorCode))
			b = binary.BigEndian.AppendUint64(b, uint64(p.HighWatermark))
			b = binary.BigEndian.AppendUint64(b, uint64(p.LastStableOffset))
			if v >= 5 {
				b = binary.BigEndian.AppendUint64(b, uint64(p.LogStartOffset))
			}
			if p.AbortedTransactions == nil {
				b = appendNullLen(b, flex)
			} else {
				b = appendArrayLen(b, len(p.AbortedTransactions), flex)
				for _, a := range p.AbortedTransactions {
					b = binary.BigEndian.AppendUint64(b, uint64(a.ProducerID))
					b = binary.BigEndian.AppendUint64(b, uint64(a.FirstOffset))
					if flex {
						b = append(b, 0)
					}
				}
			}
			if v >= 11 {
				b = binary.BigEndian.AppendUint32(b, uint32(p.PreferredReadReplica))
			}
			switch {
			case len(ranged) > 0 && ranged[0].Topic == i && ranged[0].Partition == j:
				if len(p.RecordBatches) > 0 {
					return dst[:start], inserts[:from], 0, false
				}
				n := ranged[0].Span.Len()
				b = appendArrayLen(b, n, flex)
				inserts = append(inserts, Insert{At: len(b), Span: ranged[0].Span})
				total += n
				ranged = ranged[1:]
			case p.RecordBatches == nil:
				b = appendNullLen(b, flex)
			default:
				b = appendArrayLen(b, len(p.RecordBatches), flex)
				if len(p.RecordBatches) > 0 {
					inserts = append(inserts, Insert{At: len(b), Bytes: p.RecordBatches})
					total += len(p.RecordBatches)
				}
			}
			if flex {
				b = append(b, 0) // no tagged fields: plainFetch checked
			}
		}
		if flex {
			b = append(b, 0)
		}
	}
	if flex {
		b = append(b, 0)
	}
	if len(ranged) > 0 {
		return dst[:start], inserts[:from], 0, false
	}
	return b, inserts, total, true
}

// Send writes buf with its inserts, in order: each run of buf and byte
// inserts up to the next Span goes to write as the pieces of one vectored
// write (into is reused for them), and each Span to send. It stops at the
// first error.
func Send(buf []byte, inserts []Insert, into [][]byte, write func([][]byte) error, send func(Span) error) error {
	from, pieces := 0, into[:0]
	for _, in := range inserts {
		pieces = append(pieces, buf[from:in.At])
		from = in.At
		if in.Span == nil {
			pieces = append(pieces, in.Bytes)
			continue
		}
		if err := write(pieces); err != nil {
			return err
		}
		if err := send(in.Span); err != nil {
			return err
		}
		pieces = pieces[:0]
	}
	if from < len(buf) {
		pieces = append(pieces, buf[from:])
	}
	if len(pieces) == 0 {
		return nil
	}
	return write(pieces)
}

// plainFetch reports whether a response has only the fields FetchFrame
// lays out: versions 4 and up, every tagged field at its default.
func plainFetch(r *kmsg.FetchResponse) bool {
	if r.Version < 4 || len(r.Brokers) > 0 || r.UnknownTags.Len() > 0 {
		return false
	}
	for i := range r.Topics {
		t := &r.Topics[i]
		if t.UnknownTags.Len() > 0 {
			return false
		}
		for j := range t.Partitions {
			p := &t.Partitions[j]
			if p.UnknownTags.Len() > 0 || p.DivergingEpoch.Epoch != -1 || p.DivergingEpoch.EndOffset != -1 ||
				p.CurrentLeader.LeaderID != -1 || p.CurrentLeader.LeaderEpoch != -1 ||
				p.SnapshotID.EndOffset != -1 || p.SnapshotID.Epoch != -1 ||
				p.DivergingEpoch.UnknownTags.Len() > 0 || p.CurrentLeader.UnknownTags.Len() > 0 || p.SnapshotID.UnknownTags.Len() > 0 {
				return false
			}
			for _, a := range p.AbortedTransactions {
				if a.UnknownTags.Len() > 0 {
					return false
				}
			}
		}
	}
	return true
}

// appendArrayLen writes an array or bytes length: compact (uvarint n+1)
// in flexible versions (KIP-482), int32 before.
func appendArrayLen(b []byte, n int, flex bool) []byte {
	if flex {
		return binary.AppendUvarint(b, uint64(n)+1)
	}
	return binary.BigEndian.AppendUint32(b, uint32(n))
}

// appendNullLen writes a null array or bytes length.
func appendNullLen(b []byte, flex bool) []byte {
	if flex {
		return append(b, 0)
	}
	return binary.BigEndian.AppendUint32(b, 0xffffffff)
}

func appendString(b []byte, s string, flex bool) []byte {
	if flex {
		b = binary.AppendUvarint(b, uint64(len(s))+1)
	} else {
		b = binary.BigEndian.AppendUint16(b, uint16(len(s)))
	}
	return append(b, s...)
}
