package e2e

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// alterGroupConfig sets one config of a group (the GROUP config resource,
// KIP-848 / KIP-932) with IncrementalAlterConfigs through r, as
// kafka-configs.sh --entity-type groups --alter --add-config does, and
// returns the resource's error.
func alterGroupConfig(ctx context.Context, r kmsg.Requestor, group, name, value string) error {
	req := kmsg.NewPtrIncrementalAlterConfigsRequest()
	rr := kmsg.NewIncrementalAlterConfigsRequestResource()
	rr.ResourceType, rr.ResourceName = kmsg.ConfigResourceTypeGroupConfig, group
	c := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
	c.Name, c.Value, c.Op = name, kmsg.StringPtr(value), kmsg.IncrementalAlterConfigOpSet
	rr.Configs = append(rr.Configs, c)
	req.Resources = append(req.Resources, rr)
	resp, err := req.RequestWith(ctx, r)
	if err != nil {
		return err
	}
	if res := resp.Resources[0]; res.ErrorCode != 0 {
		msg := ""
		if res.ErrorMessage != nil {
			msg = *res.ErrorMessage
		}
		return fmt.Errorf("%w: %s", kerr.ErrorForCode(res.ErrorCode), msg)
	}
	return nil
}

// describeGroupConfig is one config of a group as DescribeConfigs has it.
func describeGroupConfig(ctx context.Context, r kmsg.Requestor, group, name string) (kmsg.DescribeConfigsResponseResourceConfig, error) {
	req := kmsg.NewPtrDescribeConfigsRequest()
	rr := kmsg.NewDescribeConfigsRequestResource()
	rr.ResourceType, rr.ResourceName, rr.ConfigNames = kmsg.ConfigResourceTypeGroupConfig, group, []string{name}
	req.Resources, req.IncludeSynonyms = append(req.Resources, rr), true
	resp, err := req.RequestWith(ctx, r)
	if err != nil {
		return kmsg.DescribeConfigsResponseResourceConfig{}, err
	}
	res := resp.Resources[0]
	if err := kerr.ErrorForCode(res.ErrorCode); err != nil {
		return kmsg.DescribeConfigsResponseResourceConfig{}, err
	}
	if len(res.Configs) != 1 {
		return kmsg.DescribeConfigsResponseResourceConfig{}, fmt.Errorf("%d configs described", len(res.Configs))
	}
	return res.Configs[0], nil
}

// TestGroupConfigShareEarliest: on a broker whose share groups start at
// the latest offset, share.auto.offset.reset=earliest set on one group
// makes a franz-go share consumer of that group read the records
// produced before it joined; DescribeConfigs shows the value as the
// group's; a value Kafka refuses is refused; and the config survives a
// SIGKILL.
func TestGroupConfigShareEarliest(t *testing.T) {
	t.Parallel()
	requireBinary(t)
	b := startBroker(t, WithConfig("group.share.heartbeat.interval.ms", "1000"))
	adm := b.Admin(t)
	topic, group := topicName(t, ""), topicName(t, "share")
	mustCreateTopic(t, adm, topic, 1, nil)
	produceOne(t, b, topic, 0, 10)
	cl := b.Client(t)
	ctx := testCtx(t, opTimeout)

	if err := alterGroupConfig(ctx, cl, group, "share.auto.offset.reset", "oldest"); !errors.Is(err, kerr.InvalidConfig) {
		t.Fatalf("share.auto.offset.reset=oldest: %v, want INVALID_CONFIG", err)
	}
	if err := alterGroupConfig(ctx, cl, group, "share.record.lock.duration.ms", "1000"); !errors.Is(err, kerr.InvalidConfig) {
		t.Fatalf("a lock below group.share.min.record.lock.duration.ms: %v, want INVALID_CONFIG", err)
	}
	if err := alterGroupConfig(ctx, cl, group, "share.auto.offset.reset", "earliest"); err != nil {
		t.Fatal(err)
	}
	check := func(when string) {
		c, err := describeGroupConfig(testCtx(t, opTimeout), b.Client(t), group, "share.auto.offset.reset")
		if err != nil {
			t.Fatalf("%s: %v", when, err)
		}
		if c.Value == nil || *c.Value != "earliest" || c.Source != kmsg.ConfigSourceGroupConfig || c.IsDefault {
			t.Fatalf("%s: share.auto.offset.reset %v source %v", when, c.Value, c.Source)
		}
	}
	check("after the change")

	m := startShareMember(t, b, group, topic, kgo.AckAccept)
	eventually(t, opTimeout, "the records produced before the group joined", func() error {
		if got := m.offsets(); len(got) < 10 {
			return fmt.Errorf("%d of 10 records delivered", len(got))
		}
		return nil
	})
	if _, ok := m.offsets()[0]; !ok {
		t.Fatalf("offset 0 was not delivered: %v", m.offsets())
	}
	m.close()

	b.KillAndRestart()
	check("after SIGKILL and restart")
	// Another group of the same broker still starts at the latest offset.
	other := topicName(t, "other")
	if c, err := describeGroupConfig(testCtx(t, opTimeout), b.Client(t), other, "share.auto.offset.reset"); err != nil || *c.Value != "latest" || c.Source != kmsg.ConfigSourceDefaultConfig {
		t.Fatalf("a group without configs: %+v %v", c, err)
	}
}

// TestClusterGroupConfigOnCoordinator: a group config set through one
// broker of three (written by the controller to the metadata log) is the
// one the group's coordinator, another broker, gives the group's members.
func TestClusterGroupConfigOnCoordinator(t *testing.T) {
	t.Parallel()
	bs := startCluster(t, 3, WithConfig("auto.create.topics.enable", "false"))
	topic, group := topicName(t, "q"), topicName(t, "sg")
	cl := clusterClient(t, bs, kgo.RetryTimeout(20*time.Second))
	ctx := testCtx(t, opTimeout)
	coordinator := func() int32 {
		req := kmsg.NewPtrFindCoordinatorRequest()
		req.CoordinatorKey, req.CoordinatorType = group, 0
		var node int32
		eventually(t, opTimeout, "the group's coordinator", func() error {
			resp, err := req.RequestWith(ctx, cl)
			if err != nil {
				return err
			}
			if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
				return err
			}
			node = resp.NodeID
			return nil
		})
		return node
	}()
	via := bs[0].NodeID
	if via == coordinator {
		via = bs[1].NodeID
	}
	if err := alterGroupConfig(ctx, cl.Broker(int(via)), group, "share.heartbeat.interval.ms", "7000"); err != nil {
		t.Fatalf("altering through broker %d: %v", via, err)
	}
	adm := bs[0].Admin(t)
	mustCreateTopic(t, adm, topic, 1, nil)
	eventually(t, opTimeout, "the coordinator gives the group's heartbeat interval", func() error {
		req := kmsg.NewPtrShareGroupHeartbeatRequest()
		req.SetVersion(1)
		req.GroupID, req.MemberID, req.MemberEpoch, req.SubscribedTopicNames = group, "member-1-of-"+group, 0, []string{topic}
		resp, err := req.RequestWith(ctx, cl.Broker(int(coordinator)))
		if err != nil {
			return err
		}
		if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
			return err
		}
		if resp.HeartbeatIntervalMillis != 7000 {
			return fmt.Errorf("coordinator %d (config set through %d) gives %d ms", coordinator, via, resp.HeartbeatIntervalMillis)
		}
		return nil
	})
}
