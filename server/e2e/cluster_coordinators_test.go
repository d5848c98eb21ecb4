package e2e

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Coordinators across brokers: the group and transaction coordinators
// live on the leaders of __consumer_offsets and __transaction_state
// partitions (three replicas each) and move when those leaders die.

// TestClusterGroupTransactSession: consume-transform-produce with
// GroupTransactSession on three brokers while each broker in turn is
// SIGKILLed and restarted, so the transaction coordinator, the group
// coordinator and the partition leaders all move at least once: every
// input record is in the committed output exactly once, and the group's
// committed offsets cover the input.
func TestClusterGroupTransactSession(t *testing.T) {
	t.Parallel()
	bs := startCluster(t, 3, WithConfig("auto.create.topics.enable", "false"))
	in, out := topicName(t, "in"), topicName(t, "out")
	adm := kadm.NewClient(clusterClient(t, bs, kgo.RetryTimeout(20*time.Second)))
	createFullyReplicated(t, adm, 2, in, out)
	transactSession(t, bs, adm, in, out, func(round int) {
		bs[round].KillAndRestart()
		// The next kill waits until the restarted broker is back in
		// every ISR, so two brokers are never out at once.
		waitFullISR(t, adm, in, out, "__consumer_offsets", "__transaction_state")
	})
}

// createFullyReplicated creates topics with partitions partitions, three
// replicas and min.insync.replicas=2, and waits for their full ISRs.
func createFullyReplicated(t *testing.T, adm *kadm.Client, partitions int32, topics ...string) {
	t.Helper()
	two := "2"
	for _, topic := range topics {
		eventually(t, 30*time.Second, "topic "+topic+" created", func() error {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			resp, err := adm.CreateTopic(ctx, partitions, 3, map[string]*string{"min.insync.replicas": &two}, topic)
			if err != nil {
				return err
			}
			if resp.Err != nil && !errors.Is(resp.Err, kerr.TopicAlreadyExists) {
				return fmt.Errorf("%v (%s)", resp.Err, resp.ErrMessage)
			}
			return nil
		})
	}
	waitFullISR(t, adm, topics...)
}

// waitFullISR waits until every partition of topics that exist has a
// leader and all three replicas in its ISR.
func waitFullISR(t *testing.T, adm *kadm.Client, topics ...string) {
	t.Helper()
	eventually(t, 60*time.Second, "full ISRs", func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		md, err := adm.Metadata(ctx, topics...)
		if err != nil {
			return err
		}
		for _, td := range md.Topics {
			if errors.Is(td.Err, kerr.UnknownTopicOrPartition) {
				continue // an internal topic not created yet
			}
			if td.Err != nil {
				return fmt.Errorf("%s: %v", td.Topic, td.Err)
			}
			for _, p := range td.Partitions {
				if p.Leader < 0 || len(p.ISR) != 3 {
					return fmt.Errorf("%s-%d: leader %d isr %v", td.Topic, p.Partition, p.Leader, p.ISR)
				}
			}
		}
		return nil
	})
}
