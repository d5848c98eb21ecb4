package sim

import (
	"fmt"

	"github.com/twmb/franz-go/pkg/kmsg"
)

func init() { commands["group-config"] = cmdGroupConfig }

// cmdGroupConfig: group-config GROUP KEY=VALUE|delete ... sets or deletes
// a group's configs (the GROUP config resource of KIP-848 and KIP-932,
// IncrementalAlterConfigs), as kafka-configs --entity-type groups does.
func cmdGroupConfig(w *World, c command) error {
	group, err := c.arg(0, "group")
	if err != nil {
		return err
	}
	to, err := w.firstBroker(c)
	if err != nil {
		return err
	}
	rr := kmsg.NewIncrementalAlterConfigsRequestResource()
	rr.ResourceType, rr.ResourceName = kmsg.ConfigResourceTypeGroupConfig, group
	for _, k := range c.keys {
		if k == "broker" {
			continue
		}
		v := c.kv[k]
		cfg := kmsg.IncrementalAlterConfigsRequestResourceConfig{Name: k, Op: kmsg.IncrementalAlterConfigOpDelete}
		if v != "delete" {
			cfg.Op, cfg.Value = kmsg.IncrementalAlterConfigOpSet, &v
		}
		rr.Configs = append(rr.Configs, cfg)
	}
	if len(rr.Configs) == 0 {
		return fmt.Errorf("group-config: name at least one config, as share.auto.offset.reset=earliest (or KEY=delete)")
	}
	req := kmsg.NewPtrIncrementalAlterConfigsRequest()
	req.Resources = append(req.Resources, rr)
	w.adminClient().send(w, to, req, nil)
	return nil
}
