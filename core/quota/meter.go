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
