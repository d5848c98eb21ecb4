package e2e

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestFranz drives the broker with franz-go's kgo and kadm, one subtest per
// feature, all on one broker process started with non-default flags so that
// the tests also see that flags reach the broker.
func TestFranz(t *testing.T) {
	t.Parallel()
	b := startBroker(t,
		WithConfig("num.partitions", "3"),
		WithConfig("log.segment.bytes", "1048576"),
		WithConfig("auto.create.topics.enable", "false"),
	)

	t.Run("CreateTopicWithConfigs", func(t *testing.T) {
		ctx := testCtx(t, opTimeout)
		adm := b.Admin(t)
		topic := topicName(t, "")
		resp, err := adm.CreateTopic(ctx, 2, 1, map[string]*string{
			"retention.ms":   kadm.StringPtr("3600000"),
			"cleanup.policy": kadm.StringPtr("delete"),
		}, topic)
		if err != nil || resp.Err != nil {
			t.Fatalf("CreateTopic: err=%v resp.Err=%v (%s)", err, resp.Err, resp.ErrMessage)
		}
		if resp.NumPartitions != 2 || resp.ReplicationFactor != 1 {
			t.Errorf("CreateTopic answered partitions=%d rf=%d, want 2 and 1", resp.NumPartitions, resp.ReplicationFactor)
		}
		md := metadataTopic(t, adm, topic)
		if len(md.Partitions) != 2 {
			t.Errorf("metadata: %d partitions, want 2", len(md.Partitions))
		}
		cfg := topicConfig(t, adm, topic, "retention.ms")
		if cfg.MaybeValue() != "3600000" || cfg.Source != kmsg.ConfigSourceDynamicTopicConfig {
			t.Errorf("retention.ms = %q source %v, want 3600000 from DYNAMIC_TOPIC_CONFIG", cfg.MaybeValue(), cfg.Source)
		}

		// Creating it again is TOPIC_ALREADY_EXISTS.
		rs, err := adm.CreateTopics(ctx, 2, 1, nil, topic)
		if err != nil {
			t.Fatalf("second CreateTopics: %v", err)
		}
		if r, _ := rs.On(topic, nil); !errors.Is(r.Err, kerr.TopicAlreadyExists) {
			t.Errorf("second CreateTopics: err %v, want TOPIC_ALREADY_EXISTS", r.Err)
		}

		// -1 partitions takes num.partitions from the command line.
		dflt := topicName(t, "default")
		resp, err = adm.CreateTopic(ctx, -1, -1, nil, dflt)
		if err != nil || resp.Err != nil {
			t.Fatalf("CreateTopic(-1,-1): err=%v resp.Err=%v", err, resp.Err)
		}
		if got := len(metadataTopic(t, adm, dflt).Partitions); got != 3 {
			t.Errorf("topic created with -1 partitions has %d, want 3 (--num.partitions 3)", got)
		}
	})

	t.Run("CreateTopicValidateOnly", func(t *testing.T) {
		ctx := testCtx(t, opTimeout)
		adm := b.Admin(t)
		topic := topicName(t, "")
		resp, err := adm.ValidateCreateTopics(ctx, 4, 1, nil, topic)
		if err != nil {
			t.Fatalf("ValidateCreateTopics: %v", err)
		}
		r, err := resp.On(topic, nil)
		if err != nil || r.Err != nil {
			t.Fatalf("ValidateCreateTopics: err=%v topic err=%v", err, r.Err)
		}
		// The topic must not exist afterwards.
		tds, err := adm.ListTopics(ctx)
		if err != nil {
			t.Fatalf("ListTopics: %v", err)
		}
		if tds.Has(topic) {
			t.Errorf("validate-only CreateTopics created topic %q", topic)
		}
		// An invalid request is still rejected in validate-only mode.
		resp, err = adm.ValidateCreateTopics(ctx, 1, 1, map[string]*string{"no.such.config": kadm.StringPtr("1")}, topic)
		if err != nil {
			t.Fatalf("ValidateCreateTopics(bad config): %v", err)
		}
		if r, _ := resp.On(topic, nil); !errors.Is(r.Err, kerr.InvalidConfig) {
			t.Errorf("validate-only create with unknown config: err %v, want INVALID_CONFIG", r.Err)
		}
	})

	t.Run("DescribeAndAlterConfigs", func(t *testing.T) {
		ctx := testCtx(t, opTimeout)
		adm := b.Admin(t)
		topic := topicName(t, "")
		mustCreateTopic(t, adm, topic, 1, nil)

		// Defaults come back with a default (or static broker) source.
		c := topicConfig(t, adm, topic, "segment.bytes")
		if c.MaybeValue() != "1048576" {
			t.Errorf("topic segment.bytes = %q, want 1048576 inherited from --log.segment.bytes", c.MaybeValue())
		}
		if c.Source == kmsg.ConfigSourceDynamicTopicConfig {
			t.Errorf("segment.bytes source = %v for a topic that never set it", c.Source)
		}

		// IncrementalAlterConfigs SET then DELETE.
		rs, err := adm.AlterTopicConfigs(ctx, []kadm.AlterConfig{
			{Op: kadm.SetConfig, Name: "retention.ms", Value: kadm.StringPtr("7200000")},
			{Op: kadm.SetConfig, Name: "segment.bytes", Value: kadm.StringPtr("2097152")},
		}, topic)
		if err != nil {
			t.Fatalf("AlterTopicConfigs: %v", err)
		}
		for _, r := range rs {
			if r.Err != nil {
				t.Fatalf("AlterTopicConfigs %s: %v (%s)", r.Name, r.Err, r.ErrMessage)
			}
		}
		if v := topicConfig(t, adm, topic, "retention.ms"); v.MaybeValue() != "7200000" || v.Source != kmsg.ConfigSourceDynamicTopicConfig {
			t.Errorf("after SET retention.ms = %q source %v, want 7200000 DYNAMIC_TOPIC_CONFIG", v.MaybeValue(), v.Source)
		}
		if v := topicConfig(t, adm, topic, "segment.bytes"); v.MaybeValue() != "2097152" {
			t.Errorf("after SET segment.bytes = %q, want 2097152", v.MaybeValue())
		}
		rs, err = adm.AlterTopicConfigs(ctx, []kadm.AlterConfig{{Op: kadm.DeleteConfig, Name: "segment.bytes"}}, topic)
		if err != nil || rs[0].Err != nil {
			t.Fatalf("AlterTopicConfigs DELETE: %v %v", err, rs)
		}
		if v := topicConfig(t, adm, topic, "segment.bytes"); v.MaybeValue() != "1048576" || v.Source == kmsg.ConfigSourceDynamicTopicConfig {
			t.Errorf("after DELETE segment.bytes = %q source %v, want the broker's 1048576 back", v.MaybeValue(), v.Source)
		}

		// An unknown topic config is INVALID_CONFIG, and changes nothing.
		rs, err = adm.AlterTopicConfigs(ctx, []kadm.AlterConfig{{Op: kadm.SetConfig, Name: "no.such.config", Value: kadm.StringPtr("1")}}, topic)
		if err != nil {
			t.Fatalf("AlterTopicConfigs(unknown): %v", err)
		}
		if !errors.Is(rs[0].Err, kerr.InvalidConfig) {
			t.Errorf("alter unknown config: err %v, want INVALID_CONFIG", rs[0].Err)
		}

		// Broker configs: the command-line values are visible.
		brs, err := adm.DescribeBrokerConfigs(ctx, b.NodeID)
		if err != nil {
			t.Fatalf("DescribeBrokerConfigs: %v", err)
		}
		br, err := brs.On(fmt.Sprint(b.NodeID), nil)
		if err != nil || br.Err != nil {
			t.Fatalf("DescribeBrokerConfigs: %v %v", err, br.Err)
		}
		if !useKfake { // kfake does not report these
			if v := findConfig(br.Configs, "log.segment.bytes"); v == nil || v.MaybeValue() != "1048576" {
				t.Errorf("broker log.segment.bytes = %v, want 1048576 (--log.segment.bytes)", v)
			}
			if v := findConfig(br.Configs, "num.partitions"); v == nil || v.MaybeValue() != "3" {
				t.Errorf("broker num.partitions = %v, want 3", v)
			}
		}
	})

	t.Run("Metadata", func(t *testing.T) {
		ctx := testCtx(t, opTimeout)
		adm := b.Admin(t)
		topic := topicName(t, "")
		mustCreateTopic(t, adm, topic, 3, nil)
		md, err := adm.Metadata(ctx, topic)
		if err != nil {
			t.Fatalf("Metadata: %v", err)
		}
		if len(md.Brokers) != 1 {
			t.Fatalf("metadata lists %d brokers, want 1: %v", len(md.Brokers), md.Brokers)
		}
		br := md.Brokers[0]
		if br.NodeID != b.NodeID || fmt.Sprintf("%s:%d", br.Host, br.Port) != b.Addr {
			t.Errorf("broker = node %d at %s:%d, want node %d at %s", br.NodeID, br.Host, br.Port, b.NodeID, b.Addr)
		}
		if md.Controller != b.NodeID {
			t.Errorf("controller = %d, want %d", md.Controller, b.NodeID)
		}
		td := md.Topics[topic]
		if td.Err != nil || len(td.Partitions) != 3 {
			t.Fatalf("topic: err %v, %d partitions, want 3", td.Err, len(td.Partitions))
		}
		if td.ID == (kadm.TopicID{}) {
			t.Errorf("topic has a zero topic id")
		}
		for p := int32(0); p < 3; p++ {
			pd, ok := td.Partitions[p]
			if !ok {
				t.Errorf("partition %d missing", p)
				continue
			}
			if pd.Err != nil || pd.Leader != b.NodeID || !slices.Equal(pd.Replicas, []int32{b.NodeID}) || !slices.Equal(pd.ISR, []int32{b.NodeID}) {
				t.Errorf("partition %d: err %v leader %d replicas %v isr %v; want leader, replicas and isr = %d",
					p, pd.Err, pd.Leader, pd.Replicas, pd.ISR, b.NodeID)
			}
		}
		// An unknown topic (auto-create is off) is UNKNOWN_TOPIC_OR_PARTITION.
		missing := topicName(t, "missing")
		md, err = adm.Metadata(ctx, missing)
		if err != nil {
			t.Fatalf("Metadata(missing): %v", err)
		}
		if td := md.Topics[missing]; !errors.Is(td.Err, kerr.UnknownTopicOrPartition) {
			t.Errorf("metadata for a missing topic: err %v, want UNKNOWN_TOPIC_OR_PARTITION", td.Err)
		}
	})

	t.Run("ProduceConsume", func(t *testing.T) {
		for _, codec := range []struct {
			name  string
			codec kgo.CompressionCodec
			attr  uint8 // RecordAttrs.CompressionType()
		}{
			{"none", kgo.NoCompression(), 0},
			{"gzip", kgo.GzipCompression(), 1},
			{"snappy", kgo.SnappyCompression(), 2},
			{"lz4", kgo.Lz4Compression(), 3},
			{"zstd", kgo.ZstdCompression(), 4},
		} {
			t.Run(codec.name, func(t *testing.T) {
				ctx := testCtx(t, opTimeout)
				topic := topicName(t, "")
				mustCreateTopic(t, b.Admin(t), topic, 3, nil)
				var want []*kgo.Record
				for _, acks := range []struct {
					name string
					acks kgo.Acks
				}{{"0", kgo.NoAck()}, {"1", kgo.LeaderAck()}, {"-1", kgo.AllISRAcks()}} {
					opts := []kgo.Opt{
						kgo.DefaultProduceTopic(topic),
						kgo.RequiredAcks(acks.acks),
						kgo.ProducerBatchCompression(codec.codec),
						kgo.RecordPartitioner(kgo.ManualPartitioner()),
					}
					if acks.name != "-1" {
						opts = append(opts, kgo.DisableIdempotentWrite())
					}
					cl := b.Client(t, opts...)
					var batch []*kgo.Record
					for i := range 30 {
						r := &kgo.Record{
							Key:       fmt.Appendf(nil, "acks=%s-%d", acks.name, i),
							Value:     []byte(strings.Repeat(fmt.Sprintf("codec=%s acks=%s i=%d ", codec.name, acks.name, i), 8)),
							Partition: int32(i % 3),
							Headers:   []kgo.RecordHeader{{Key: "h", Value: []byte(acks.name)}},
						}
						batch = append(batch, r)
					}
					// One ProduceSync so each partition gets a multi-record batch.
					if err := cl.ProduceSync(ctx, batch...).FirstErr(); err != nil {
						t.Fatalf("produce acks=%s: %v", acks.name, err)
					}
					if acks.name != "0" {
						for _, r := range batch {
							if r.Offset < 0 {
								t.Errorf("acks=%s: acknowledged record has offset %d", acks.name, r.Offset)
							}
						}
					}
					want = append(want, batch...)
					if acks.name == "0" {
						// acks=0 has no answer: wait until the records are
						// visible before producing more, so the per-partition
						// order below is well defined.
						waitEndOffsets(t, b, topic, map[int32]int64{0: 10, 1: 10, 2: 10})
					}
				}
				for p := int32(0); p < 3; p++ {
					checkOffsets(t, b.Admin(t), topic, p, 0, 30)
				}
				got := consumeN(t, b, topic, len(want))
				for _, r := range got {
					if c := r.Attrs.CompressionType(); c != codec.attr {
						t.Fatalf("record %s at %d/%d came back with compression %d, want %d (batches must be stored as produced)",
							r.Key, r.Partition, r.Offset, c, codec.attr)
					}
				}
				checkSameRecords(t, want, got)
			})
		}
	})

	t.Run("ListOffsets", func(t *testing.T) {
		ctx := testCtx(t, opTimeout)
		adm := b.Admin(t)
		topic := topicName(t, "")
		mustCreateTopic(t, adm, topic, 1, nil)
		cl := b.Client(t, kgo.DefaultProduceTopic(topic))

		// Empty partition: earliest = latest = 0.
		checkOffsets(t, adm, topic, 0, 0, 0)

		base := time.Now().Add(-time.Hour).Truncate(time.Millisecond)
		for i := range 10 {
			// Separate produces so the records land in separate batches.
			r := &kgo.Record{Value: fmt.Appendf(nil, "v%d", i), Timestamp: base.Add(time.Duration(i) * time.Second)}
			if err := cl.ProduceSync(ctx, r).FirstErr(); err != nil {
				t.Fatalf("produce: %v", err)
			}
		}
		checkOffsets(t, adm, topic, 0, 0, 10)

		// By timestamp: the first offset whose timestamp is >= the target.
		for _, tc := range []struct {
			ts     time.Time
			offset int64
		}{
			{base.Add(-time.Minute), 0},
			{base, 0},
			{base.Add(2500 * time.Millisecond), 3},
			{base.Add(9 * time.Second), 9},
		} {
			lo, err := adm.ListOffsetsAfterMilli(ctx, tc.ts.UnixMilli(), topic)
			if err != nil {
				t.Fatalf("ListOffsetsAfterMilli: %v", err)
			}
			o, _ := lo.Lookup(topic, 0)
			if o.Err != nil || o.Offset != tc.offset {
				t.Errorf("offset for timestamp %d: got %d (err %v), want %d", tc.ts.UnixMilli(), o.Offset, o.Err, tc.offset)
			}
			if o.Err == nil && o.Timestamp != base.Add(time.Duration(tc.offset)*time.Second).UnixMilli() {
				t.Errorf("offset for timestamp %d: record timestamp %d, want %d", tc.ts.UnixMilli(), o.Timestamp,
					base.Add(time.Duration(tc.offset)*time.Second).UnixMilli())
			}
		}
		// After the newest record the raw answer is offset -1 (Kafka's
		// UNKNOWN_OFFSET), not an error.
		req := kmsg.NewPtrListOffsetsRequest()
		req.ReplicaID = -1
		rt := kmsg.NewListOffsetsRequestTopic()
		rt.Topic = topic
		rp := kmsg.NewListOffsetsRequestTopicPartition()
		rp.Partition = 0
		rp.CurrentLeaderEpoch = -1
		rp.Timestamp = base.Add(time.Hour).UnixMilli()
		rt.Partitions = append(rt.Partitions, rp)
		req.Topics = append(req.Topics, rt)
		resp, err := req.RequestWith(ctx, cl)
		if err != nil {
			t.Fatalf("ListOffsets: %v", err)
		}
		if p := resp.Topics[0].Partitions[0]; p.ErrorCode != 0 || p.Offset != -1 {
			t.Errorf("ListOffsets for a future timestamp: error %d offset %d, want 0 and -1", p.ErrorCode, p.Offset)
		}
		// Max timestamp (-3, KIP-734).
		lo, err := adm.ListMaxTimestampOffsets(ctx, topic)
		if err != nil {
			t.Fatalf("ListMaxTimestampOffsets: %v", err)
		}
		if o, _ := lo.Lookup(topic, 0); o.Err != nil || o.Offset != 9 {
			t.Errorf("max-timestamp offset = %d (err %v), want 9", o.Offset, o.Err)
		}
	})

	t.Run("CreatePartitions", func(t *testing.T) {
		ctx := testCtx(t, opTimeout)
		adm := b.Admin(t)
		topic := topicName(t, "")
		mustCreateTopic(t, adm, topic, 2, nil)

		rs, err := adm.UpdatePartitions(ctx, 5, topic)
		if err != nil {
			t.Fatalf("UpdatePartitions: %v", err)
		}
		if r, _ := rs.On(topic, nil); r.Err != nil {
			t.Fatalf("grow to 5: %v (%s)", r.Err, r.ErrMessage)
		}
		eventually(t, 30*time.Second, "metadata shows 5 partitions", func() error {
			md, err := adm.Metadata(ctx, topic)
			if err != nil {
				return err
			}
			if n := len(md.Topics[topic].Partitions); n != 5 {
				return fmt.Errorf("%d partitions", n)
			}
			return nil
		})
		// The new partition takes records.
		cl := b.Client(t, kgo.DefaultProduceTopic(topic), kgo.RecordPartitioner(kgo.ManualPartitioner()))
		if err := cl.ProduceSync(ctx, &kgo.Record{Partition: 4, Value: []byte("in new partition")}).FirstErr(); err != nil {
			t.Fatalf("produce to new partition 4: %v", err)
		}
		got := consumeN(t, b, topic, 1)
		if got[0].Partition != 4 || string(got[0].Value) != "in new partition" {
			t.Errorf("read back %d %q", got[0].Partition, got[0].Value)
		}

		// Same count or fewer: INVALID_PARTITIONS, raw so no client logic
		// stands in between.
		for _, count := range []int32{5, 2} {
			req := kmsg.NewPtrCreatePartitionsRequest()
			req.TimeoutMillis = 10000
			rt := kmsg.NewCreatePartitionsRequestTopic()
			rt.Topic = topic
			rt.Count = count
			req.Topics = append(req.Topics, rt)
			resp, err := req.RequestWith(ctx, cl)
			if err != nil {
				t.Fatalf("CreatePartitions(count=%d): %v", count, err)
			}
			if code := resp.Topics[0].ErrorCode; code != kerr.InvalidPartitions.Code {
				t.Errorf("CreatePartitions to %d (from 5): error %d %v, want INVALID_PARTITIONS (37)", count, code, kerr.ErrorForCode(code))
			}
		}
		if n := len(metadataTopic(t, adm, topic).Partitions); n != 5 {
			t.Errorf("after rejected shrink: %d partitions, want 5", n)
		}
	})

	t.Run("DeleteRecords", func(t *testing.T) {
		ctx := testCtx(t, opTimeout)
		adm := b.Admin(t)
		topic := topicName(t, "")
		mustCreateTopic(t, adm, topic, 1, nil)
		cl := b.Client(t, kgo.DefaultProduceTopic(topic))
		for i := range 10 {
			if err := cl.ProduceSync(ctx, &kgo.Record{Value: fmt.Appendf(nil, "v%d", i)}).FirstErr(); err != nil {
				t.Fatalf("produce: %v", err)
			}
		}
		os := kadm.Offsets{}
		os.Add(kadm.Offset{Topic: topic, Partition: 0, At: 4})
		rs, err := adm.DeleteRecords(ctx, os)
		if err != nil {
			t.Fatalf("DeleteRecords: %v", err)
		}
		r, _ := rs.Lookup(topic, 0)
		if r.Err != nil || r.LowWatermark != 4 {
			t.Fatalf("DeleteRecords: err %v low watermark %d, want 4", r.Err, r.LowWatermark)
		}
		checkOffsets(t, adm, topic, 0, 4, 10)
		got := consumeN(t, b, topic, 6)
		if got[0].Offset != 4 || string(got[0].Value) != "v4" {
			t.Errorf("first record after DeleteRecords: offset %d %q, want 4 v4", got[0].Offset, got[0].Value)
		}
		// Beyond the high watermark is OFFSET_OUT_OF_RANGE.
		os = kadm.Offsets{}
		os.Add(kadm.Offset{Topic: topic, Partition: 0, At: 11})
		rs, err = adm.DeleteRecords(ctx, os)
		if err != nil {
			t.Fatalf("DeleteRecords(11): %v", err)
		}
		if r, _ := rs.Lookup(topic, 0); !errors.Is(r.Err, kerr.OffsetOutOfRange) {
			t.Errorf("DeleteRecords past the end: %v, want OFFSET_OUT_OF_RANGE", r.Err)
		}
	})

	t.Run("DeleteTopic", func(t *testing.T) {
		ctx := testCtx(t, opTimeout)
		adm := b.Admin(t)
		topic := topicName(t, "")
		mustCreateTopic(t, adm, topic, 2, nil)
		cl := b.Client(t, kgo.DefaultProduceTopic(topic))
		if err := cl.ProduceSync(ctx, &kgo.Record{Value: []byte("old")}).FirstErr(); err != nil {
			t.Fatalf("produce: %v", err)
		}
		rs, err := adm.DeleteTopics(ctx, topic)
		if err != nil {
			t.Fatalf("DeleteTopics: %v", err)
		}
		if r, _ := rs.On(topic, nil); r.Err != nil {
			t.Fatalf("DeleteTopics: %v", r.Err)
		}
		eventually(t, 30*time.Second, "deleted topic disappears from metadata", func() error {
			tds, err := adm.ListTopics(ctx)
			if err != nil {
				return err
			}
			if tds.Has(topic) {
				return errors.New("still listed")
			}
			return nil
		})
		// Deleting it again: UNKNOWN_TOPIC_OR_PARTITION.
		rs, err = adm.DeleteTopics(ctx, topic)
		if err != nil {
			t.Fatalf("DeleteTopics again: %v", err)
		}
		if r, _ := rs.On(topic, nil); !errors.Is(r.Err, kerr.UnknownTopicOrPartition) {
			t.Errorf("deleting a deleted topic: %v, want UNKNOWN_TOPIC_OR_PARTITION", r.Err)
		}
		// Recreated under the same name it starts empty.
		mustCreateTopic(t, adm, topic, 1, nil)
		checkOffsets(t, adm, topic, 0, 0, 0)
	})

	t.Run("DescribeCluster", func(t *testing.T) {
		ctx := testCtx(t, opTimeout)
		cl := b.Client(t)
		req := kmsg.NewPtrDescribeClusterRequest()
		resp, err := req.RequestWith(ctx, cl)
		if err != nil {
			t.Fatalf("DescribeCluster: %v", err)
		}
		if resp.ErrorCode != 0 {
			t.Fatalf("DescribeCluster error %d", resp.ErrorCode)
		}
		if resp.ClusterID == "" {
			t.Errorf("empty cluster id")
		}
		if resp.ControllerID != b.NodeID {
			t.Errorf("controller %d, want %d", resp.ControllerID, b.NodeID)
		}
		if len(resp.Brokers) != 1 || resp.Brokers[0].NodeID != b.NodeID ||
			fmt.Sprintf("%s:%d", resp.Brokers[0].Host, resp.Brokers[0].Port) != b.Addr {
			t.Errorf("brokers %+v, want node %d at %s", resp.Brokers, b.NodeID, b.Addr)
		}
	})
}

