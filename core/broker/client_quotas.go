package broker

import (
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/quota"
	"github.com/gregor-kafka/gregor/core/wire"
)

// DescribeClientQuotas v0-1 and AlterClientQuotas v0-1 (KIP-546), and
// the enforcement of the quotas with KIP-219 throttling: the answer goes
// out at once with throttle_time_ms, and the driver stops reading the
// connection for that long (server/conn.go; the simulator's network).
//
// A single broker keeps its quotas in its metadata file; in a cluster the
// controller writes them to the metadata log (forwarded, KIP-590) and
// every broker reads them from its image. Each broker measures the
// traffic it serves itself, as Kafka's do. A client's user is its
// principal's name (ANONYMOUS unauthenticated), its client-id the
// request header's.
//
// Enforced: producer_byte_rate on Produce (the record bytes of the
// request; the records are appended and the answer throttled),
// consumer_byte_rate on consumers' Fetch (the record bytes of the answer;
// a fetch over quota is answered with no data, and its bytes are not
// counted, as Kafka does), request_percentage on the handler time of every
// client request (throttleRequest, KIP-124), controller_mutation_rate on
// CreateTopics, CreatePartitions and DeleteTopics (mutation_quota.go,
// KIP-599), and an ip entity's connection_creation_rate on new
// connections (ConnectionThrottle, KIP-612). Produce with acks=0 has no
// answer to carry a throttle and is not throttled.

// anonymous is the user of a client that did not authenticate, as Kafka
// names an unauthenticated principal.
const anonymous = "ANONYMOUS"

// quotaUser is the user a client's quotas name: its principal's name,
// ANONYMOUS when it did not authenticate (and for the simulator).
func quotaUser(r *Request) string {
	if u, ok := strings.CutPrefix(r.Principal, "User:"); ok {
		return u
	}
	return anonymous
}

// clientUsage is a client's use of one quota: a sampled rate, or for
// controller mutations a token bucket (mutation_quota.go).
type clientUsage struct {
	rate   quota.Meter
	bucket quota.Bucket
}

// measure returns the usage of a meter key, made on first use; making
// one forgets those gone idle, so quiet clients cost nothing.
func (b *Broker) measure(key string) *clientUsage {
	if m := b.meters[key]; m != nil {
		return m
	}
	//purity:unordered deletes only; order cannot matter
	for k, old := range b.meters {
		if old.rate.Idle(b.now) && old.bucket.Idle(b.now) {
			delete(b.meters, k)
		}
	}
	if b.meters == nil {
		b.meters = map[string]*clientUsage{}
	}
	m := &clientUsage{}
	b.meters[key] = m
	return m
}

// throttle records v of a client's use against the quota key that
// applies to it and returns the throttle time in ms (0 under quota, or
// with no quota), and how to take v back.
func (b *Broker) throttle(r *Request, key string, v float64) (ms int32, undo func()) {
	limit, meter, ok := b.image.quotas().Resolve(quotaUser(r), r.Header.ClientID, key)
	if !ok {
		return 0, func() {}
	}
	m := &b.measure(meter).rate
	m.Record(b.now, v)
	return m.Throttle(b.now, limit), func() { m.Unrecord(v) }
}

// throttleRequest charges a client for the handler time of one request
// (request_percentage, KIP-124): nanos of one thread as a percentage of a
// second, measured by Config.Clock. It returns the throttle over quota,
// at most one window (Kafka's ClientRequestQuotaManager), which the
// answer carries when it is sent at once (Response.Throttle). Requests
// with no client address (a peer broker's) and followers' fetches are not
// charged, as Kafka exempts cluster actions.
func (b *Broker) throttleRequest(r *Request, nanos int64) int32 {
	if nanos <= 0 || r.Host == "" || isReplicaFetch(r) {
		return 0
	}
	ms, _ := b.throttle(r, quota.RequestPercentage, float64(nanos)*100/1e9)
	return min(ms, quota.WindowMs)
}

// isReplicaFetch reports whether r is a follower's Fetch.
func isReplicaFetch(r *Request) bool {
	f, ok := r.Msg.(*kmsg.FetchRequest)
	return ok && fetchReplica(f) >= 0
}

// throttleProduce measures a Produce request's record bytes.
func (b *Broker) throttleProduce(r *Request, resp *kmsg.ProduceResponse) {
	n := 0
	for _, t := range r.Msg.(*kmsg.ProduceRequest).Topics {
		for _, p := range t.Partitions {
			n += len(p.Records)
		}
	}
	resp.ThrottleMillis, _ = b.throttle(r, quota.ProducerByteRate, float64(n))
}

// throttleFetch measures the record bytes of a consumer's Fetch answer,
// those in its partitions and those pinned for it (ranged); over quota,
// or throttled for its request time (reqMs), the answer carries no data
// and the throttle time, its bytes are not counted and its pins are
// released. It returns the pins the answer keeps.
func (b *Broker) throttleFetch(r Request, resp *kmsg.FetchResponse, reqMs int32, ranged []wire.Ranged) []wire.Ranged {
	if isReplicaFetch(&r) {
		return ranged // replication is not a client's traffic
	}
	n := 0
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			n += len(p.RecordBatches)
		}
	}
	for _, rg := range ranged {
		n += rg.Span.Len()
	}
	ms, undo := b.throttle(&r, quota.ConsumerByteRate, float64(n))
	if ms > 0 || reqMs > 0 {
		undo()
		resp.ThrottleMillis, resp.Topics = max(ms, reqMs), nil
		Release(ranged)
		return nil
	}
	return ranged
}

// capFetch bounds a consumer's Fetch to the bytes its consumer_byte_rate
// allows over the measured span (Kafka's getMaxValueInQuotaWindow), so
// that one answer alone is never over quota.
func (b *Broker) capFetch(r *Request, req *kmsg.FetchRequest) {
	if fetchReplica(req) >= 0 {
		return
	}
	if limit, _, ok := b.image.quotas().Resolve(quotaUser(r), r.Header.ClientID, quota.ConsumerByteRate); ok {
		most := limit * (quota.Samples - 1) * quota.WindowMs / 1000
		if req.MaxBytes <= 0 || float64(req.MaxBytes) > most {
			req.MaxBytes = int32(min(most, float64(1<<31-1)))
		}
	}
}

// ConnectionThrottle counts a new connection from ip against its
// connection_creation_rate (KIP-612) and returns how long, in ms, the
// driver holds it before closing it unserved: 0 admits it. A refused
// connection is not counted, as Kafka unrecords it.
func (b *Broker) ConnectionThrottle(now int64, ip string) int32 {
	b.advance(now)
	limit, meter, ok := b.image.quotas().ResolveIP(ip)
	if !ok {
		return 0
	}
	m := &b.measure(meter).rate
	m.Record(b.now, 1)
	ms := m.Throttle(b.now, limit)
	if ms > 0 {
		m.Unrecord(1)
	}
	return ms
}
