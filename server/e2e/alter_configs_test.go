package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/IBM/sarama"
	"github.com/segmentio/kafka-go"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestAlterConfigsLegacy: the legacy AlterConfigs (key 33) replaces a
// resource's dynamic values, as Kafka 4 serves it to the clients that
// still send it: kadm's ...State calls, sarama's ClusterAdmin.AlterConfig
// and kafka-go's Client.AlterConfigs. Each change is read back with
// DescribeConfigs and, where it has one, seen in the broker's behaviour.
func TestAlterConfigsLegacy(t *testing.T) {
	t.Parallel()
	requireBinary(t)
	b := startBroker(t, WithConfig("auto.create.topics.enable", "false"))
	ctx := testCtx(t, opTimeout)
	adm := b.Admin(t)
	topic := topicName(t, "")
	day := "86400000"
	mustCreateTopic(t, adm, topic, 1, map[string]*string{"retention.ms": &day})
	big := strings.Repeat("x", 500)
	cl := b.Client(t, kgo.DefaultProduceTopic(topic), kgo.RecordRetries(1), kgo.ProducerBatchCompression(kgo.NoCompression()))

	// Validate-only changes nothing.
	rs, err := adm.ValidateAlterTopicConfigsState(ctx, []kadm.AlterConfig{{Name: "max.message.bytes", Value: kadm.StringPtr("200")}}, topic)
	if err != nil || rs[0].Err != nil {
		t.Fatalf("ValidateAlterTopicConfigsState: %v %+v", err, rs)
	}
	if v := topicConfig(t, adm, topic, "retention.ms"); v.MaybeValue() != day {
		t.Errorf("after validate-only retention.ms = %q, want %s", v.MaybeValue(), day)
	}
	mustProduce(t, cl, big)

	// kadm: the whole set is replaced; retention.ms, left out, goes back
	// to its default, and the new limit refuses a 500-byte record.
	rs, err = adm.AlterTopicConfigsState(ctx, []kadm.AlterConfig{{Name: "max.message.bytes", Value: kadm.StringPtr("200")}}, topic)
	if err != nil || rs[0].Err != nil {
		t.Fatalf("AlterTopicConfigsState: %v %+v", err, rs)
	}
	if v := topicConfig(t, adm, topic, "retention.ms"); v.MaybeValue() == day || v.Source == kmsg.ConfigSourceDynamicTopicConfig {
		t.Errorf("retention.ms = %q (source %v) after a replacement that left it out, want the default", v.MaybeValue(), v.Source)
	}
	if v := topicConfig(t, adm, topic, "max.message.bytes"); v.MaybeValue() != "200" || v.Source != kmsg.ConfigSourceDynamicTopicConfig {
		t.Errorf("max.message.bytes = %q (source %v), want 200 DYNAMIC_TOPIC_CONFIG", v.MaybeValue(), v.Source)
	}
	if err := cl.ProduceSync(ctx, kgo.StringRecord(big)).FirstErr(); !errors.Is(err, kerr.MessageTooLarge) {
		t.Errorf("a 500-byte record under max.message.bytes=200: %v, want MESSAGE_TOO_LARGE", err)
	}

	// Refusals: an unknown setting, a bad value, an unknown topic; the
	// topic keeps its values.
	for _, c := range []struct {
		topic, name, value string
		want               error
	}{
		{topic, "no.such.config", "1", kerr.InvalidConfig},
		{topic, "retention.ms", "soon", kerr.InvalidConfig},
		{topic + "-missing", "retention.ms", "1000", kerr.UnknownTopicOrPartition},
	} {
		rs, err := adm.AlterTopicConfigsState(ctx, []kadm.AlterConfig{{Name: c.name, Value: kadm.StringPtr(c.value)}}, c.topic)
		if err != nil || !errors.Is(rs[0].Err, c.want) {
			t.Errorf("AlterTopicConfigsState %s=%s on %s: %v %v, want %v", c.name, c.value, c.topic, err, rs, c.want)
		}
	}
	if v := topicConfig(t, adm, topic, "max.message.bytes"); v.MaybeValue() != "200" {
		t.Errorf("max.message.bytes = %q after refused alterations, want 200", v.MaybeValue())
	}

	// Broker settings, by this broker's id: num.partitions applies to the
	// next topic created without a partition count.
	brs, err := adm.AlterBrokerConfigsState(ctx, []kadm.AlterConfig{{Name: "num.partitions", Value: kadm.StringPtr("3")}}, b.NodeID)
	if err != nil || brs[0].Err != nil {
		t.Fatalf("AlterBrokerConfigsState: %v %+v", err, brs)
	}
	three := topicName(t, "three")
	mustCreateTopic(t, adm, three, -1, nil)
	if n := len(metadataTopic(t, adm, three).Partitions); n != 3 {
		t.Errorf("a topic created after num.partitions=3 has %d partitions", n)
	}
	brs, err = adm.AlterBrokerConfigsState(ctx, []kadm.AlterConfig{{Name: "node.id", Value: kadm.StringPtr("7")}}, b.NodeID)
	if err != nil || !errors.Is(brs[0].Err, kerr.InvalidRequest) || brs[0].ErrMessage != "Cannot update these configs dynamically: Set(node.id)" {
		t.Errorf("AlterBrokerConfigsState node.id: %v %+v, want Kafka's INVALID_REQUEST for a read-only setting", err, brs)
	}

	// sarama: the same replacement; max.message.bytes, left out, is lifted.
	admin := saramaAdmin(t, b.Addr)
	hour := "3600000"
	if err := admin.AlterConfig(sarama.TopicResource, topic, map[string]*string{"retention.ms": &hour}, false); err != nil {
		t.Fatalf("sarama AlterConfig: %v", err)
	}
	if v := topicConfig(t, adm, topic, "retention.ms"); v.MaybeValue() != hour {
		t.Errorf("after sarama AlterConfig retention.ms = %q, want %s", v.MaybeValue(), hour)
	}
	mustProduce(t, cl, big)
	bad := "-5"
	if err := admin.AlterConfig(sarama.TopicResource, topic, map[string]*string{"retention.ms": &bad}, true); err == nil {
		t.Errorf("sarama AlterConfig validate-only retention.ms=-5: no error, want INVALID_CONFIG")
	}

	// kafka-go.
	client := &kafka.Client{Addr: kafka.TCP(b.Addr), Timeout: 10 * time.Second}
	resp, err := client.AlterConfigs(ctx, &kafka.AlterConfigsRequest{Resources: []kafka.AlterConfigRequestResource{{
		ResourceType: kafka.ResourceTypeTopic, ResourceName: topic,
		Configs: []kafka.AlterConfigRequestConfig{{Name: "segment.bytes", Value: "2097152"}},
	}}})
	if err != nil {
		t.Fatalf("kafka-go AlterConfigs: %v", err)
	}
	for res, err := range resp.Errors {
		if err != nil {
			t.Errorf("kafka-go AlterConfigs %v: %v", res, err)
		}
	}
	if v := topicConfig(t, adm, topic, "segment.bytes"); v.MaybeValue() != "2097152" {
		t.Errorf("after kafka-go AlterConfigs segment.bytes = %q, want 2097152", v.MaybeValue())
	}
	if v := topicConfig(t, adm, topic, "retention.ms"); v.MaybeValue() == hour {
		t.Errorf("after kafka-go AlterConfigs retention.ms is still %s; the replacement left it out", hour)
	}

	// The values survive a restart.
	b.Stop()
	b.Restart()
	if v := topicConfig(t, adm, topic, "segment.bytes"); v.MaybeValue() != "2097152" {
		t.Errorf("after a restart segment.bytes = %q, want 2097152", v.MaybeValue())
	}
}