// TestFranzAutoCreate checks auto.create.topics.enable and num.partitions
// from the command line.
func TestFranzAutoCreate(t *testing.T) {
	t.Parallel()
	b := startBroker(t, WithConfig("auto.create.topics.enable", "true"), WithConfig("num.partitions", "4"))
	ctx := testCtx(t, opTimeout)
	topic := topicName(t, "")
	cl := b.Client(t, kgo.DefaultProduceTopic(topic), kgo.AllowAutoTopicCreation())
	if err := cl.ProduceSync(ctx, &kgo.Record{Value: []byte("auto")}).FirstErr(); err != nil {
		t.Fatalf("produce to a new topic with auto-create on: %v", err)
	}
	if n := len(metadataTopic(t, b.Admin(t), topic).Partitions); n != 4 {
		t.Errorf("auto-created topic has %d partitions, want 4 (--num.partitions 4)", n)
	}
}

// ---------------------------------------------------------------------------
// franz-go helpers

func mustCreateTopic(t testing.TB, adm *kadm.Client, topic string, partitions int32, configs map[string]*string) {
	t.Helper()
	resp, err := adm.CreateTopic(testCtx(t, opTimeout), partitions, 1, configs, topic)
	if err != nil || resp.Err != nil {
		t.Fatalf("CreateTopic %s: err=%v resp.Err=%v (%s)", topic, err, resp.Err, resp.ErrMessage)
	}
}

