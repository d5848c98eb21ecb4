package describe

import (
	"fmt"
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// Produce (key 0): each partition with the producer id, epoch and
// sequence of its first batch (KIP-98), and the offset it got.
func init() {
	describes(produceRequest)
	describes(produceResponse)
}

func produceRequest(m *kmsg.ProduceRequest) string {
	var parts []string
	for _, t := range m.Topics {
		for _, p := range t.Partitions {
			s := fmt.Sprintf("%s-%d", t.Topic, p.Partition)
			if b, ok := FirstBatch(p.Records); ok {
				if b.ProducerID >= 0 {
					s += fmt.Sprintf(" pid=%d epoch=%d seq=%d", b.ProducerID, b.ProducerEpoch, b.BaseSequence)
				}
				if b.Transactional {
					s += " transactional"
				}
				s += fmt.Sprintf(" records=%d", b.Records)
			}
			parts = append(parts, s)
		}
	}
	return fmt.Sprintf("Produce %s acks=%d", strings.Join(parts, "; "), m.Acks)
}

func produceResponse(m *kmsg.ProduceResponse) string {
	var parts []string
	for _, t := range m.Topics {
		for _, p := range t.Partitions {
			s := fmt.Sprintf("%s-%d base_offset=%d", t.Topic, p.Partition, p.BaseOffset)
			parts = append(parts, s+errField(p.ErrorCode))
		}
	}
	return "Produce " + strings.Join(parts, "; ")
}
