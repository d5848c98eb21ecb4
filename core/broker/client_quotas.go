package broker

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/quota"
)

// DescribeClientQuotas v0-1 and AlterClientQuotas v0-1 (KIP-546), and
// the enforcement of the byte-rate quotas (KIP-13) with KIP-219
// throttling: the answer goes out at once with throttle_time_ms, and the
// driver stops reading the connection for that long (server/conn.go).
//
// A single broker keeps its quotas in its metadata file; in a cluster the
// controller writes them to the metadata log (forwarded, KIP-590) and
// every broker reads them from its image. Each broker measures the
// traffic it serves itself, as Kafka's do.
//
// Enforced: producer_byte_rate on Produce (the record bytes of the
// request; the records are appended and the answer throttled) and
// consumer_byte_rate on consumers' Fetch (the record bytes of the answer;
// a fetch over quota is answered with no data, and its bytes are not
// counted, as Kafka does). Stored but not enforced: request_percentage,
// controller_mutation_rate, connection_creation_rate. Produce with acks=0
// has no answer to carry a throttle and is not throttled.
func init() {
	register(48, 0, 1, handleDescribeClientQuotas)
	register(49, 0, 1, handleAlterClientQuotas)
}

// anonymous is the user of every client: Gregor has no authentication,
// and Kafka calls an unauthenticated principal ANONYMOUS.
const anonymous = "ANONYMOUS"

func (b *Broker) quotas() quota.Quotas {
	if b.cl != nil {
		return b.cl.image.Quotas
	}
	return b.meta.Quotas
}

func handleDescribeClientQuotas(b *Broker, r *Request) kmsg.Response {
	return quota.Describe(b.quotas(), r.Msg.(*kmsg.DescribeClientQuotasRequest))
}

func handleAlterClientQuotas(b *Broker, r *Request) kmsg.Response {
	if b.cl != nil {
		b.forward(r)
		return nil
	}
	changed := false
	resp := quota.Alter(r.Msg.(*kmsg.AlterClientQuotasRequest), func(key string, ops []quota.Op) {
		if b.meta.Quotas == nil {
			b.meta.Quotas = quota.Quotas{}
		}
		b.meta.Quotas.Apply(key, ops)
		changed = true
	})
	if !changed {
		return resp
	}
	if err := b.saveMetadata(); err != nil {
		msg := err.Error()
		for i := range resp.Entries {
			resp.Entries[i].ErrorCode, resp.Entries[i].ErrorMessage = kerr.KafkaStorageError.Code, &msg
		}
	}
	return resp
}

// throttle records n bytes of a client's traffic against the quota key
// that applies to it and returns the throttle time in ms (0 under quota,
// or with no quota), and how to take the bytes back.
func (b *Broker) throttle(clientID, key string, n int) (ms int32, undo func()) {
	limit, meter, ok := b.quotas().Resolve(anonymous, clientID, key)
	if !ok {
		return 0, func() {}
	}
	m := b.meters[meter]
	if m == nil {
		for k, old := range b.meters { // forget the clients gone quiet
			if old.Idle(b.now) {
				delete(b.meters, k)
			}
		}
		if b.meters == nil {
			b.meters = map[string]*quota.Meter{}
		}
		m = &quota.Meter{}
		b.meters[meter] = m
	}
	m.Record(b.now, float64(n))
	return m.Throttle(b.now, limit), func() { m.Unrecord(float64(n)) }
}

// throttleProduce measures a Produce request's record bytes.
func (b *Broker) throttleProduce(r *Request, resp *kmsg.ProduceResponse) {
	n := 0
	for _, t := range r.Msg.(*kmsg.ProduceRequest).Topics {
		for _, p := range t.Partitions {
			n += len(p.Records)
		}
	}
	resp.ThrottleMillis, _ = b.throttle(r.Header.ClientID, quota.ProducerByteRate, n)
}

// throttleFetch measures the record bytes of a consumer's Fetch answer;
// over quota, the answer carries no data and the throttle time.
func (b *Broker) throttleFetch(r Request, resp *kmsg.FetchResponse) {
	if fetchReplica(r.Msg.(*kmsg.FetchRequest)) >= 0 {
		return // replication is not a client's traffic
	}
	n := 0
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			n += len(p.RecordBatches)
		}
	}
	ms, undo := b.throttle(r.Header.ClientID, quota.ConsumerByteRate, n)
	if ms > 0 {
		undo()
		resp.ThrottleMillis, resp.Topics = ms, nil
	}
}

// capFetch bounds a consumer's Fetch to the bytes its consumer_byte_rate
// allows over the measured span (Kafka's getMaxValueInQuotaWindow), so
// that one answer alone is never over quota.
func (b *Broker) capFetch(r *Request, req *kmsg.FetchRequest) {
	if fetchReplica(req) >= 0 {
		return
	}
	if limit, _, ok := b.quotas().Resolve(anonymous, r.Header.ClientID, quota.ConsumerByteRate); ok {
		most := limit * (quota.Samples - 1) * quota.WindowMs / 1000
		if req.MaxBytes <= 0 || float64(req.MaxBytes) > most {
			req.MaxBytes = int32(min(most, float64(1<<31-1)))
		}
	}
}