func metadataTopic(t testing.TB, adm *kadm.Client, topic string) kadm.TopicDetail {
	t.Helper()
	md, err := adm.Metadata(testCtx(t, opTimeout), topic)
	if err != nil {
		t.Fatalf("Metadata: %v", err)
	}
	td, ok := md.Topics[topic]
	if !ok || td.Err != nil {
		t.Fatalf("Metadata for %s: present=%v err=%v", topic, ok, td.Err)
	}
	return td
}

func topicConfig(t testing.TB, adm *kadm.Client, topic, key string) kadm.Config {
	t.Helper()
	rcs, err := adm.DescribeTopicConfigs(testCtx(t, opTimeout), topic)
	if err != nil {
		t.Fatalf("DescribeTopicConfigs: %v", err)
	}
	rc, err := rcs.On(topic, nil)
	if err != nil || rc.Err != nil {
		t.Fatalf("DescribeTopicConfigs %s: %v %v", topic, err, rc.Err)
	}
	c := findConfig(rc.Configs, key)
	if c == nil {
		t.Fatalf("DescribeTopicConfigs %s: no %s among %d configs", topic, key, len(rc.Configs))
	}
	return *c
}

func findConfig(cs []kadm.Config, key string) *kadm.Config {
	for i := range cs {
		if cs[i].Key == key {
			return &cs[i]
		}
	}
	return nil
}

