package quota

// Kafka's defaults: quota.window.num and quota.window.size.seconds.
const (
	Samples  = 11
	WindowMs = 1000
)

type sample struct {
	start int64 // ms
	total float64
}

// Meter is a sampled rate, as Kafka's Rate over SampledStat: Samples
// windows of WindowMs, the oldest dropped when a new one starts.
type Meter struct {
	samples []sample
}

// Record adds v at now.
func (m *Meter) Record(now int64, v float64) {
	m.purge(now)
	if n := len(m.samples); n == 0 || now >= m.samples[n-1].start+WindowMs {
		if n == Samples {
			m.samples = append(m.samples[:0], m.samples[1:]...)
		}
		m.samples = append(m.samples, sample{start: now})
	}
	m.samples[len(m.samples)-1].total += v
}

// Unrecord takes back a value recorded at now (a throttled fetch that
// returns no data, as Kafka's unrecordQuotaSensor).
func (m *Meter) Unrecord(v float64) {
	if n := len(m.samples); n > 0 {
		m.samples[n-1].total -= v
	}
}

// Idle reports whether the meter holds nothing measured in the span.
func (m *Meter) Idle(now int64) bool {
	m.purge(now)
	return len(m.samples) == 0
}

// purge drops the samples that ended before the span ending at now.
func (m *Meter) purge(now int64) {
	i := 0
	for i < len(m.samples) && m.samples[i].start+WindowMs*Samples <= now {
		i++
	}
	m.samples = m.samples[i:]
}

// Rate is the measured rate per second at now and the span, in ms, it is
// measured over: from the oldest sample's start, and never less than
// Samples-1 whole windows.
func (m *Meter) Rate(now int64) (perSecond float64, spanMs int64) {
	m.purge(now)
	if len(m.samples) == 0 {
		return 0, WindowMs * (Samples - 1)
	}
	var total float64
	for _, s := range m.samples {
		total += s.total
	}
	spanMs = max(now-m.samples[0].start, WindowMs*(Samples-1))
	return total * 1000 / float64(spanMs), spanMs
}

// Throttle is how long, in ms, the client must wait at now to be back
// under quota (Kafka's QuotaUtils.throttleTime, bounded by the whole
// span): 0 under quota.
func (m *Meter) Throttle(now int64, quota float64) int32 {
	rate, span := m.Rate(now)
	if rate <= quota {
		return 0
	}
	ms := (rate - quota) / quota * float64(span)
	return int32(min(ms, float64(WindowMs*Samples)))
}

// Bucket is a token bucket, as Kafka's TokenBucket for the controller
// mutation quota (KIP-599): it holds at most quota × Samples × WindowMs
// worth of tokens, refills at the quota's rate and starts full; a
// mutation takes its tokens even when that leaves the bucket in debt.
type Bucket struct {
	tokens float64
	last   int64   // ms of the last refill
	quota  float64 // the quota of the last refill; 0 before the first
}

// refill adds the tokens earned since the last call, up to the burst.
func (k *Bucket) refill(now int64, quota float64) {
	burst := quota * Samples * WindowMs / 1000
	if k.quota == 0 {
		k.tokens, k.last = burst, now
	}
	k.tokens = min(burst, k.tokens+quota*float64(now-k.last)/1000)
	k.last, k.quota = now, quota
}

// Idle reports whether the bucket is full again at now: forgetting it
// changes nothing.
func (k *Bucket) Idle(now int64) bool {
	k.refill(now, k.quota)
	return k.tokens >= k.quota*Samples*WindowMs/1000
}

// Exhausted reports whether the bucket is in debt at now: a strict quota
// refuses mutations then.
func (k *Bucket) Exhausted(now int64, quota float64) bool {
	k.refill(now, quota)
	return k.tokens < 0
}

// Take spends n tokens at now and returns the throttle time in ms: how
// long until the bucket is out of debt (0 when it is not in debt).
func (k *Bucket) Take(now int64, quota, n float64) int32 {
	k.refill(now, quota)
	k.tokens -= n
	return k.Throttle(quota)
}

// Throttle is how long, in ms, the bucket needs to be out of debt.
func (k *Bucket) Throttle(quota float64) int32 {
	if k.tokens >= 0 {
		return 0
	}
	return int32(min(-k.tokens/quota*1000, 1<<31-1))
}
