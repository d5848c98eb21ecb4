package e2e

import (
	"bytes"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/IBM/sarama"
	"github.com/segmentio/kafka-go"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/record"
)

// quotaRate is the byte rate the quota tests allow: 10 kB/s. Kafka
// measures a rate over 11 one-second samples and never over less than
// ten seconds, so a client is throttled once it has sent more than 100 kB
// in its first ten seconds, for (bytes/rate - 10 s).
const quotaRate = 10_000

// TestClientQuotas: kadm and sarama set, describe and remove client
// quotas (KIP-546), which survive a restart; a producer and a consumer
// over their byte rate are throttled (throttle_time_ms, KIP-219) while a
// client without a quota is not; and a throttled connection is muted: the
// broker reads nothing from it until the throttle time has passed.
func TestClientQuotas(t *testing.T) {
	t.Parallel()
	requireBinary(t)
	b := startBroker(t, WithConfig("auto.create.topics.enable", "false"))
	ctx := testCtx(t, 2*opTimeout)
	adm := b.Admin(t)

	slow, reader := "slow-producer", "slow-reader"
	setQuota(t, adm, clientEntity(&slow), quota("producer_byte_rate", quotaRate))
	setQuota(t, adm, clientEntity(&reader), quota("consumer_byte_rate", 2*quotaRate)) // reads both producers' records
	setQuota(t, adm, clientEntity(nil), quota("request_percentage", 50))              // half a thread: never reached here

	// Refused: a key that is no quota, a negative rate, ip with client-id.
	ip := "10.0.0.1"
	for _, bad := range []kadm.AlterClientQuotaEntry{
		{Entity: clientEntity(&slow), Ops: []kadm.AlterClientQuotaOp{{Key: "no_such_quota", Value: 1}}},
		{Entity: clientEntity(&slow), Ops: []kadm.AlterClientQuotaOp{{Key: "producer_byte_rate", Value: -5}}},
		{Entity: kadm.ClientQuotaEntity{{Type: "ip", Name: &ip}, {Type: "client-id", Name: &slow}},
			Ops: []kadm.AlterClientQuotaOp{{Key: "connection_creation_rate", Value: 5}}},
	} {
		rs, err := adm.AlterClientQuotas(ctx, []kadm.AlterClientQuotaEntry{bad})
		if err != nil || len(rs) != 1 || !errors.Is(rs[0].Err, kerr.InvalidRequest) {
			t.Errorf("AlterClientQuotas %v %v: %v %+v, want INVALID_REQUEST", bad.Entity, bad.Ops, err, rs)
		}
	}

	// kadm describes: every client-id entity, then only the default.
	all, err := adm.DescribeClientQuotas(ctx, true, []kadm.DescribeClientQuotaComponent{{Type: "client-id", MatchType: 2}})
	if err != nil {
		t.Fatalf("DescribeClientQuotas: %v", err)
	}
	if got := describedQuotas(all); got != `{client-id=slow-producer} producer_byte_rate=10000;{client-id=slow-reader} consumer_byte_rate=20000` {
		t.Errorf("DescribeClientQuotas any client-id: %s", got)
	}
	def, err := adm.DescribeClientQuotas(ctx, true, []kadm.DescribeClientQuotaComponent{{Type: "client-id", MatchType: 1}})
	if err != nil || describedQuotas(def) != `{client-id=<default>} request_percentage=50` {
		t.Errorf("DescribeClientQuotas default client-id: %v %s", err, describedQuotas(def))
	}

	// sarama sets and describes, and removes the default's value.
	admin := saramaAdmin(t, b.Addr)
	other := "sarama-client"
	if err := admin.AlterClientQuotas([]sarama.QuotaEntityComponent{{EntityType: sarama.QuotaEntityClientID, MatchType: sarama.QuotaMatchExact, Name: other}},
		sarama.ClientQuotasOp{Key: "producer_byte_rate", Value: 2e6}, false); err != nil {
		t.Fatalf("sarama AlterClientQuotas: %v", err)
	}
	entries, err := admin.DescribeClientQuotas([]sarama.QuotaFilterComponent{{EntityType: sarama.QuotaEntityClientID, MatchType: sarama.QuotaMatchExact, Match: other}}, false)
	if err != nil || len(entries) != 1 || entries[0].Values["producer_byte_rate"] != 2e6 {
		t.Errorf("sarama DescribeClientQuotas: %v %+v", err, entries)
	}
	if err := admin.AlterClientQuotas([]sarama.QuotaEntityComponent{{EntityType: sarama.QuotaEntityClientID, MatchType: sarama.QuotaMatchDefault}},
		sarama.ClientQuotasOp{Key: "request_percentage", Remove: true}, false); err != nil {
		t.Fatalf("sarama AlterClientQuotas remove: %v", err)
	}

	// kafka-go sets and describes.
	kg := &kafka.Client{Addr: kafka.TCP(b.Addr), Timeout: 10 * time.Second}
	ar, err := kg.AlterClientQuotas(ctx, &kafka.AlterClientQuotasRequest{Entries: []kafka.AlterClientQuotaEntry{{
		Entities: []kafka.AlterClientQuotaEntity{{EntityType: "client-id", EntityName: "kafka-go-client"}},
		Ops:      []kafka.AlterClientQuotaOps{{Key: "consumer_byte_rate", Value: 3e6}},
	}}})
	if err != nil || len(ar.Entries) != 1 || ar.Entries[0].Error != nil {
		t.Fatalf("kafka-go AlterClientQuotas: %v %+v", err, ar)
	}
	dr, err := kg.DescribeClientQuotas(ctx, &kafka.DescribeClientQuotasRequest{Components: []kafka.DescribeClientQuotasRequestComponent{
		{EntityType: "client-id", MatchType: 0, Match: "kafka-go-client"}}})
	if err != nil || dr.Error != nil || len(dr.Entries) != 1 || len(dr.Entries[0].Values) != 1 || dr.Entries[0].Values[0].Value != 3e6 {
		t.Errorf("kafka-go DescribeClientQuotas: %v %+v", err, dr)
	}

	// Quotas survive a restart; the default entity is gone with its
	// last value.
	b.Stop()
	b.Restart()
	all, err = adm.DescribeClientQuotas(ctx, false, nil)
	if err != nil {
		t.Fatalf("DescribeClientQuotas after a restart: %v", err)
	}
	if got := describedQuotas(all); got != `{client-id=kafka-go-client} consumer_byte_rate=3e+06;{client-id=sarama-client} producer_byte_rate=2e+06;{client-id=slow-producer} producer_byte_rate=10000;{client-id=slow-reader} consumer_byte_rate=20000` {
		t.Errorf("DescribeClientQuotas after a restart: %s", got)
	}

	topic := topicName(t, "")
	mustCreateTopic(t, adm, topic, 1, nil)
	value := bytes.Repeat([]byte("q"), 10_000)
	const n = 12 // 120 kB: 2 s over 10 kB/s for 10 s

	// Producers: the one with a quota is throttled, the other is not.
	var fastThrottles throttles
	fast := b.Client(t, kgo.ClientID("unlimited"), kgo.DefaultProduceTopic(topic), kgo.WithHooks(&fastThrottles),
		kgo.ProducerBatchCompression(kgo.NoCompression()))
	var slowThrottles throttles
	sp := b.Client(t, kgo.ClientID(slow), kgo.DefaultProduceTopic(topic), kgo.WithHooks(&slowThrottles),
		kgo.ProducerBatchCompression(kgo.NoCompression()))
	for range n {
		if err := fast.ProduceSync(ctx, &kgo.Record{Value: value}).FirstErr(); err != nil {
			t.Fatalf("produce: %v", err)
		}
		if err := sp.ProduceSync(ctx, &kgo.Record{Value: value}).FirstErr(); err != nil {
			t.Fatalf("produce: %v", err)
		}
	}
	if fastThrottles.max() != 0 {
		t.Errorf("a producer without a quota was throttled %v", fastThrottles.max())
	}
	if m := slowThrottles.max(); m < 500*time.Millisecond || m > 11*time.Second {
		t.Errorf("the producer with a quota was throttled at most %v after %d kB at 10 kB/s; want about 2 s", m, n*10)
	}

	// The consumer with a quota reads every record, throttled.
	var readThrottles throttles
	cons := b.Client(t, kgo.ClientID(reader), kgo.WithHooks(&readThrottles),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: {0: kgo.NewOffset().At(0)}}))
	got := 0
	for got < 2*n && ctx.Err() == nil {
		fs := cons.PollFetches(ctx)
		fs.EachRecord(func(r *kgo.Record) {
			if r.Offset != int64(got) || !bytes.Equal(r.Value, value) {
				t.Errorf("record at offset %d after %d records (%d bytes)", r.Offset, got, len(r.Value))
			}
			got++
		})
	}
	if got != 2*n {
		t.Fatalf("the throttled consumer read %d records, want %d", got, 2*n)
	}
	if readThrottles.max() == 0 {
		t.Errorf("the consumer with a quota read %d kB at 20 kB/s and was never throttled", 2*n*10)
	}

	// Muting, on a raw connection of the slow producer: the request sent
	// right after a throttled answer is not answered before the throttle
	// time has passed.
	c := dialRaw(t, b.Addr)
	produce := kmsg.NewPtrProduceRequest()
	produce.Version, produce.Acks, produce.TimeoutMillis = 9, -1, 5000
	pt := kmsg.NewProduceRequestTopic()
	pt.Topic = topic
	pp := kmsg.NewProduceRequestTopicPartition()
	pp.Records = record.NewBuilder(record.NewBatchHeader(time.Now().UnixMilli())).Add(nil, value, 0).Build()
	pt.Partitions = append(pt.Partitions, pp)
	produce.Topics = append(produce.Topics, pt)
	setQuota(t, adm, clientEntity(kmsg.StringPtr("e2e")), quota("producer_byte_rate", quotaRate))
	var throttle time.Duration
	for i := 0; throttle < 200*time.Millisecond; i++ { // long enough to measure
		if i == 20 {
			t.Fatalf("20 produce requests of 10 kB at 10 kB/s, none throttled 200 ms or more")
		}
		c.corr++
		c.writeRequest(t, produce.Key(), produce.Version, c.corr, produce.IsFlexible(), produce.AppendTo(nil))
		_, body := c.readFrame(t)
		resp := kmsg.NewPtrProduceResponse()
		resp.Version = produce.Version
		if err := resp.ReadFrom(body[1:]); err != nil {
			t.Fatalf("produce response: %v", err)
		}
		throttle = time.Duration(resp.ThrottleMillis) * time.Millisecond
	}
	sent := time.Now()
	c.apiVersions(t, 3)
	if waited := time.Since(sent); waited < throttle-50*time.Millisecond {
		t.Errorf("a request after a throttled answer (%v) was answered after %v: the connection was not muted", throttle, waited)
	}
}