// TestClusterAlterConfigs: in a cluster the controller alters topics and
// the cluster-wide broker settings, for both AlterConfigs and
// IncrementalAlterConfigs sent to any broker; every broker applies the
// change, and a partition's leader enforces it.
func TestClusterAlterConfigs(t *testing.T) {
	t.Parallel()
	bs := startCluster(t, 3)
	cl := clusterClient(t, bs, kgo.RetryTimeout(20*time.Second))
	adm := kadm.NewClient(cl)
	topic := topicName(t, "")
	createFullyReplicated(t, adm, 1, topic)
	ctx := testCtx(t, 2*opTimeout)
	producer := clusterClient(t, bs, kgo.DefaultProduceTopic(topic), kgo.RecordRetries(1), kgo.ProducerBatchCompression(kgo.NoCompression()))
	big := strings.Repeat("x", 500)

	rs, err := adm.AlterTopicConfigsState(ctx, []kadm.AlterConfig{
		{Name: "max.message.bytes", Value: kadm.StringPtr("200")},
		{Name: "min.insync.replicas", Value: kadm.StringPtr("2")},
	}, topic)
	if err != nil || rs[0].Err != nil {
		t.Fatalf("AlterTopicConfigsState: %v %+v", err, rs)
	}
	waitConfigEverywhere(t, cl, bs, topic, "max.message.bytes", "200")
	if err := producer.ProduceSync(ctx, kgo.StringRecord(big)).FirstErr(); !errors.Is(err, kerr.MessageTooLarge) {
		t.Errorf("a 500-byte record under max.message.bytes=200: %v, want MESSAGE_TOO_LARGE", err)
	}

	// The incremental API goes through the controller too.
	irs, err := adm.AlterTopicConfigs(ctx, []kadm.AlterConfig{{Op: kadm.DeleteConfig, Name: "max.message.bytes"}}, topic)
	if err != nil || irs[0].Err != nil {
		t.Fatalf("AlterTopicConfigs DELETE: %v %+v", err, irs)
	}
	waitConfigEverywhere(t, cl, bs, topic, "max.message.bytes", "1048588")
	mustProduce(t, producer, big)

	// The controller checks as a single broker does.
	rs, err = adm.AlterTopicConfigsState(ctx, []kadm.AlterConfig{{Name: "no.such.config", Value: kadm.StringPtr("1")}}, topic)
	if err != nil || !errors.Is(rs[0].Err, kerr.InvalidConfig) {
		t.Errorf("AlterTopicConfigsState no.such.config: %v %+v, want INVALID_CONFIG", err, rs)
	}
	vrs, err := adm.ValidateAlterTopicConfigsState(ctx, []kadm.AlterConfig{{Name: "retention.ms", Value: kadm.StringPtr("1000")}}, topic)
	if err != nil || vrs[0].Err != nil {
		t.Errorf("ValidateAlterTopicConfigsState: %v %+v", err, vrs)
	}

	// sarama, through whichever broker it picks.
	hour := "3600000"
	admin := saramaAdmin(t, seeds(bs)...)
	if err := admin.AlterConfig(sarama.TopicResource, topic, map[string]*string{"retention.ms": &hour}, false); err != nil {
		t.Fatalf("sarama AlterConfig: %v", err)
	}
	waitConfigEverywhere(t, cl, bs, topic, "retention.ms", hour)
	waitConfigEverywhere(t, cl, bs, topic, "min.insync.replicas", "1") // left out: back to the default

	// Broker settings are cluster-wide: set through the controller, each
	// broker applies them (message.max.bytes is the default of the
	// topic's max.message.bytes, enforced by its leader).
	brs, err := adm.AlterBrokerConfigs(ctx, []kadm.AlterConfig{{Op: kadm.SetConfig, Name: "message.max.bytes", Value: kadm.StringPtr("200")}})
	if err != nil || len(brs) != 1 || brs[0].Err != nil {
		t.Fatalf("AlterBrokerConfigs (cluster-wide): %v %+v", err, brs)
	}
	waitConfigEverywhere(t, cl, bs, topic, "max.message.bytes", "200")
	if err := producer.ProduceSync(ctx, kgo.StringRecord(big)).FirstErr(); !errors.Is(err, kerr.MessageTooLarge) {
		t.Errorf("a 500-byte record under a cluster-wide message.max.bytes=200: %v, want MESSAGE_TOO_LARGE", err)
	}
	brs, err = adm.AlterBrokerConfigsState(ctx, nil) // the legacy API: replace them all with none
	if err != nil || len(brs) != 1 || brs[0].Err != nil {
		t.Fatalf("AlterBrokerConfigsState (cluster-wide, none): %v %+v", err, brs)
	}
	waitConfigEverywhere(t, cl, bs, topic, "max.message.bytes", "1048588")
	mustProduce(t, producer, big)
	// A topic on one broker is described, and altered, through any.
	lone := topicName(t, "lone")
	createAssigned(t, cl, lone, []int32{1})
	rs, err = adm.AlterTopicConfigsState(ctx, []kadm.AlterConfig{{Name: "retention.ms", Value: kadm.StringPtr(hour)}}, lone)
	if err != nil || rs[0].Err != nil {
		t.Fatalf("AlterTopicConfigsState on a topic with one replica: %v %+v", err, rs)
	}
	waitConfigEverywhere(t, cl, bs, lone, "retention.ms", hour)

	brs, err = adm.AlterBrokerConfigs(ctx, []kadm.AlterConfig{{Op: kadm.SetConfig, Name: "message.max.bytes", Value: kadm.StringPtr("200")}}, 2)
	if err != nil || len(brs) != 1 || !errors.Is(brs[0].Err, kerr.InvalidRequest) {
		t.Errorf("AlterBrokerConfigs for broker 2 alone: %v %+v, want INVALID_REQUEST", err, brs)
	}
}

