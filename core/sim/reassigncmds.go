package sim

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"
)

func init() { commands["reassign"] = cmdReassign }

// cmdReassign: reassign TOPIC-P replicas=bN,bM,... | reassign TOPIC-P cancel
// (AlterPartitionReassignments, KIP-455).
func cmdReassign(w *World, c command) error {
	topic, part, to, err := w.adminPartition(c)
	if err != nil {
		return err
	}
	rp := kmsg.NewAlterPartitionAssignmentsRequestTopicPartition()
	rp.Partition = part
	cancel := c.has("cancel")
	switch list := c.kv["replicas"]; {
	case cancel == (list != ""):
		return fmt.Errorf("reassign: give replicas=bN,... or cancel")
	case !cancel:
		for _, name := range strings.Split(list, ",") {
			id, err := strconv.ParseInt(strings.TrimPrefix(name, "b"), 10, 32)
			if err != nil || !strings.HasPrefix(name, "b") {
				return fmt.Errorf("reassign: %q is not a broker name (b0, b1, ...)", name)
			}
			rp.Replicas = append(rp.Replicas, int32(id))
		}
	}
	req := kmsg.NewPtrAlterPartitionAssignmentsRequest()
	rt := kmsg.NewAlterPartitionAssignmentsRequestTopic()
	rt.Topic, rt.Partitions = topic, []kmsg.AlterPartitionAssignmentsRequestTopicPartition{rp}
	req.Topics = append(req.Topics, rt)
	w.adminClient().send(w, to, req, nil)
	return nil
}