// TestClusterClientQuotas: in a cluster the controller stores quotas in
// the metadata log (AlterClientQuotas is forwarded); every broker
// describes them and the partition leader enforces them; the broker a
// CreateTopics reaches enforces the controller mutation quota and
// forwards only the topics it admits.
func TestClusterClientQuotas(t *testing.T) {
	t.Parallel()
	bs := startCluster(t, 3)
	cl := clusterClient(t, bs, kgo.RetryTimeout(20*time.Second))
	adm := kadm.NewClient(cl)
	slow := "slow-producer"
	setQuota(t, adm, clientEntity(&slow), quota("producer_byte_rate", quotaRate))
	for _, b := range bs {
		eventually(t, 30*time.Second, fmt.Sprintf("broker %d describing the quota", b.NodeID), func() error {
			req := kmsg.NewPtrDescribeClientQuotasRequest()
			resp, err := req.RequestWith(testCtx(t, 5*time.Second), cl.Broker(int(b.NodeID)))
			if err != nil {
				return err
			}
			if len(resp.Entries) != 1 || len(resp.Entries[0].Values) != 1 || resp.Entries[0].Values[0].Value != quotaRate {
				return fmt.Errorf("entries %+v", resp.Entries)
			}
			return nil
		})
	}
	topic := topicName(t, "")
	createFullyReplicated(t, adm, 1, topic)
	var th throttles
	sp := clusterClient(t, bs, kgo.ClientID(slow), kgo.DefaultProduceTopic(topic), kgo.WithHooks(&th),
		kgo.ProducerBatchCompression(kgo.NoCompression()))
	value := bytes.Repeat([]byte("q"), 10_000)
	for range 12 {
		if err := sp.ProduceSync(testCtx(t, opTimeout), &kgo.Record{Value: value}).FirstErr(); err != nil {
			t.Fatalf("produce: %v", err)
		}
	}
	if th.max() == 0 {
		t.Errorf("120 kB at 10 kB/s through the leader, never throttled")
	}

	// The controller mutation quota is counted by the broker a
	// CreateTopics reaches; it forwards the topics it admits.
	mutator := "mutator"
	setQuota(t, adm, clientEntity(&mutator), quota("controller_mutation_rate", 1))
	for _, b := range bs {
		eventually(t, 30*time.Second, fmt.Sprintf("broker %d describing the mutation quota", b.NodeID), func() error {
			req := kmsg.NewPtrDescribeClientQuotasRequest()
			req.Components = []kmsg.DescribeClientQuotasRequestComponent{{EntityType: "client-id", Match: &mutator}}
			resp, err := req.RequestWith(testCtx(t, 5*time.Second), cl.Broker(int(b.NodeID)))
			if err != nil {
				return err
			}
			if len(resp.Entries) != 1 {
				return fmt.Errorf("entries %+v", resp.Entries)
			}
			return nil
		})
	}
	var mth throttles
	mcl := clusterClient(t, bs, kgo.ClientID(mutator), kgo.WithHooks(&mth))
	names := []string{topicName(t, "a"), topicName(t, "b"), topicName(t, "c"), topicName(t, "d")}
	rs, err := kadm.NewClient(mcl).CreateTopics(testCtx(t, opTimeout), 5, 3, nil, names...)
	if err != nil {
		t.Fatalf("CreateTopics: %v", err)
	}
	for i, name := range names {
		if err := rs[name].Err; i < 3 && err != nil || i == 3 && !errors.Is(err, kerr.ThrottlingQuotaExceeded) {
			t.Errorf("topic %d of 5 partitions at controller_mutation_rate 1: %v", i, err)
		}
	}
	if mth.max() < 3*time.Second {
		t.Errorf("CreateTopics 4 partitions in debt, throttled %v; want about 4 s", mth.max())
	}
}