// checkOffsets asserts earliest and latest offsets of one partition.
func checkOffsets(t testing.TB, adm *kadm.Client, topic string, p int32, start, end int64) {
	t.Helper()
	ctx := testCtx(t, opTimeout)
	so, err := adm.ListStartOffsets(ctx, topic)
	if err != nil {
		t.Fatalf("ListStartOffsets: %v", err)
	}
	eo, err := adm.ListEndOffsets(ctx, topic)
	if err != nil {
		t.Fatalf("ListEndOffsets: %v", err)
	}
	s, _ := so.Lookup(topic, p)
	e, _ := eo.Lookup(topic, p)
	if s.Err != nil || e.Err != nil || s.Offset != start || e.Offset != end {
		t.Errorf("%s/%d: earliest %d (err %v) latest %d (err %v), want %d and %d", topic, p, s.Offset, s.Err, e.Offset, e.Err, start, end)
	}
}

// waitEndOffsets polls until each listed partition's end offset is at least
// the given value.
func waitEndOffsets(t testing.TB, b *Broker, topic string, want map[int32]int64) {
	t.Helper()
	adm := b.Admin(t)
	eventually(t, 20*time.Second, "end offsets reach "+fmt.Sprint(want), func() error {
		eo, err := adm.ListEndOffsets(testCtx(t, opTimeout), topic)
		if err != nil {
			return err
		}
		for p, w := range want {
			o, ok := eo.Lookup(topic, p)
			if !ok || o.Err != nil || o.Offset < w {
				return fmt.Errorf("partition %d at %d (err %v)", p, o.Offset, o.Err)
			}
		}
		return nil
	})
}

