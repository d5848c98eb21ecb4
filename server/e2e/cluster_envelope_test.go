package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

// TestClusterEnvelope: on three brokers with an authorizer, alice's
// CreateTopics sent to broker 2 and to broker 3 reach the controller in
// Envelopes carrying her principal (KIP-590). The controller decides:
// a topic outside her prefixed CREATE ACL is refused
// TOPIC_AUTHORIZATION_FAILED while the other is created, and her
// controller_mutation_rate (1/s, a bucket of 11 partitions) is one
// bucket for the cluster: 15 partitions through broker 2 put it in debt,
// and her next topic, through broker 3, is refused
// THROTTLING_QUOTA_EXCEEDED with a throttle time. With a bucket per
// broker (Gregor before) broker 3 would have created it. A client
// sending an Envelope itself is disconnected.
func TestClusterEnvelope(t *testing.T) {
	t.Parallel()
	external := map[*Broker]string{}
	bs := startCluster(t, 3, withExternal(t, external), WithArgs("--listener.security.protocol.map", "INTERNAL:PLAINTEXT,EXTERNAL:SASL_PLAINTEXT,CONTROLLER:PLAINTEXT",
		"--controller.listener.names", "CONTROLLER",
		"--authorizer.class.name", "StandardAuthorizer", "--super.users", "User:ANONYMOUS"),
		WithConfig("auto.create.topics.enable", "false"))
	ctx := testCtx(t, opTimeout)
	adm := kadm.NewClient(clusterClient(t, bs[:1]))
	if _, err := adm.AlterUserSCRAMs(ctx, nil, []kadm.UpsertSCRAM{{User: "alice", Mechanism: kadm.ScramSha512, Iterations: 4096, Password: "a"}}); err != nil {
		t.Fatal(err)
	}
	prefix := topicName(t, "ok")
	createACLs(t, ctx, adm, kadm.NewACLs().Allow("User:alice").Topics(prefix).ResourcePatternType(kadm.ACLPatternPrefixed).
		Operations(kadm.OpCreate, kadm.OpDescribe))
	alice := "alice"
	setQuota(t, adm, kadm.ClientQuotaEntity{{Type: "user", Name: &alice}},
		quota("controller_mutation_rate", 1))

	// alice's client on broker i, sending to broker i itself (kadm would
	// send to the broker Metadata names as controller).
	on := func(i int) *kgo.Broker {
		cl := clusterClient(t, nil, kgo.SeedBrokers(external[bs[i]]),
			kgo.SASL(scram.Auth{User: "alice", Pass: "a"}.AsSha512Mechanism()))
		return cl.Broker(int(bs[i].NodeID))
	}
	create := func(b *kgo.Broker, partitions int32, validate bool, names ...string) (*kmsg.CreateTopicsResponse, error) {
		req := kmsg.NewPtrCreateTopicsRequest()
		req.TimeoutMillis, req.ValidateOnly = 10000, validate
		for _, name := range names {
			rt := kmsg.NewCreateTopicsRequestTopic()
			rt.Topic, rt.NumPartitions, rt.ReplicationFactor = name, partitions, 1
			req.Topics = append(req.Topics, rt)
		}
		ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
		defer cancel()
		return req.RequestWith(ctx, b)
	}
	codes := func(resp *kmsg.CreateTopicsResponse) map[string]error {
		out := map[string]error{}
		for _, rt := range resp.Topics {
			out[rt.Topic] = kerr.ErrorForCode(rt.ErrorCode)
		}
		return out
	}
	two, three := on(1), on(2)
	// Every broker knows alice, and the controller her ACL, once a
	// validate_only CreateTopics (which spends no tokens) passes through
	// broker 2 and broker 3.
	for _, b := range []*kgo.Broker{two, three} {
		eventually(t, 30*time.Second, "alice validates a topic", func() error {
			resp, err := create(b, 1, true, prefix+"-0")
			if err != nil {
				return err
			}
			return codes(resp)[prefix+"-0"]
		})
	}
	refused := topicName(t, "no")
	first, err := create(two, 5, false, prefix+"-1", refused)
	if err != nil {
		t.Fatal(err)
	}
	if c := codes(first); c[prefix+"-1"] != nil || c[refused] != kerr.TopicAuthorizationFailed || first.ThrottleMillis != 0 {
		t.Fatalf("through broker 2: %v throttled %d ms, want %s created, %s TOPIC_AUTHORIZATION_FAILED, no throttle", c, first.ThrottleMillis, prefix+"-1", refused)
	}
	resp, err := create(two, 5, false, prefix+"-2", prefix+"-3") // 15 in all: 4 in debt
	if err != nil {
		t.Fatal(err)
	}
	if c := codes(resp); c[prefix+"-2"] != nil || c[prefix+"-3"] != nil || resp.ThrottleMillis < 3000 {
		t.Fatalf("through broker 2: %v throttled %d ms, want both created and about 4 s of throttle", c, resp.ThrottleMillis)
	}
	resp, err = create(three, 1, false, prefix+"-4")
	if err != nil {
		t.Fatal(err)
	}
	if c := codes(resp); c[prefix+"-4"] != kerr.ThrottlingQuotaExceeded || resp.ThrottleMillis <= 0 {
		t.Errorf("through broker 3 right after: %v throttled %d ms, want THROTTLING_QUOTA_EXCEEDED and a throttle (one bucket for the cluster)", c, resp.ThrottleMillis)
	}
	// A client cannot send an Envelope: a client port does not serve it
	// and closes the connection, as Kafka's broker listener does.
	env := kmsg.NewPtrEnvelopeRequest()
	env.RequestData = []byte{0, 19}
	raw := dialRaw(t, bs[1].Addr)
	raw.writeRequest(t, env.Key(), 0, 1, true, env.AppendTo(nil))
	raw.expectClosed(t)

	listed, err := adm.ListTopics(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]bool{prefix + "-1": true, prefix + "-2": true, prefix + "-3": true, prefix + "-4": false, refused: false} {
		if listed.Has(name) != want {
			t.Errorf("topic %s exists: %v, want %v", name, listed.Has(name), want)
		}
	}
}