func clientEntity(name *string) kadm.ClientQuotaEntity {
	return kadm.ClientQuotaEntity{{Type: "client-id", Name: name}}
}

func quota(key string, v float64) kadm.AlterClientQuotaOp {
	return kadm.AlterClientQuotaOp{Key: key, Value: v}
}

func setQuota(t *testing.T, adm *kadm.Client, e kadm.ClientQuotaEntity, ops ...kadm.AlterClientQuotaOp) {
	t.Helper()
	rs, err := adm.AlterClientQuotas(testCtx(t, opTimeout), []kadm.AlterClientQuotaEntry{{Entity: e, Ops: ops}})
	if err != nil || len(rs) != 1 || rs[0].Err != nil {
		t.Fatalf("AlterClientQuotas %v: %v %+v", e, err, rs)
	}
}

// describedQuotas is one line per entity: "entity key=value ...", joined by ";".
func describedQuotas(qs kadm.DescribedClientQuotas) string {
	var b bytes.Buffer
	for i, q := range qs {
		if i > 0 {
			b.WriteString(";")
		}
		b.WriteString(q.Entity.String())
		for _, v := range q.Values {
			fmt.Fprintf(&b, " %s=%v", v.Key, v.Value)
		}
	}
	return b.String()
}

// throttles is a kgo hook that keeps the longest throttle a client saw.
type throttles struct {
	mu      sync.Mutex
	longest time.Duration
}

func (h *throttles) OnBrokerThrottle(_ kgo.BrokerMetadata, d time.Duration, _ bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.longest = max(h.longest, d)
}

func (h *throttles) max() time.Duration {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.longest
}