// consumeN reads a topic from the start (no group) until n records came.
// More than n is a failure: the broker served records nobody produced.
func consumeN(t testing.TB, b *Broker, topic string, n int) []*kgo.Record {
	t.Helper()
	cl := b.Client(t,
		kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchMaxWait(200*time.Millisecond),
	)
	ctx := testCtx(t, 30*time.Second)
	var got []*kgo.Record
	for len(got) < n {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("consuming %s: got %d of %d records before the deadline", topic, len(got), n)
		}
		fs.EachError(func(topic string, p int32, err error) {
			t.Fatalf("fetch %s/%d: %v", topic, p, err)
		})
		got = append(got, fs.Records()...)
	}
	if len(got) > n {
		t.Fatalf("consuming %s: got %d records, want %d", topic, len(got), n)
	}
	return got
}

// checkSameRecords checks that got has exactly the records of want (key,
// value, headers, partition), in produce order within each partition, with
// consecutive offsets.
func checkSameRecords(t testing.TB, want, got []*kgo.Record) {
	t.Helper()
	type rec struct{ key, value, headers string }
	perPart := func(rs []*kgo.Record) map[int32][]rec {
		m := map[int32][]rec{}
		for _, r := range rs {
			var hs []string
			for _, h := range r.Headers {
				hs = append(hs, h.Key+"="+string(h.Value))
			}
			m[r.Partition] = append(m[r.Partition], rec{string(r.Key), string(r.Value), strings.Join(hs, ",")})
		}
		return m
	}
	w, g := perPart(want), perPart(got)
	for p, wr := range w {
		if !slices.Equal(wr, g[p]) {
			t.Errorf("partition %d: read back %d records, produced %d; first difference at %d", p, len(g[p]), len(wr), firstDiff(wr, g[p]))
		}
	}
	for p := range g {
		if _, ok := w[p]; !ok {
			t.Errorf("partition %d: read back records nobody produced there", p)
		}
	}
	next := map[int32]int64{}
	for _, r := range got {
		if o, ok := next[r.Partition]; ok && r.Offset != o {
			t.Errorf("partition %d: offset %d follows %d", r.Partition, r.Offset, o-1)
		}
		next[r.Partition] = r.Offset + 1
	}
}

func firstDiff[T comparable](a, b []T) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
