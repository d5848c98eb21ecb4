package e2e

import (
	"math"
	"slices"
	"testing"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

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
