package e2e

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

// TestACLs runs a SASL broker with an authorizer and admin as super user.
// The admin gives alice READ and WRITE on the topics prefixed "orders-"
// and READ on the group "billing"; bob gets nothing. Alice produces and
// consumes in her group; bob is refused with TOPIC_AUTHORIZATION_FAILED
// and sees no topic in Metadata; alice is refused another topic
// (TOPIC_AUTHORIZATION_FAILED), another group (GROUP_AUTHORIZATION_FAILED)
// and the ACL APIs (CLUSTER_AUTHORIZATION_FAILED). A DENY wins over her
// ALLOW, and deleting her WRITE binding stops her writes.
func TestACLs(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t, opTimeout)
	as, adm := aclBroker(t, ctx)
	orders, secret, other := "orders-"+topicName(t, ""), "orders-secret", topicName(t, "other")
	for _, topic := range []string{orders, secret, other} {
		if _, err := adm.CreateTopic(ctx, 1, 1, nil, topic); err != nil {
			t.Fatal(err)
		}
	}
	create := func(acl *kadm.ACLBuilder) { createACLs(t, ctx, adm, acl) }
	create(kadm.NewACLs().Allow("User:alice").Topics("orders-").ResourcePatternType(kadm.ACLPatternPrefixed).
		Operations(kadm.OpRead, kadm.OpWrite))
	create(kadm.NewACLs().Allow("User:alice").Groups("billing").Operations(kadm.OpRead))
	create(kadm.NewACLs().Deny("User:alice").Topics(secret).Operations(kadm.OpAll))

	described, err := adm.DescribeACLs(ctx, kadm.NewACLs().AnyResource().Allow("User:alice").AllowHosts().Operations(kadm.OpAny).
		ResourcePatternType(kadm.ACLPatternAny))
	if err != nil || len(described) != 1 || described[0].Err != nil || len(described[0].Described) != 3 {
		t.Fatalf("DescribeACLs of alice's ALLOW bindings: %+v, %v; want 3 (READ and WRITE on orders-*, READ on billing)", described, err)
	}

	alice := as("alice", "a", kgo.DefaultProduceTopic(orders), kgo.ConsumeTopics(orders), kgo.ConsumerGroup("billing"),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err := alice.ProduceSync(ctx, &kgo.Record{Value: []byte("paid")}).FirstErr(); err != nil {
		t.Fatalf("alice produces to %s: %v", orders, err)
	}
	fs := alice.PollFetches(ctx)
	if err := fs.Err(); err != nil || fs.NumRecords() != 1 {
		t.Fatalf("alice consumes in billing: %d records, %v", fs.NumRecords(), err)
	}
	if err := alice.CommitUncommittedOffsets(ctx); err != nil {
		t.Fatalf("alice commits in billing: %v", err)
	}

	short := func() context.Context {
		c, cancel := context.WithTimeout(ctx, 5*time.Second)
		t.Cleanup(cancel)
		return c
	}
	refused := func(label string, err error, want *kerr.Error) {
		t.Helper()
		if !errors.Is(err, want) {
			t.Errorf("%s: %v, want %s", label, err, want.Message)
		}
	}
	refused("alice produces to another topic", alice.ProduceSync(short(), &kgo.Record{Topic: other, Value: []byte("x")}).FirstErr(), kerr.TopicAuthorizationFailed)
	// One Produce for two topics: the allowed one is written, the other
	// refused
	// (refused: the linger makes one request of both).
	lingering := as("alice", "a", kgo.ProducerLinger(300*time.Millisecond))
	both := lingering.ProduceSync(short(), &kgo.Record{Topic: orders, Value: []byte("ok")}, &kgo.Record{Topic: other, Value: []byte("no")})
	errs := map[string]error{}
	for _, r := range both {
		errs[r.Record.Topic] = r.Err
	}
	if len(both) != 2 || errs[orders] != nil || !errors.Is(errs[other], kerr.TopicAuthorizationFailed) {
		t.Errorf("alice produces to %s and %s at once: %v and %v, want success and TOPIC_AUTHORIZATION_FAILED", orders, other, errs[orders], errs[other])
	}
	refused("alice produces to the denied topic", alice.ProduceSync(short(), &kgo.Record{Topic: secret, Value: []byte("x")}).FirstErr(), kerr.TopicAuthorizationFailed)
	aliceAdm := kadm.NewClient(as("alice", "a"))
	_, err = aliceAdm.FetchOffsets(short(), "payroll")
	refused("alice fetches another group's offsets", err, kerr.GroupAuthorizationFailed)
	res, err := aliceAdm.DescribeACLs(short(), kadm.NewACLs().AnyResource().Allow().AllowHosts().Operations(kadm.OpAny).ResourcePatternType(kadm.ACLPatternAny))
	if err == nil && len(res) == 1 {
		err = res[0].Err
	}
	refused("alice describes ACLs", err, kerr.ClusterAuthorizationFailed)

	bob := as("bob", "b")
	refused("bob produces", bob.ProduceSync(short(), &kgo.Record{Topic: orders, Value: []byte("x")}).FirstErr(), kerr.TopicAuthorizationFailed)
	md, err := kadm.NewClient(bob).Metadata(short())
	if err != nil {
		t.Fatal(err)
	}
	if names := md.Topics.Names(); len(names) != 0 {
		t.Errorf("bob's Metadata lists %v, want no topic", names)
	}
	md, err = kadm.NewClient(bob).Metadata(short(), orders)
	if err == nil {
		err = md.Topics[orders].Err
	}
	refused("bob's Metadata of "+orders, err, kerr.TopicAuthorizationFailed)

	// Alice may read and write orders-*, but not create them: Metadata
	// does not auto-create one for her.
	md, err = kadm.NewClient(alice).Metadata(short(), "orders-new")
	if err == nil {
		err = md.Topics["orders-new"].Err
	}
	refused("alice's Metadata auto-creating orders-new", err, kerr.TopicAuthorizationFailed)
	if td, err := adm.ListTopics(ctx, "orders-new"); err != nil || td["orders-new"].Err == nil {
		t.Error("orders-new was created for alice, who may not create topics")
	}

	if _, err := adm.DeleteACLs(ctx, kadm.NewACLs().Allow("User:alice").AllowHosts().Topics("orders-").
		ResourcePatternType(kadm.ACLPatternPrefixed).Operations(kadm.OpWrite)); err != nil {
		t.Fatal(err)
	}
	refused("alice produces after her WRITE was deleted", alice.ProduceSync(short(), &kgo.Record{Value: []byte("x")}).FirstErr(), kerr.TopicAuthorizationFailed)
}

