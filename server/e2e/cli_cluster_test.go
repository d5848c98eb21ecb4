package e2e

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestCLIClusterAdmin drives the cluster's admin subcommands against a
// three-broker cluster and checks each through another read: a partition
// moved to two other brokers (move, move-status until done, topic
// describe), its replicas reordered and the preferred leader elected
// (elect, then the leader is the new first replica), a client quota set,
// described and removed; and the exit codes of a refused move and a
// malformed one. It also runs against kfake (GREGOR_E2E_KFAKE=1).
func TestCLIClusterAdmin(t *testing.T) {
	t.Parallel()
	bs := startClientCluster(t, 3)
	var addrs []string
	for _, b := range bs {
		addrs = append(addrs, b.Addr)
	}
	brokers := strings.Join(addrs, ",")
	topic := topicName(t, "")
	cliOK(t, brokers, "", "topic", "create", topic, "-p", "1", "-r", "1")

	describe := func() cliPartition {
		d := cliJSON[struct {
			Partitions []cliPartition `json:"partitions"`
		}](t, brokers, "topic", "describe", topic)
		if len(d.Partitions) != 1 {
			t.Fatalf("topic describe: %d partitions, want 1", len(d.Partitions))
		}
		return d.Partitions[0]
	}
	var first cliPartition
	eventually(t, 30*time.Second, "the partition has its leader", func() error {
		if first = describe(); first.Leader < 0 {
			return fmt.Errorf("leader %d", first.Leader)
		}
		return nil
	})
	var others []int32
	for _, b := range bs {
		if b.NodeID != first.Replicas[0] {
			others = append(others, b.NodeID)
		}
	}

	// Move the partition off its broker, onto the two others, then
	// reorder and elect. kfake accepts a reassignment and never carries
	// it out, so against kfake only the quotas and exit codes are run.
	if useKfake {
		t.Log("kfake: partitions move and elect not checked (kfake answers AlterPartitionAssignments without moving anything)")
	} else {
		movesAndElect(t, brokers, topic, describe, others)
	}

	// A client quota, set, read back and removed.
	cliOK(t, brokers, "", "cluster", "quotas", "alter", "--name", "client-id=billing", "--add", "producer_byte_rate=1048576", "--add", "consumer_byte_rate=2097152")
	type quota struct {
		Entity string             `json:"entity"`
		Values map[string]float64 `json:"values"`
	}
	eventually(t, 30*time.Second, "the quota is described", func() error {
		qs := cliJSON[[]quota](t, brokers, "cluster", "quotas", "describe", "--name", "client-id=billing")
		if len(qs) != 1 || qs[0].Entity != "client-id=billing" || qs[0].Values["producer_byte_rate"] != 1048576 || qs[0].Values["consumer_byte_rate"] != 2097152 {
			return fmt.Errorf("described %+v", qs)
		}
		return nil
	})
	cliOK(t, brokers, "", "cluster", "quotas", "alter", "--name", "client-id=billing", "--delete", "producer_byte_rate", "--delete", "consumer_byte_rate")
	eventually(t, 30*time.Second, "the quota is gone", func() error {
		if qs := cliJSON[[]quota](t, brokers, "cluster", "quotas", "describe", "--name", "client-id=billing"); len(qs) != 0 {
			return fmt.Errorf("still described: %+v", qs)
		}
		return nil
	})

	// Exit codes: the cluster refuses a move of a topic it does not have
	// (1); a malformed move is the command line's fault (2).
	if code, _, errOut := gregorCLI(t, brokers, "", "cluster", "partitions", "move", "no-such-topic/0:1"); code != 1 || !strings.Contains(errOut, "no-such-topic/0") {
		t.Errorf("a move of a missing topic: exit %d, stderr %q; want 1 naming it", code, errOut)
	}
	if code, _, _ := gregorCLI(t, brokers, "", "cluster", "partitions", "move", topic+"/0"); code != 2 {
		t.Errorf("a move without replicas: exit %d, want 2", code)
	}
}

// cliPartition is a partition as `gregor topic describe --format json`
// prints it.
type cliPartition struct {
	Leader   int32   `json:"leader"`
	Replicas []int32 `json:"replicas"`
	ISR      []int32 `json:"isr"`
}

// movesAndElect is TestCLIClusterAdmin's reassignment part: the partition
// moved onto others (move, move-status until done, topic describe), its
// replicas reordered, and the preferred leader elected.
func movesAndElect(t *testing.T, brokers, topic string, describe func() cliPartition, others []int32) {
	t.Helper()
	out := cliOK(t, brokers, "", "cluster", "partitions", "move", fmt.Sprintf("%s/0:%d,%d", topic, others[0], others[1]))
	if !strings.Contains(out, topic+"/0: moving") {
		t.Errorf("move said %q", out)
	}
	eventually(t, 60*time.Second, "the move completes", func() error {
		moving := cliJSON[[]struct {
			Topic string `json:"topic"`
		}](t, brokers, "cluster", "partitions", "move-status", topic)
		p := describe()
		if len(moving) > 0 || !slices.Equal(p.Replicas, others) || len(p.ISR) != 2 {
			return fmt.Errorf("%d moving; replicas %v, ISR %v, want %v", len(moving), p.Replicas, p.ISR, others)
		}
		return nil
	})

	// Reorder the replicas: the leader stays until the preferred one is
	// elected.
	reversed := []int32{others[1], others[0]}
	cliOK(t, brokers, "", "cluster", "partitions", "move", fmt.Sprintf("%s/0:%d,%d", topic, reversed[0], reversed[1]))
	eventually(t, 60*time.Second, "the replicas are reordered", func() error {
		if p := describe(); !slices.Equal(p.Replicas, reversed) {
			return fmt.Errorf("replicas %v, want %v", p.Replicas, reversed)
		}
		return nil
	})
	if p := describe(); p.Leader == reversed[0] {
		t.Fatalf("the leader moved to %d on a reorder alone", p.Leader)
	}
	elected := cliJSON[[]struct {
		Topic     string `json:"topic"`
		Partition int32  `json:"partition"`
		Error     string `json:"error"`
	}](t, brokers, "cluster", "elect", topic+"/0")
	if len(elected) != 1 || elected[0].Topic != topic || elected[0].Error != "" {
		t.Errorf("elect answered %+v, want %s/0 elected", elected, topic)
	}
	eventually(t, 30*time.Second, "the preferred replica leads", func() error {
		if p := describe(); p.Leader != reversed[0] {
			return fmt.Errorf("leader %d, want %d", p.Leader, reversed[0])
		}
		return nil
	})
	if again := cliJSON[[]struct{}](t, brokers, "cluster", "elect", topic+"/0"); len(again) != 0 {
		t.Errorf("a second elect reported %d elections; the preferred replica already leads", len(again))
	}
}
