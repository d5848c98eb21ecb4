package quorum

import (
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/cluster"
	"github.com/gregor-kafka/gregor/core/quota"
)

// alterClientQuotas serves AlterClientQuotas (KIP-546), which brokers
// forward here (KIP-590): quota.Alter checks each entry, and every valid
// one becomes ClientQuotaRecords, answered once committed.
func (c *controller) alterClientQuotas(id uint64, r *kmsg.AlterClientQuotasRequest) {
	var recs []cluster.Record
	resp := quota.Alter(r, func(key string, ops []quota.Op) {
		for _, op := range ops {
			rec := &cluster.ClientQuotaRecord{Entity: key, Key: op.Key}
			if !op.Remove {
				v := op.Value
				rec.Value = &v
			}
			recs = append(recs, cluster.Record{ClientQuota: rec})
		}
	})
	if len(recs) == 0 {
		c.n.respond(id, resp)
		return
	}
	c.propose(recs, &pending{id: id, req: r, done: func([]error) kmsg.Response { return resp }}, nil)
}
