package e2e

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestACLsPerTopic: requests naming an allowed and a refused topic are
// answered per topic, as Kafka answers them. Alice may read, write and
// delete the topics prefixed "orders-" and only describe the other one.
// A franz-go consumer in her group subscribed to both reads the orders
// and reports the other one refused (TOPIC_AUTHORIZATION_FAILED: her
// Fetch and OffsetFetch name both topics); kadm's DeleteTopics of both
// deletes the orders and refuses the other, which stays.
func TestACLsPerTopic(t *testing.T) {
	ctx := testCtx(t, opTimeout)
	as, adm := aclBroker(t, ctx)
	orders, other := "orders-"+topicName(t, ""), topicName(t, "other")
	for _, topic := range []string{orders, other} {
		if _, err := adm.CreateTopic(ctx, 1, 1, nil, topic); err != nil {
			t.Fatal(err)
		}
		if err := as("admin", adminPassword).ProduceSync(ctx, &kgo.Record{Topic: topic, Value: []byte("v")}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	createACLs(t, ctx, adm, kadm.NewACLs().Allow("User:alice").Topics("orders-").ResourcePatternType(kadm.ACLPatternPrefixed).
		Operations(kadm.OpRead, kadm.OpWrite, kadm.OpDelete))
	createACLs(t, ctx, adm, kadm.NewACLs().Allow("User:alice").Topics(other).Operations(kadm.OpDescribe))
	createACLs(t, ctx, adm, kadm.NewACLs().Allow("User:alice").Groups("billing").Operations(kadm.OpRead))

	alice := as("alice", "a", kgo.ConsumeTopics(orders, other), kgo.ConsumerGroup("billing"),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	var read int
	var refusedErr error
	for read == 0 || refusedErr == nil {
		poll, cancel := context.WithTimeout(ctx, 10*time.Second)
		fs := alice.PollFetches(poll)
		expired := poll.Err() != nil
		cancel()
		if expired {
			t.Fatalf("alice's consumer of %s and %s: %d records, error for %s %v; want the record and TOPIC_AUTHORIZATION_FAILED", orders, other, read, other, refusedErr)
		}
		fs.EachError(func(topic string, _ int32, err error) {
			if topic != other {
				t.Fatalf("alice's consumer: error on %s: %v", topic, err)
			}
			refusedErr = err
		})
		fs.EachRecord(func(r *kgo.Record) {
			if r.Topic != orders {
				t.Fatalf("alice read a record of %s", r.Topic)
			}
			read++
		})
	}
	if !errors.Is(refusedErr, kerr.TopicAuthorizationFailed) {
		t.Errorf("alice's consumer reports %s: %v, want TOPIC_AUTHORIZATION_FAILED", other, refusedErr)
	}

	resps, err := kadm.NewClient(as("alice", "a")).DeleteTopics(ctx, orders, other)
	if err != nil {
		t.Fatal(err)
	}
	if r := resps[orders]; r.Err != nil {
		t.Errorf("alice deletes %s: %v", orders, r.Err)
	}
	if r := resps[other]; !errors.Is(r.Err, kerr.TopicAuthorizationFailed) {
		t.Errorf("alice deletes %s: %v, want TOPIC_AUTHORIZATION_FAILED", other, r.Err)
	}
	td, err := adm.ListTopics(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if td.Has(orders) || !td.Has(other) {
		t.Errorf("after alice's DeleteTopics: %s listed %v, %s listed %v; want only %s", orders, td.Has(orders), other, td.Has(other), other)
	}
}
