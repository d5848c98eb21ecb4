package describe

import (
	"fmt"
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// Fetch (key 1): a consumer's offsets and isolation (KIP-98), or a
// follower's with its leader epochs (it reads up to the leader's log end);
// the answer's watermarks, batches and aborted transactions.
func init() {
	describes(fetchRequest)
	describes(fetchResponse)
}

func fetchRequest(m *kmsg.FetchRequest) string {
	var parts []string
	for _, t := range m.Topics {
		for _, p := range t.Partitions {
			parts = append(parts, fmt.Sprintf("%s-%d offset=%d", t.Topic, p.Partition, p.FetchOffset))
		}
	}
	iso := ""
	if m.IsolationLevel == 1 {
		iso = " isolation=read_committed"
	}
	if m.ReplicaID >= 0 || m.ReplicaState.ID >= 0 && m.Version >= 15 {
		// A follower's fetch: it reads up to the leader's log end.
		var rp []string
		for _, t := range m.Topics {
			for _, p := range t.Partitions {
				rp = append(rp, fmt.Sprintf("%s-%d offset=%d epoch=%d", t.Topic, p.Partition, p.FetchOffset, p.CurrentLeaderEpoch))
			}
		}
		if len(rp) == 0 {
			// An incremental fetch (KIP-227) names only what changed.
			return fmt.Sprintf("Fetch (replica) session=%d: nothing changed", m.SessionID)
		}
		return "Fetch (replica) " + strings.Join(rp, "; ")
	}
	return fmt.Sprintf("Fetch %s%s", strings.Join(parts, "; "), iso)
}

func fetchResponse(m *kmsg.FetchResponse) string {
	var parts []string
	for _, t := range m.Topics {
		for _, p := range t.Partitions {
			s := fmt.Sprintf("%s-%d hw=%d lso=%d%s", t.Topic, p.Partition, p.HighWatermark, p.LastStableOffset, batchSpan(p.RecordBatches))
			if len(p.AbortedTransactions) > 0 {
				var ab []string
				for _, a := range p.AbortedTransactions {
					ab = append(ab, fmt.Sprintf("pid=%d@%d", a.ProducerID, a.FirstOffset))
				}
				s += " aborted=[" + strings.Join(ab, " ") + "]"
			}
			if p.PreferredReadReplica >= 0 {
				s += fmt.Sprintf(" preferred_read_replica=%d", p.PreferredReadReplica)
			}
			parts = append(parts, s+errField(p.ErrorCode))
		}
	}
	return strings.TrimSuffix("Fetch "+strings.Join(parts, "; "), " ") + errField(m.ErrorCode)
}

// batchSpan summarizes the batches in a fetch answer.
func batchSpan(p []byte) string {
	s := SpanOf(p)
	if s.Batches == 0 {
		return " records=none"
	}
	return fmt.Sprintf(" batches=%d offsets=%d..%d", s.Batches, s.First, s.Last)
}