// waitConfigEverywhere waits until every broker's DescribeConfigs reports
// a topic setting's value.
func waitConfigEverywhere(t *testing.T, cl *kgo.Client, bs []*Broker, topic, name, want string) {
	t.Helper()
	for _, b := range bs {
		eventually(t, 30*time.Second, fmt.Sprintf("broker %d reporting %s=%s", b.NodeID, name, want), func() error {
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			defer cancel()
			req := kmsg.NewPtrDescribeConfigsRequest()
			rr := kmsg.NewDescribeConfigsRequestResource()
			rr.ResourceType, rr.ResourceName, rr.ConfigNames = kmsg.ConfigResourceTypeTopic, topic, []string{name}
			req.Resources = append(req.Resources, rr)
			resp, err := req.RequestWith(ctx, cl.Broker(int(b.NodeID)))
			if err != nil {
				return err
			}
			if len(resp.Resources) != 1 || len(resp.Resources[0].Configs) != 1 {
				return fmt.Errorf("answer %+v", resp.Resources)
			}
			if got := resp.Resources[0].Configs[0].Value; got == nil || *got != want {
				return fmt.Errorf("value %v", got)
			}
			return nil
		})
	}
}

func mustProduce(t *testing.T, cl *kgo.Client, value string) {
	t.Helper()
	if err := cl.ProduceSync(testCtx(t, opTimeout), kgo.StringRecord(value)).FirstErr(); err != nil {
		t.Fatalf("producing %d bytes: %v", len(value), err)
	}
}

