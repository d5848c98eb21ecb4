package describe

import (
	"fmt"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// AddOffsetsToTxn (key 25, KIP-98).
func init() {
	describes(addOffsetsToTxnRequest)
	describes(addOffsetsToTxnResponse)
}

func addOffsetsToTxnRequest(m *kmsg.AddOffsetsToTxnRequest) string {
	return fmt.Sprintf("AddOffsetsToTxn transactional_id=%s pid=%d epoch=%d group=%s", m.TransactionalID, m.ProducerID, m.ProducerEpoch, m.Group)
}

func addOffsetsToTxnResponse(m *kmsg.AddOffsetsToTxnResponse) string {
	return "AddOffsetsToTxn " + ErrorName(m.ErrorCode)
}
