package e2e

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"
	"github.com/segmentio/kafka-go/compress"
)

// TestKafkaGo runs segmentio/kafka-go's Client (admin and offsets), Writer
// and Reader against the broker.
func TestKafkaGo(t *testing.T) {
	t.Parallel()
	b := startBroker(t, WithConfig("auto.create.topics.enable", "false"))
	ctx := testCtx(t, opTimeout)
	// A short metadata TTL: kafka-go's transport caches metadata (6s by
	// default), which would hide topic changes from the checks below.
	transport := &kafka.Transport{MetadataTTL: 50 * time.Millisecond}
	defer transport.CloseIdleConnections()
	client := &kafka.Client{Addr: kafka.TCP(b.Addr), Timeout: 10 * time.Second, Transport: transport}
	topic := topicName(t, "")

	cr, err := client.CreateTopics(ctx, &kafka.CreateTopicsRequest{Topics: []kafka.TopicConfig{{
		Topic: topic, NumPartitions: 2, ReplicationFactor: 1,
		ConfigEntries: []kafka.ConfigEntry{{ConfigName: "retention.ms", ConfigValue: "600000"}},
	}}})
	if err != nil || cr.Errors[topic] != nil {
		t.Fatalf("CreateTopics: %v %v", err, cr)
	}
	// (No validate-only here: kafka-go's transport then waits for the
	// never-created topic to show up in metadata until its timeout. The
	// franz-go test covers validate-only.)
	md, err := client.Metadata(ctx, &kafka.MetadataRequest{Topics: []string{topic}})
	if err != nil {
		t.Fatalf("Metadata: %v", err)
	}
	if len(md.Brokers) != 1 || md.Brokers[0].ID != int(b.NodeID) ||
		fmt.Sprintf("%s:%d", md.Brokers[0].Host, md.Brokers[0].Port) != b.Addr || md.Controller.ID != int(b.NodeID) {
		t.Errorf("Metadata brokers %+v controller %+v; want node %d at %s", md.Brokers, md.Controller, b.NodeID, b.Addr)
	}
	for _, mt := range md.Topics {
		switch mt.Name {
		case topic:
			if mt.Error != nil || len(mt.Partitions) != 2 {
				t.Errorf("topic %s: err %v, %d partitions; want 2", topic, mt.Error, len(mt.Partitions))
			}
			for _, p := range mt.Partitions {
				if p.Leader.ID != int(b.NodeID) {
					t.Errorf("partition %d leader %d, want %d", p.ID, p.Leader.ID, b.NodeID)
				}
			}
		default:
			t.Errorf("Metadata for %s answered topic %s", topic, mt.Name)
		}
	}

	// Write with each compression codec, acks=all, hashed keys.
	base := time.Now().Add(-time.Hour).Truncate(time.Millisecond)
	var sent []kafka.Message
	for ci, codec := range []compress.Compression{0, kafka.Gzip, kafka.Snappy, kafka.Lz4, kafka.Zstd} {
		w := &kafka.Writer{
			Addr:         kafka.TCP(b.Addr),
			Topic:        topic,
			Balancer:     &kafka.Hash{},
			RequiredAcks: kafka.RequireAll,
			Compression:  codec,
			BatchTimeout: 5 * time.Millisecond,
			BatchSize:    10,
		}
		var batch []kafka.Message
		for i := range 10 {
			n := ci*10 + i
			batch = append(batch, kafka.Message{
				Key:     fmt.Appendf(nil, "key-%d", n),
				Value:   fmt.Appendf(nil, "kafka-go record %d codec %d", n, codec),
				Time:    base.Add(time.Duration(n) * time.Second),
				Headers: []kafka.Header{{Key: "n", Value: fmt.Append(nil, n)}},
			})
		}
		if err := w.WriteMessages(ctx, batch...); err != nil {
			t.Fatalf("WriteMessages codec %v: %v", codec, err)
		}
		if err := w.Close(); err != nil {
			t.Fatalf("Writer.Close: %v", err)
		}
		sent = append(sent, batch...)
	}

	// Read every partition from the first offset.
	got := map[string]kafka.Message{}
	total := 0
	ends := map[int]int64{}
	for p := range 2 {
		r := kafka.NewReader(kafka.ReaderConfig{
			Brokers: []string{b.Addr}, Topic: topic, Partition: p,
			MinBytes: 1, MaxBytes: 1 << 20, MaxWait: 200 * time.Millisecond,
		})
		if err := r.SetOffset(kafka.FirstOffset); err != nil {
			t.Fatalf("SetOffset: %v", err)
		}
		lag := func() int64 {
			lctx := testCtx(t, 10*time.Second)
			n, err := r.ReadLag(lctx)
			if err != nil {
				t.Fatalf("ReadLag: %v", err)
			}
			return n
		}
		want := lag()
		ends[p] = want
		for i := int64(0); i < want; i++ {
			rctx := testCtx(t, 20*time.Second)
			m, err := r.ReadMessage(rctx)
			if err != nil {
				t.Fatalf("partition %d: ReadMessage %d of %d: %v", p, i, want, err)
			}
			if m.Offset != i {
				t.Errorf("partition %d: offset %d, want %d", p, m.Offset, i)
			}
			got[string(m.Key)] = m
			total++
		}
		r.Close()
	}
	if total != len(sent) {
		t.Errorf("read %d records, wrote %d", total, len(sent))
	}
	// Client.Fetch sends a fetch outside any session (KIP-227: session
	// epoch -1), which must read like any other.
	fr, err := client.Fetch(ctx, &kafka.FetchRequest{Topic: topic, Partition: 0, Offset: 0, MinBytes: 1, MaxBytes: 1 << 20, MaxWait: 100 * time.Millisecond})
	if err != nil || fr.Error != nil {
		t.Fatalf("Client.Fetch: %v %v", err, fr)
	}
	fetched := 0
	for {
		r, err := fr.Records.ReadRecord()
		if err != nil {
			break
		}
		if r.Offset != int64(fetched) {
			t.Errorf("Client.Fetch: record at offset %d, want %d", r.Offset, fetched)
		}
		fetched++
	}
	if fetched != int(ends[0]) || fr.HighWatermark != ends[0] {
		t.Errorf("Client.Fetch read %d records, high watermark %d; want %d", fetched, fr.HighWatermark, ends[0])
	}
	for _, m := range sent {
		g, ok := got[string(m.Key)]
		if !ok {
			t.Errorf("record %s not read back", m.Key)
			continue
		}
		if string(g.Value) != string(m.Value) || !g.Time.Equal(m.Time) || len(g.Headers) != 1 || string(g.Headers[0].Value) != string(m.Headers[0].Value) {
			t.Errorf("record %s: read %q at %v headers %v, wrote %q at %v", m.Key, g.Value, g.Time, g.Headers, m.Value, m.Time)
		}
	}

	// List offsets: first, last, and by time.
	target := got["key-25"]
	lo, err := client.ListOffsets(ctx, &kafka.ListOffsetsRequest{Topics: map[string][]kafka.OffsetRequest{
		topic: {kafka.FirstOffsetOf(0), kafka.LastOffsetOf(0), kafka.FirstOffsetOf(1), kafka.LastOffsetOf(1)},
	}})
	if err != nil {
		t.Fatalf("ListOffsets: %v", err)
	}
	for _, po := range lo.Topics[topic] {
		if po.Error != nil || po.FirstOffset != 0 || po.LastOffset != ends[po.Partition] {
			t.Errorf("ListOffsets p%d: first %d last %d err %v; want 0 and %d", po.Partition, po.FirstOffset, po.LastOffset, po.Error, ends[po.Partition])
		}
	}
	lo, err = client.ListOffsets(ctx, &kafka.ListOffsetsRequest{Topics: map[string][]kafka.OffsetRequest{
		topic: {kafka.TimeOffsetOf(target.Partition, target.Time)},
	}})
	if err != nil {
		t.Fatalf("ListOffsets by time: %v", err)
	}
	if pos := lo.Topics[topic]; len(pos) != 1 || pos[0].Error != nil {
		t.Errorf("ListOffsets by time: %+v", pos)
	} else if ts, ok := pos[0].Offsets[target.Offset]; !ok || !ts.Equal(target.Time) {
		t.Errorf("ListOffsets by time %v: got %v, want offset %d", target.Time, pos[0].Offsets, target.Offset)
	}

	// ElectLeaders: the only replica leads already, and kafka-go reads
	// ELECTION_NOT_NEEDED, not an election that never happened.
	if er, err := client.ElectLeaders(ctx, &kafka.ElectLeadersRequest{Topic: topic, Partitions: []int{0}}); err != nil || er.Error != nil ||
		len(er.PartitionResults) != 1 || !errors.Is(er.PartitionResults[0].Error, kafka.ElectionNotNeeded) {
		t.Errorf("ElectLeaders: %v %+v, want ELECTION_NOT_NEEDED", err, er)
	}

	// Configs.
	dc, err := client.DescribeConfigs(ctx, &kafka.DescribeConfigsRequest{Resources: []kafka.DescribeConfigRequestResource{{
		ResourceType: kafka.ResourceTypeTopic, ResourceName: topic, ConfigNames: []string{"retention.ms"},
	}}})
	if err != nil || len(dc.Resources) != 1 || dc.Resources[0].Error != nil {
		t.Fatalf("DescribeConfigs: %v %+v", err, dc)
	}
	if es := dc.Resources[0].ConfigEntries; len(es) != 1 || es[0].ConfigValue != "600000" {
		t.Errorf("DescribeConfigs retention.ms: %+v, want 600000", es)
	}

	// Grow, refuse to shrink, delete.
	cp, err := client.CreatePartitions(ctx, &kafka.CreatePartitionsRequest{Topics: []kafka.TopicPartitionsConfig{{Name: topic, Count: 4}}})
	if err != nil || cp.Errors[topic] != nil {
		t.Fatalf("CreatePartitions to 4: %v %v", err, cp)
	}
	cp, err = client.CreatePartitions(ctx, &kafka.CreatePartitionsRequest{Topics: []kafka.TopicPartitionsConfig{{Name: topic, Count: 1}}})
	if err != nil || !errors.Is(cp.Errors[topic], kafka.InvalidPartitionNumber) {
		t.Errorf("CreatePartitions shrink: %v %v, want InvalidPartitionNumber", err, cp.Errors[topic])
	}
	eventually(t, 30*time.Second, "metadata shows 4 partitions", func() error {
		md, err := client.Metadata(ctx, &kafka.MetadataRequest{Topics: []string{topic}})
		if err != nil {
			return err
		}
		if len(md.Topics) != 1 || len(md.Topics[0].Partitions) != 4 {
			return fmt.Errorf("metadata %+v", md.Topics)
		}
		return nil
	})
	dt, err := client.DeleteTopics(ctx, &kafka.DeleteTopicsRequest{Topics: []string{topic}})
	if err != nil || dt.Errors[topic] != nil {
		t.Fatalf("DeleteTopics: %v %v", err, dt)
	}
	eventually(t, 30*time.Second, "topic gone", func() error {
		md, err := client.Metadata(ctx, &kafka.MetadataRequest{Topics: []string{topic}})
		if err != nil {
			return err
		}
		if len(md.Topics) == 1 && errors.Is(md.Topics[0].Error, kafka.UnknownTopicOrPartition) {
			return nil
		}
		return fmt.Errorf("metadata %+v", md.Topics)
	})
}
