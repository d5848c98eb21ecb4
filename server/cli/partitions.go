package cli

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
)

// Partition reassignment (KIP-455) and leader election (KIP-183,
// KIP-460), as rpk cluster partitions names them and Kafka's
// kafka-reassign-partitions and kafka-leader-election do:
//
//	gregor cluster partitions move orders/0:1,2,3 orders/1:2,3,1
//	gregor cluster partitions move-status [TOPIC...]
//	gregor cluster partitions move-cancel orders/0 ...
//	gregor cluster elect [--unclean] [TOPIC/PARTITION...]   # none: every partition
func clusterPartitions(e *env) error {
	e.withFormat()
	adm, ctx, err := e.open(1, -1, "move TOPIC/PARTITION:BROKER,BROKER... | move-status [TOPIC...] | move-cancel TOPIC/PARTITION...")
	if err != nil {
		return err
	}
	switch verb, args := e.args[0], e.args[1:]; verb {
	case "move", "move-cancel":
		var req kadm.AlterPartitionAssignmentsReq
		for _, a := range args {
			t, p, replicas, err := parseMove(a, verb == "move")
			if err != nil {
				return err
			}
			if verb == "move" {
				req.Assign(t, p, replicas)
			} else {
				req.CancelAssign(t, p)
			}
		}
		if len(req) == 0 {
			return usagef("%s: name at least one TOPIC/PARTITION", verb)
		}
		rs, err := adm.AlterPartitionAssignments(ctx, req)
		if err != nil {
			return err
		}
		for _, r := range rs.Sorted() {
			at := fmt.Sprintf("%s/%d", r.Topic, r.Partition)
			if r.Err != nil {
				e.refused(at, r.Err, r.ErrMessage)
				continue
			}
			if verb == "move" {
				fmt.Fprintf(e.stdout, "%s: moving\n", at)
			} else {
				fmt.Fprintf(e.stdout, "%s: move cancelled\n", at)
			}
		}
		return nil
	case "move-status":
		var set kadm.TopicsSet
		for _, t := range args {
			set.Add(t)
		}
		rs, err := adm.ListPartitionReassignments(ctx, set)
		if err != nil {
			return err
		}
		type moving struct {
			Topic     string  `json:"topic"`
			Partition int32   `json:"partition"`
			Replicas  []int32 `json:"replicas"`
			Adding    []int32 `json:"adding"`
			Removing  []int32 `json:"removing"`
		}
		out := []moving{}
		for _, r := range rs.Sorted() {
			out = append(out, moving{r.Topic, r.Partition, r.Replicas, r.AddingReplicas, r.RemovingReplicas})
		}
		return e.show(out, func() [][]string {
			rows := [][]string{{"TOPIC", "PARTITION", "REPLICAS", "ADDING", "REMOVING"}}
			for _, m := range out {
				rows = append(rows, []string{m.Topic, strconv.Itoa(int(m.Partition)), ids(m.Replicas), ids(m.Adding), ids(m.Removing)})
			}
			return rows
		})
	}
	return usagef("cluster partitions %s: want move, move-status or move-cancel", e.args[0])
}

// parseMove reads TOPIC/PARTITION, and with replicas
// TOPIC/PARTITION:BROKER,BROKER,... (rpk's form).
func parseMove(s string, replicas bool) (string, int32, []int32, error) {
	spec, list, hasList := strings.Cut(s, ":")
	if hasList != replicas {
		if replicas {
			return "", 0, nil, usagef("move %q: want TOPIC/PARTITION:BROKER,BROKER...", s)
		}
		return "", 0, nil, usagef("move-cancel %q: want TOPIC/PARTITION", s)
	}
	t, p, err := parseTopicPartition(spec)
	if err != nil {
		return "", 0, nil, err
	}
	if !replicas {
		return t, p, nil, nil
	}
	var bs []int32
	for _, f := range strings.Split(list, ",") {
		b, err := strconv.ParseInt(f, 10, 32)
		if err != nil || b < 0 {
			return "", 0, nil, usagef("move %q: %q is not a broker id", s, f)
		}
		bs = append(bs, int32(b))
	}
	return t, p, bs, nil
}

// parseTopicPartition reads TOPIC/PARTITION (a Kafka topic name holds no
// '/' or ':').
func parseTopicPartition(s string) (string, int32, error) {
	i := strings.LastIndexByte(s, '/')
	if i <= 0 {
		return "", 0, usagef("%q: want TOPIC/PARTITION", s)
	}
	p, err := strconv.ParseInt(s[i+1:], 10, 32)
	if err != nil || p < 0 {
		return "", 0, usagef("%q: %q is not a partition", s, s[i+1:])
	}
	return s[:i], int32(p), nil
}

// ids writes broker ids as 1,2,3, or - for none.
func ids(bs []int32) string {
	if len(bs) == 0 {
		return "-"
	}
	return joinInts(bs)
}

// clusterElect elects leaders: the preferred replica (the first of the
// replicas), or with --unclean a live replica outside the ISR where no
// in-sync one is left (KIP-460). Partitions whose leader is already the
// preferred one are not reported (Kafka answers ELECTION_NOT_NEEDED).
func clusterElect(e *env) error {
	unclean := e.fs.Bool("unclean", false, "elect a live replica out of the ISR where none in it is left (may lose acknowledged records)")
	e.withFormat()
	adm, ctx, err := e.open(0, -1, "[TOPIC/PARTITION...]")
	if err != nil {
		return err
	}
	var set kadm.TopicsSet // none: every partition
	for _, a := range e.args {
		t, p, err := parseTopicPartition(a)
		if err != nil {
			return err
		}
		set.Add(t, p)
	}
	how := kadm.ElectPreferredReplica
	if *unclean {
		how = kadm.ElectLiveReplica
	}
	rs, err := adm.ElectLeaders(ctx, how, set)
	if err != nil {
		return err
	}
	type elected struct {
		Topic     string `json:"topic"`
		Partition int32  `json:"partition"`
		Error     string `json:"error,omitempty"`
	}
	out := []elected{}
	for _, t := range sortedKeys(rs) {
		for _, p := range slices.Sorted(maps.Keys(rs[t])) {
			r := rs[t][p]
			switch {
			case r.Err == nil:
				out = append(out, elected{Topic: t, Partition: p})
			case errors.Is(r.Err, kerr.ElectionNotNeeded):
			default:
				e.refused(fmt.Sprintf("%s/%d", t, p), r.Err, r.ErrMessage)
				out = append(out, elected{t, p, r.Err.Error()})
			}
		}
	}
	return e.show(out, func() [][]string {
		rows := [][]string{{"TOPIC", "PARTITION", "ELECTED"}}
		for _, x := range out {
			ok := "yes"
			if x.Error != "" {
				ok = "no: " + x.Error
			}
			rows = append(rows, []string{x.Topic, strconv.Itoa(int(x.Partition)), ok})
		}
		return rows
	})
}
