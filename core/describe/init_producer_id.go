package describe

import (
	"fmt"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// InitProducerId (key 22, KIP-98): the transactional id and timeout,
// and the producer id and epoch the answer gives.
func init() {
	describes(initProducerIDRequest)
	describes(initProducerIDResponse)
}

func initProducerIDRequest(m *kmsg.InitProducerIDRequest) string {
	if m.TransactionalID != nil {
		return fmt.Sprintf("InitProducerId transactional_id=%s timeout=%dms", *m.TransactionalID, m.TransactionTimeoutMillis)
	}
	return "InitProducerId"
}

func initProducerIDResponse(m *kmsg.InitProducerIDResponse) string {
	return fmt.Sprintf("InitProducerId pid=%d epoch=%d%s", m.ProducerID, m.ProducerEpoch, errField(m.ErrorCode))
}