// TestACLsPerTopic: requests naming an allowed and a refused topic are
// answered per topic, as Kafka answers them. Alice may read, write and
// delete the topics prefixed "orders-" and only describe the other one.
// A franz-go consumer in her group subscribed to both reads the orders
// and reports the other one refused (TOPIC_AUTHORIZATION_FAILED: her
// Fetch and OffsetFetch name both topics); kadm's DeleteTopics of both
// deletes the orders and refuses the other, which stays.
func TestACLsPerTopic(t *testing.T) {
	t.Parallel()
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

// aclBroker starts a SASL broker with an authorizer and admin as super
// user, and creates the users alice (password "a") and bob ("b"). as
// connects as a user.
func aclBroker(t *testing.T, ctx context.Context) (as func(user, pass string, opts ...kgo.Opt) *kgo.Client, adm *kadm.Client) {
	requireBinary(t)
	addrs := reserveAddrs(t, 1)
	b := startBroker(t, WithListeners("SASL_PLAINTEXT://"+addrs[0], addrs[0]), WithArgs(
		"--add-scram", "SCRAM-SHA-512=[name=admin,password="+adminPassword+"]",
		"--authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
		"--super.users", "User:admin"))
	as = func(user, pass string, opts ...kgo.Opt) *kgo.Client {
		return b.Client(t, append([]kgo.Opt{kgo.SASL(scram.Auth{User: user, Pass: pass}.AsSha512Mechanism())}, opts...)...)
	}
	adm = kadm.NewClient(as("admin", adminPassword))
	if _, err := adm.AlterUserSCRAMs(ctx, nil, []kadm.UpsertSCRAM{
		{User: "alice", Mechanism: kadm.ScramSha512, Iterations: 4096, Password: "a"},
		{User: "bob", Mechanism: kadm.ScramSha512, Iterations: 4096, Password: "b"},
	}); err != nil {
		t.Fatal(err)
	}
	return as, adm
}

func createACLs(t *testing.T, ctx context.Context, adm *kadm.Client, acl *kadm.ACLBuilder) {
	t.Helper()
	res, err := adm.CreateACLs(ctx, acl)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if r.Err != nil {
			t.Fatalf("CreateACLs: %v", r.Err)
		}
	}
}

