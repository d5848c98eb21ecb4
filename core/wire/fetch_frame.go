package wire

import (
	"encoding/binary"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// Insert marks bytes that belong at an offset of an encoded frame but were
// not copied into it: a partition's record batches.
type Insert struct {
	At    int // offset in the buffer, before which Bytes go
	Bytes []byte
}

// AppendFetchFrame appends a whole Fetch response frame (size prefix and
// header included) to dst without copying its record batches: dst gets
// everything kmsg would write around them, and each batch is returned as an
// Insert, to be handed to the socket as it is with a vectored write
// (writev). Together they are exactly kmsg's encoding;
// TestFetchFrameMatchesKmsg holds the two together across every version.
//
// ok is false when the response carries what this fast path does not lay
// out (tagged fields, unknown tags, the KIP-951 broker list); the caller
// then encodes it with AppendResponse. Those responses are small errors.
func AppendFetchFrame(dst []byte, inserts []Insert, correlationID int32, r *kmsg.FetchResponse) ([]byte, []Insert, bool) {
	if !plainFetch(r) {
		return dst, inserts, false
	}
	v, flex := r.Version, r.Version >= 12
	start, b := len(dst), dst
	total := 0

	b = append(b, 0, 0, 0, 0)
	b = binary.BigEndian.AppendUint32(b, uint32(correlationID))
	if flex {
		b = append(b, 0)
	}
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
			if p.RecordBatches == nil {
				b = appendNullLen(b, flex)
			} else {
				b = appendArrayLen(b, len(p.RecordBatches), flex)
				if len(p.RecordBatches) > 0 {
					inserts = append(inserts, Insert{len(b), p.RecordBatches})
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
	binary.BigEndian.PutUint32(b[start:], uint32(len(b)-start+total-4))
	return b, inserts, true
}

// Pieces interleaves buf with its inserts, in order, for a vectored write.
func Pieces(buf []byte, inserts []Insert, into [][]byte) [][]byte {
	from := 0
	for _, in := range inserts {
		into = append(into, buf[from:in.At], in.Bytes)
		from = in.At
	}
	if from < len(buf) {
		into = append(into, buf[from:])
	}
	return into
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
