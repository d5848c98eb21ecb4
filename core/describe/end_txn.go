package describe

import (
	"fmt"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// EndTxn (key 26, KIP-98): COMMIT or ABORT; from v5 the answer's
// bumped epoch (KIP-890 part 2).
func init() {
	describes(endTxnRequest)
	describes(endTxnResponse)
}

func endTxnRequest(m *kmsg.EndTxnRequest) string {
	verb := "ABORT"
	if m.Commit {
		verb = "COMMIT"
	}
	return fmt.Sprintf("EndTxn %s transactional_id=%s pid=%d epoch=%d", verb, m.TransactionalID, m.ProducerID, m.ProducerEpoch)
}

func endTxnResponse(m *kmsg.EndTxnResponse) string {
	if m.Version >= 5 && m.ProducerID >= 0 { // the bumped epoch (KIP-890 part 2)
		return fmt.Sprintf("EndTxn %s pid=%d epoch=%d", ErrorName(m.ErrorCode), m.ProducerID, m.ProducerEpoch)
	}
	return "EndTxn " + ErrorName(m.ErrorCode)
}
