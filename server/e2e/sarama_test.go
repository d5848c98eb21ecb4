package e2e

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/IBM/sarama"
)

// TestSarama runs IBM/sarama's admin, sync producer, partition consumer and
// offset listing against the broker, once per protocol version sarama is
// told the broker speaks.
func TestSarama(t *testing.T) {
	t.Parallel()
	b := startBroker(t, WithConfig("auto.create.topics.enable", "false"))
	for _, v := range []struct {
		name    string
		version sarama.KafkaVersion
	}{
		{"default", sarama.DefaultVersion},
		{"3.6", sarama.V3_6_0_0},
		{"max", sarama.MaxVersion},
	} {
		t.Run(v.name, func(t *testing.T) {
			cfg := sarama.NewConfig()
			cfg.Version = v.version
			cfg.ClientID = "gregor-e2e-sarama"
			cfg.Admin.Timeout = 10 * time.Second
			cfg.Producer.Return.Successes = true
			cfg.Producer.RequiredAcks = sarama.WaitForAll
			cfg.Producer.Partitioner = sarama.NewManualPartitioner
			cfg.Producer.Compression = sarama.CompressionSnappy
			cfg.Metadata.Retry.Backoff = 50 * time.Millisecond
			cfg.Metadata.Retry.Max = 20

			client, err := sarama.NewClient([]string{b.Addr}, cfg)
			if err != nil {
				t.Fatalf("sarama.NewClient: %v", err)
			}
			defer client.Close()
			admin, err := sarama.NewClusterAdminFromClient(client)
			if err != nil {
				t.Fatalf("NewClusterAdminFromClient: %v", err)
			}

			// Cluster and metadata.
			brokers, controller, err := admin.DescribeCluster()
			if err != nil {
				t.Fatalf("DescribeCluster: %v", err)
			}
			if len(brokers) != 1 || brokers[0].ID() != b.NodeID || brokers[0].Addr() != b.Addr || controller != b.NodeID {
				t.Errorf("DescribeCluster: %d brokers (first %d at %s), controller %d; want node %d at %s",
					len(brokers), brokers[0].ID(), brokers[0].Addr(), controller, b.NodeID, b.Addr)
			}

			topic := topicName(t, "")
			retention := "86400000"
			if err := admin.CreateTopic(topic, &sarama.TopicDetail{
				NumPartitions: 2, ReplicationFactor: 1,
				ConfigEntries: map[string]*string{"retention.ms": &retention},
			}, false); err != nil {
				t.Fatalf("CreateTopic: %v", err)
			}
			err = admin.CreateTopic(topic, &sarama.TopicDetail{NumPartitions: 2, ReplicationFactor: 1}, false)
			if !errors.Is(err, sarama.ErrTopicAlreadyExists) {
				t.Errorf("CreateTopic twice: %v, want ErrTopicAlreadyExists", err)
			}
			mds, err := admin.DescribeTopics([]string{topic})
			if err != nil || len(mds) != 1 || !errors.Is(mds[0].Err, sarama.ErrNoError) || len(mds[0].Partitions) != 2 {
				t.Fatalf("DescribeTopics: err %v, %+v", err, mds)
			}
			entries, err := admin.DescribeConfig(sarama.ConfigResource{Type: sarama.TopicResource, Name: topic})
			if err != nil {
				t.Fatalf("DescribeConfig: %v", err)
			}
			found := false
			for _, e := range entries {
				if e.Name == "retention.ms" {
					found = e.Value == retention
				}
			}
			if !found {
				t.Errorf("DescribeConfig: retention.ms is not %s", retention)
			}

			// Produce: numbered records to both partitions, acks=all.
			producer, err := sarama.NewSyncProducerFromClient(client)
			if err != nil {
				t.Fatalf("NewSyncProducer: %v", err)
			}
			defer producer.Close()
			base := time.Now().Add(-time.Hour).Truncate(time.Millisecond)
			var msgs []*sarama.ProducerMessage
			for i := range 20 {
				msgs = append(msgs, &sarama.ProducerMessage{
					Topic:     topic,
					Partition: int32(i % 2),
					Key:       sarama.StringEncoder(fmt.Sprintf("k%d", i)),
					Value:     sarama.StringEncoder(fmt.Sprintf("sarama %s record %d", v.name, i)),
					Timestamp: base.Add(time.Duration(i) * time.Second),
				})
			}
			for _, m := range msgs[:10] {
				if _, _, err := producer.SendMessage(m); err != nil {
					t.Fatalf("SendMessage: %v", err)
				}
			}
			if err := producer.SendMessages(msgs[10:]); err != nil {
				t.Fatalf("SendMessages: %v", err)
			}
			for i, m := range msgs {
				if m.Offset != int64(i/2) {
					t.Errorf("record %d acked at offset %d, want %d", i, m.Offset, i/2)
				}
			}

			// Offsets: earliest, latest, by timestamp.
			for _, tc := range []struct {
				p    int32
				at   int64
				want int64
			}{
				{0, sarama.OffsetOldest, 0},
				{0, sarama.OffsetNewest, 10},
				{1, sarama.OffsetNewest, 10},
				{0, base.Add(4 * time.Second).UnixMilli(), 2}, // record 4 is offset 2
				{1, base.Add(4 * time.Second).UnixMilli(), 2}, // record 5 is offset 2
				{1, base.Add(-time.Minute).UnixMilli(), 0},    // before everything
			} {
				got, err := client.GetOffset(topic, tc.p, tc.at)
				if err != nil || got != tc.want {
					t.Errorf("GetOffset(p%d, %d) = %d, %v; want %d", tc.p, tc.at, got, err, tc.want)
				}
			}

			// Consume both partitions from the oldest offset.
			consumer, err := sarama.NewConsumerFromClient(client)
			if err != nil {
				t.Fatalf("NewConsumer: %v", err)
			}
			defer consumer.Close()
			for p := int32(0); p < 2; p++ {
				pc, err := consumer.ConsumePartition(topic, p, sarama.OffsetOldest)
				if err != nil {
					t.Fatalf("ConsumePartition %d: %v", p, err)
				}
				for i := 0; i < 10; i++ {
					select {
					case m := <-pc.Messages():
						want := fmt.Sprintf("sarama %s record %d", v.name, 2*i+int(p))
						if m.Offset != int64(i) || string(m.Value) != want || !m.Timestamp.Equal(base.Add(time.Duration(2*i+int(p))*time.Second)) {
							t.Errorf("partition %d: got offset %d %q ts %v, want offset %d %q", p, m.Offset, m.Value, m.Timestamp, i, want)
						}
					case err := <-pc.Errors():
						t.Fatalf("partition %d: consumer error %v", p, err)
					case <-time.After(20 * time.Second):
						t.Fatalf("partition %d: timed out after %d records", p, i)
					}
				}
				pc.Close()
			}

			// Add partitions, delete records, delete the topic.
			if err := admin.CreatePartitions(topic, 3, nil, false); err != nil {
				t.Fatalf("CreatePartitions to 3: %v", err)
			}
			err = admin.CreatePartitions(topic, 1, nil, false)
			if !errors.Is(err, sarama.ErrInvalidPartitions) {
				t.Errorf("CreatePartitions shrink to 1: %v, want ErrInvalidPartitions", err)
			}
			if err := admin.DeleteRecords(topic, map[int32]int64{0: 5}); err != nil {
				t.Fatalf("DeleteRecords: %v", err)
			}
			if got, err := client.GetOffset(topic, 0, sarama.OffsetOldest); err != nil || got != 5 {
				t.Errorf("earliest after DeleteRecords = %d, %v; want 5", got, err)
			}
			if err := admin.DeleteTopic(topic); err != nil {
				t.Fatalf("DeleteTopic: %v", err)
			}
			eventually(t, 30*time.Second, "topic gone after DeleteTopic", func() error {
				ts, err := admin.ListTopics()
				if err != nil {
					return err
				}
				if _, ok := ts[topic]; ok {
					return errors.New("still listed")
				}
				return nil
			})
		})
	}
}
