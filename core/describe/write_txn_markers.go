package describe

import (
	"fmt"
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// WriteTxnMarkers (key 27, KIP-98): each marker the coordinator writes.
func init() {
	describes(writeTxnMarkersRequest)
	describes(writeTxnMarkersResponse)
}

func writeTxnMarkersRequest(m *kmsg.WriteTxnMarkersRequest) string {
	var parts []string
	for _, mk := range m.Markers {
		verb := "ABORT"
		if mk.Committed {
			verb = "COMMIT"
		}
		var tps []string
		for _, t := range mk.Topics {
			for _, p := range t.Partitions {
				tps = append(tps, fmt.Sprintf("%s-%d", t.Topic, p))
			}
		}
		parts = append(parts, fmt.Sprintf("%s pid=%d epoch=%d coordinator_epoch=%d %s", verb, mk.ProducerID, mk.ProducerEpoch, mk.CoordinatorEpoch, strings.Join(tps, ",")))
	}
	return "WriteTxnMarkers " + strings.Join(parts, "; ")
}

func writeTxnMarkersResponse(m *kmsg.WriteTxnMarkersResponse) string {
	var parts []string
	for _, mk := range m.Markers {
		for _, t := range mk.Topics {
			for _, p := range t.Partitions {
				parts = append(parts, fmt.Sprintf("%s-%d %s", t.Topic, p.Partition, ErrorName(p.ErrorCode)))
			}
		}
	}
	return "WriteTxnMarkers " + strings.Join(parts, ", ")
}