// TestAuthorizedOperations (KIP-430): on a SASL broker with an
// authorizer, alice may READ the topic ops-t and the groups ops-*, and
// DESCRIBE the cluster; bob has ALL on ops-t, DESCRIBE on the groups and
// nothing on the cluster. Asked through kadm (Metadata with
// WithAuthorizedOps, DescribeGroups, DescribeShareGroups) and raw
// DescribeCluster and ConsumerGroupDescribe requests, the broker answers
// each user's own operations: alice READ and DESCRIBE (implied) on the
// topic and the groups, DESCRIBE on the cluster; bob every topic
// operation, DESCRIBE on the groups, 0 on the cluster. A KIP-848 group
// assigned the topic other, which neither may describe, is
// TOPIC_AUTHORIZATION_FAILED without members; not asked, the field is
// INT32_MIN.
func TestAuthorizedOperations(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t, opTimeout)
	as, adm := aclBroker(t, ctx)
	const topic, other = "ops-t", "other"
	for _, tp := range []string{topic, other} {
		if _, err := adm.CreateTopic(ctx, 1, 1, nil, tp); err != nil {
			t.Fatal(err)
		}
	}
	create := func(acl *kadm.ACLBuilder) { createACLs(t, ctx, adm, acl) }
	create(kadm.NewACLs().Allow("User:alice").Topics(topic).Operations(kadm.OpRead))
	create(kadm.NewACLs().Allow("User:alice").Groups("ops-").ResourcePatternType(kadm.ACLPatternPrefixed).Operations(kadm.OpRead))
	create(kadm.NewACLs().Allow("User:alice").Clusters().Operations(kadm.OpDescribe))
	create(kadm.NewACLs().Allow("User:bob").Topics(topic).Operations(kadm.OpAll))
	create(kadm.NewACLs().Allow("User:bob").Groups("ops-").ResourcePatternType(kadm.ACLPatternPrefixed).Operations(kadm.OpDescribe))

	// The admin (a super user) makes the groups: a classic one, two
	// KIP-848 ones (on ops-t and on other) and a share group.
	admin := as("admin", adminPassword, kgo.DefaultProduceTopic(topic), kgo.ConsumeTopics(topic), kgo.ConsumerGroup("ops-classic"),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err := admin.ProduceSync(ctx, &kgo.Record{Value: []byte("x")}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	if fs := admin.PollFetches(ctx); fs.Err() != nil || fs.NumRecords() != 1 {
		t.Fatalf("the admin's classic consumer: %d records, %v", fs.NumRecords(), fs.Err())
	}
	for group, tp := range map[string]string{"ops-848": topic, "ops-848-other": other} {
		hb := kmsg.NewPtrConsumerGroupHeartbeatRequest()
		hb.Group, hb.MemberID, hb.RebalanceTimeoutMillis, hb.SubscribedTopicNames = group, "m-"+group, 60000, []string{tp}
		if r, err := hb.RequestWith(ctx, admin); err != nil || r.ErrorCode != 0 {
			t.Fatalf("ConsumerGroupHeartbeat %s: %+v, %v", group, r, err)
		}
	}
	sh := kmsg.NewPtrShareGroupHeartbeatRequest()
	sh.GroupID, sh.MemberID, sh.SubscribedTopicNames = "ops-share", "s1-0123456789abcdef", []string{topic}
	if r, err := sh.RequestWith(ctx, admin); err != nil || r.ErrorCode != 0 {
		t.Fatalf("ShareGroupHeartbeat: %+v, %v", r, err)
	}

	read, describe := []kadm.ACLOperation{kadm.OpRead, kadm.OpDescribe}, []kadm.ACLOperation{kadm.OpDescribe}
	allTopic := []kadm.ACLOperation{kadm.OpRead, kadm.OpWrite, kadm.OpCreate, kadm.OpDelete, kadm.OpAlter, kadm.OpDescribe,
		kadm.OpDescribeConfigs, kadm.OpAlterConfigs}
	for _, u := range []struct {
		user, pass         string
		topicOps, groupOps []kadm.ACLOperation
		clusterOps         int32
	}{
		{"alice", "a", read, read, 1 << kmsg.ACLOperationDescribe},
		{"bob", "b", allTopic, describe, 0},
	} {
		cl := as(u.user, u.pass)
		ua := kadm.NewClient(cl)
		want := func(what string, got, want []kadm.ACLOperation) {
			t.Helper()
			slices.Sort(got)
			w := slices.Sorted(slices.Values(want))
			if !slices.Equal(got, w) {
				t.Errorf("%s, %s: %v, want %v", u.user, what, got, w)
			}
		}

		md, err := ua.Metadata(kadm.WithAuthorizedOps(ctx), topic)
		if err != nil {
			t.Fatalf("%s: Metadata: %v", u.user, err)
		}
		want("Metadata of "+topic, md.Topics[topic].AuthorizedOperations, u.topicOps)
		plain := kmsg.NewPtrMetadataRequest()
		mt := kmsg.NewMetadataRequestTopic()
		mt.Topic = kmsg.StringPtr(topic)
		plain.Topics = append(plain.Topics, mt)
		if r, err := plain.RequestWith(ctx, cl); err != nil || len(r.Topics) != 1 || r.Topics[0].AuthorizedOperations != math.MinInt32 {
			t.Errorf("%s: Metadata not asking: %+v, %v; want INT32_MIN", u.user, r, err)
		}

		dc := kmsg.NewPtrDescribeClusterRequest()
		dc.IncludeClusterAuthorizedOperations = true
		if r, err := dc.RequestWith(ctx, cl); err != nil || r.ErrorCode != 0 || r.ClusterAuthorizedOperations != u.clusterOps {
			t.Errorf("%s: DescribeCluster: %+v, %v; want cluster operations %b", u.user, r, err, u.clusterOps)
		}

		dg, err := ua.DescribeGroups(ctx, "ops-classic")
		if err != nil || dg["ops-classic"].Err != nil {
			t.Fatalf("%s: DescribeGroups: %+v, %v", u.user, dg, err)
		}
		want("DescribeGroups ops-classic", dg["ops-classic"].AuthorizedOperations, u.groupOps)

		ds, err := ua.DescribeShareGroups(ctx, "ops-share")
		if err != nil || ds["ops-share"].Err != nil || len(ds["ops-share"].Members) != 1 {
			t.Fatalf("%s: DescribeShareGroups: %+v, %v", u.user, ds, err)
		}
		want("DescribeShareGroups ops-share", ds["ops-share"].AuthorizedOperations, u.groupOps)

		for _, asked := range []bool{true, false} {
			cd := kmsg.NewPtrConsumerGroupDescribeRequest()
			cd.Groups, cd.IncludeAuthorizedOperations = []string{"ops-848", "ops-848-other"}, asked
			r, err := cd.RequestWith(ctx, cl)
			if err != nil || len(r.Groups) != 2 {
				t.Fatalf("%s: ConsumerGroupDescribe: %+v, %v", u.user, r, err)
			}
			for _, g := range r.Groups {
				switch {
				case g.Group == "ops-848" && (g.ErrorCode != 0 || len(g.Members) != 1):
					t.Errorf("%s: ConsumerGroupDescribe ops-848: %+v, want its member", u.user, g)
				case g.Group == "ops-848" && asked:
					want("ConsumerGroupDescribe ops-848", kadm.DecodeACLOperations(g.AuthorizedOperations), u.groupOps)
				case g.Group == "ops-848" && g.AuthorizedOperations != math.MinInt32:
					t.Errorf("%s: ConsumerGroupDescribe ops-848 not asking: %b, want INT32_MIN", u.user, g.AuthorizedOperations)
				case g.Group == "ops-848-other" && (g.ErrorCode != kerr.TopicAuthorizationFailed.Code || len(g.Members) != 0 || g.AuthorizedOperations != math.MinInt32):
					t.Errorf("%s: ConsumerGroupDescribe ops-848-other (on %s): %+v, want TOPIC_AUTHORIZATION_FAILED, no member", u.user, other, g)
				}
			}
		}
	}
}

// TestShareGroupACLs (KIP-932 under an authorizer): alice, with READ on
// the topic and the share group, consumes with franz-go's share consumer
// and her acknowledgements are accepted; bob, with READ on the topic only,
// is refused the group (GROUP_AUTHORIZATION_FAILED), and carol, with READ
// on the group only, may not subscribe to the topic
// (TOPIC_AUTHORIZATION_FAILED). Kafka asks no CLUSTER_ACTION of them.
func TestShareGroupACLs(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t, opTimeout)
	as, adm := aclBroker(t, ctx)
	const topic, group = "share-acl-t", "share-acl-g"
	if _, err := adm.CreateTopic(ctx, 1, 1, nil, topic); err != nil {
		t.Fatal(err)
	}
	if _, err := adm.AlterUserSCRAMs(ctx, nil, []kadm.UpsertSCRAM{{User: "carol", Mechanism: kadm.ScramSha512, Iterations: 4096, Password: "c"}}); err != nil {
		t.Fatal(err)
	}
	create := func(acl *kadm.ACLBuilder) { createACLs(t, ctx, adm, acl) }
	create(kadm.NewACLs().Allow("User:alice", "User:bob").Topics(topic).Operations(kadm.OpRead))
	create(kadm.NewACLs().Allow("User:alice", "User:carol").Groups(group).Operations(kadm.OpRead))

	md, err := adm.BrokerMetadata(ctx)
	if err != nil || len(md.Brokers) != 1 {
		t.Fatalf("BrokerMetadata: %+v, %v", md, err)
	}
	// Sent to the broker itself: FindCoordinator, which franz-go would
	// send first, has its own check (DESCRIBE on the group).
	heartbeat := func(user, pass string) int16 {
		hb := kmsg.NewPtrShareGroupHeartbeatRequest()
		hb.GroupID, hb.MemberID, hb.SubscribedTopicNames = group, "probe-"+user+"-0123456789", []string{topic}
		r, err := as(user, pass).Broker(int(md.Brokers[0].NodeID)).Request(ctx, hb)
		if err != nil {
			t.Fatalf("%s: ShareGroupHeartbeat: %v", user, err)
		}
		return r.(*kmsg.ShareGroupHeartbeatResponse).ErrorCode
	}
	if code := heartbeat("bob", "b"); code != kerr.GroupAuthorizationFailed.Code {
		t.Errorf("bob's share group heartbeat: %v, want GROUP_AUTHORIZATION_FAILED", kerr.ErrorForCode(code))
	}
	if code := heartbeat("carol", "c"); code != kerr.TopicAuthorizationFailed.Code {
		t.Errorf("carol's share group heartbeat: %v, want TOPIC_AUTHORIZATION_FAILED", kerr.ErrorForCode(code))
	}

	acks := make(chan error, 16)
	alice := as("alice", "a", kgo.ShareGroup(group), kgo.ConsumeTopics(topic), kgo.ShareMaxRecords(5),
		kgo.ShareAckCallback(func(_ *kgo.Client, rs kgo.ShareAckResults) {
			for _, r := range rs {
				acks <- r.Err
			}
		}))
	admin := as("admin", adminPassword, kgo.DefaultProduceTopic(topic))
	// The group starts at the log end (share.auto.offset.reset=latest):
	// produce until alice's member, once assigned, reads a record.
	var got *kgo.Record
	eventually(t, opTimeout, "alice's share consumer reading a record", func() error {
		if err := admin.ProduceSync(ctx, &kgo.Record{Value: []byte("x")}).FirstErr(); err != nil {
			return err
		}
		pctx, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		fs := alice.PollRecords(pctx, 1)
		for _, e := range fs.Errors() {
			if !errors.Is(e.Err, context.DeadlineExceeded) {
				return e.Err
			}
		}
		if fs.NumRecords() == 0 {
			return errors.New("no record yet")
		}
		got = fs.Records()[0]
		return nil
	})
	got.Ack(kgo.AckAccept)
	alice.FlushAcks(ctx)
	select {
	case err := <-acks:
		if err != nil {
			t.Errorf("alice's acknowledgement of offset %d: %v", got.Offset, err)
		}
	case <-ctx.Done():
		t.Fatal("alice's acknowledgement was never answered")
	}
}