// saramaAdmin is a sarama ClusterAdmin on addrs, closed with the test.
func saramaAdmin(t *testing.T, addrs ...string) sarama.ClusterAdmin {
	t.Helper()
	cfg := sarama.NewConfig()
	cfg.Version = sarama.V3_6_0_0
	cfg.ClientID = "gregor-e2e-sarama"
	cfg.Admin.Timeout = 10 * time.Second
	cfg.Metadata.Retry.Backoff = 50 * time.Millisecond
	admin, err := sarama.NewClusterAdmin(addrs, cfg)
	if err != nil {
		t.Fatalf("sarama.NewClusterAdmin: %v", err)
	}
	t.Cleanup(func() { admin.Close() })
	return admin
}

// TestKafkajsAlterConfigs: kafkajs's admin.alterConfigs sends the legacy
// AlterConfigs: validate-only changes nothing, the change replaces the
// topic's values (retention.ms, left out, goes back to its default), and
// an unknown config is INVALID_CONFIG.
func TestKafkajsAlterConfigs(t *testing.T) {
	t.Parallel()
	node := requireTool(t, "node")
	dir := filepath.Join(repoRoot, "server", "e2e", "kafkajs")
	requireNpmPackage(t, dir, "kafkajs")
	b := startBroker(t, WithConfig("auto.create.topics.enable", "false"))
	topic := topicName(t, "")
	day := "86400000"
	mustCreateTopic(t, b.Admin(t), topic, 1, map[string]*string{"retention.ms": &day})

	cmd := exec.CommandContext(testCtx(t, opTimeout), node, "alter_configs.js", b.Addr, topic)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node alter_configs.js: %v\n%s", err, stderr.String())
	}
	var res struct {
		Before, AfterValidate, AfterAlter, AfterUnknown map[string]string
		UnknownError                                    *string
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("kafkajs output %q: %v", out, err)
	}
	if res.Before["retention.ms"] != day || res.AfterValidate["retention.ms"] != day || res.AfterValidate["segment.bytes"] == "2097152" {
		t.Errorf("validate-only changed something: before %v, after %v", res.Before, res.AfterValidate)
	}
	if res.AfterAlter["segment.bytes"] != "2097152" || res.AfterAlter["retention.ms"] == day {
		t.Errorf("after alterConfigs %v, want segment.bytes 2097152 and retention.ms back to its default", res.AfterAlter)
	}
	if res.UnknownError == nil || *res.UnknownError != "INVALID_CONFIG" {
		t.Errorf("alterConfigs no.such.config: error %v, want INVALID_CONFIG", res.UnknownError)
	}
	if res.AfterUnknown["segment.bytes"] != "2097152" {
		t.Errorf("a refused alterConfigs changed the topic: %v", res.AfterUnknown)
	}
}
