package sim

import (
	"fmt"
	"strconv"

	"github.com/twmb/franz-go/pkg/kmsg"
)

func init() { commands["quota"] = cmdQuota }

// defaultEntity names a type's default entity in the quota command, as
// Kafka prints it.
const defaultEntity = "<default>"

// cmdQuota: quota user=U|client-id=C|ip=A ... KEY=N|remove ... sets or
// removes client quotas (AlterClientQuotas, KIP-546). A simulated
// client's client-id is its name; every client is user ANONYMOUS.
func cmdQuota(w *World, c command) error {
	to, err := w.firstBroker(c)
	if err != nil {
		return err
	}
	var entry kmsg.AlterClientQuotasRequestEntry
	for _, k := range c.keys {
		v := c.kv[k]
		switch k {
		case "broker":
		case "user", "client-id", "ip":
			e := kmsg.AlterClientQuotasRequestEntryEntity{Type: k, Name: &v}
			if v == defaultEntity {
				e.Name = nil
			}
			entry.Entity = append(entry.Entity, e)
		default:
			op := kmsg.AlterClientQuotasRequestEntryOp{Key: k, Remove: v == "remove"}
			if !op.Remove {
				if op.Value, err = strconv.ParseFloat(v, 64); err != nil {
					return fmt.Errorf("quota: %s=%s is neither a number nor remove", k, v)
				}
			}
			entry.Ops = append(entry.Ops, op)
		}
	}
	if len(entry.Entity) == 0 || len(entry.Ops) == 0 {
		return fmt.Errorf("quota: name an entity (user=, client-id= or ip=, %s for the default) and at least one quota", defaultEntity)
	}
	req := kmsg.NewPtrAlterClientQuotasRequest()
	req.Entries = append(req.Entries, entry)
	w.adminClient().send(w, to, req, nil)
	return nil
}
