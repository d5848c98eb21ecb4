package server

import (
	"net/http"
	"sort"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/broker"
	"github.com/gregor-kafka/gregor/core/cluster/quorum"
	"github.com/gregor-kafka/gregor/core/txn"
	"github.com/gregor-kafka/gregor/core/wire"
	"github.com/gregor-kafka/gregor/server/filestore"
)

// Prometheus metrics at /metrics on the HTTP address, with the Prometheus
// client library (prometheus/client_golang): kept out of core/, so the
// browser build never links it.
//
// Two kinds. Counters and histograms of what happens (requests and their
// latency per API and version, bytes in and out per topic, fsync
// latency, ISR shrinks and expands) are updated on the engine goroutine
// as it happens. Gauges of state (log end offsets and high watermarks,
// consumer lag, under-replicated and offline partitions, the active
// controller, groups, transactions, connections) are read from the
// engine when Prometheus scrapes, by a function run on the engine
// goroutine (engine.call), so the broker is never read concurrently.
//
// Invariants: the number of series is bounded whatever the number of
// partitions. There are no per-partition series: offsets are summed per
// topic, lag per group, and the topic and group labels take at most
// maxLabelValues distinct values each; the rest are counted under
// otherLabel.

// The engine's hooks (request, response, closed, applied) do nothing on
// a nil *metrics: the broker started without metrics
// (Config.NoMetrics).

// maxLabelValues bounds the distinct topics (and groups) that get series
// of their own.
const maxLabelValues = 1000

// otherLabel stands for the topics or groups beyond maxLabelValues.
const otherLabel = "_other"

// metrics are the broker's Prometheus metrics.
type metrics struct {
	reg      *prometheus.Registry
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	bytesIn  *prometheus.CounterVec
	bytesOut *prometheus.CounterVec
	isr      *prometheus.CounterVec
	fsync    prometheus.Histogram
	sendfile prometheus.Counter // updated by the connections' writers
	self     int32              // node.id

	// engine goroutine only
	perAPI  map[[2]int16]apiSeries // by key and version: no label hashing per request
	started map[reqKey]time.Time
	topics  labelSet
	ids     map[[16]byte]string // topic ids seen in fetches (KIP-516)
}

type apiSeries struct {
	requests prometheus.Counter
	latency  prometheus.Observer
}

// api is the series of an API and version.
func (m *metrics) api(key, version int16) apiSeries {
	k := [2]int16{key, version}
	s, ok := m.perAPI[k]
	if !ok {
		labels := []string{kmsg.NameForKey(key), strconv.Itoa(int(version))}
		s = apiSeries{m.requests.WithLabelValues(labels...), m.latency.WithLabelValues(labels...)}
		m.perAPI[k] = s
	}
	return s
}

type reqKey struct {
	conn uint64
	corr int32
}

// labelSet admits the first maxLabelValues names it is asked about.
type labelSet map[string]bool

func (s labelSet) label(name string) string {
	if s[name] {
		return name
	}
	if len(s) >= maxLabelValues {
		return otherLabel
	}
	s[name] = true
	return name
}

func newMetrics(e *engine, self int32) *metrics {
	reg := prometheus.NewRegistry()
	m := &metrics{
		reg: reg,
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "gregor_requests_total",
			Help: "Kafka requests received, per API and version."}, []string{"api", "version"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "gregor_request_duration_seconds",
			Help:    "Time from a request's arrival at the engine to its response (long polls included), per API and version.",
			Buckets: prometheus.ExponentialBuckets(0.0001, 4, 10)}, []string{"api", "version"}),
		bytesIn: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "gregor_topic_bytes_in_total",
			Help: "Record batch bytes produced to the topic."}, []string{"topic"}),
		bytesOut: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "gregor_topic_bytes_out_total",
			Help: "Record batch bytes fetched from the topic (by consumers and followers)."}, []string{"topic"}),
		isr: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "gregor_isr_changes_total",
			Help: "ISR shrinks and expands of partitions this broker leads."}, []string{"change"}),
		fsync: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "gregor_fsync_duration_seconds",
			Help: "Duration of each fsync of a log, index or checkpoint file.", Buckets: prometheus.ExponentialBuckets(0.0001, 2, 16)}),
		sendfile: prometheus.NewCounter(prometheus.CounterOpts{Name: "gregor_fetch_sendfile_bytes_total",
			Help: "Record batch bytes of fetch answers sent from the segment files with sendfile (zero-copy, plaintext listeners)."}),
		self:    self,
		perAPI:  map[[2]int16]apiSeries{},
		started: map[reqKey]time.Time{},
		topics:  labelSet{},
		ids:     map[[16]byte]string{},
	}
	reg.MustRegister(m.requests, m.latency, m.bytesIn, m.bytesOut, m.isr, m.fsync, m.sendfile,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		&stateCollector{e: e})
	for _, c := range []string{"shrink", "expand"} {
		m.isr.WithLabelValues(c) // exported at 0 before the first change
	}
	return m
}

// storage exports the storage's open descriptors and how often a file
// was opened again after the descriptor bound closed it
// (filestore/descriptors.go).
func (m *metrics) storage(fs *filestore.FS) {
	m.reg.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "gregor_storage_open_files",
			Help: "Descriptors the log's segment and index files hold open, at most three quarters of the open-files limit."},
			func() float64 { open, _ := fs.OpenDescriptors(); return float64(open) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "gregor_storage_reopened_files_total",
			Help: "Files opened again on use after the descriptor bound closed them."},
			func() float64 { _, n := fs.OpenDescriptors(); return float64(n) }))
}

// handler serves the scrape.
func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

// topicLabel is the label of a topic named by name or, when that is
// empty, by its id (KIP-516: Produce v13 and Fetch v13 carry ids).
func (m *metrics) topicLabel(e *engine, name string, id [16]byte) string {
	if name == "" {
		var ok bool
		if name, ok = m.ids[id]; !ok {
			name = e.topicName(id)
			m.ids[id] = name
		}
	}
	return m.topics.label(name)
}

// request counts a request as the engine takes it.
func (m *metrics) request(e *engine, in inbound) {
	if m == nil {
		return
	}
	h := in.req.Header
	m.api(h.Key, h.Version).requests.Inc()
	if p, ok := in.req.Msg.(*kmsg.ProduceRequest); ok {
		for _, t := range p.Topics {
			n := 0
			for _, pt := range t.Partitions {
				n += len(pt.Records)
			}
			m.bytesIn.WithLabelValues(m.topicLabel(e, t.Topic, t.TopicID)).Add(float64(n))
		}
		if p.Acks == 0 {
			return // no response to time
		}
	}
	m.started[reqKey{in.conn.id, h.CorrelationID}] = time.Now()
}

// response observes a response as the engine delivers it.
func (m *metrics) response(e *engine, r broker.Response) {
	if m == nil {
		return
	}
	k := reqKey{r.Conn, r.CorrelationID}
	if t, ok := m.started[k]; ok {
		delete(m.started, k)
		m.api(r.Msg.Key(), r.Msg.GetVersion()).latency.Observe(time.Since(t).Seconds())
	}
	if f, ok := r.Msg.(*kmsg.FetchResponse); ok {
		m.fetched(e, f, r.Ranged)
	}
}

// sentFile counts bytes a connection sent with sendfile; it runs on the
// connection's writer.
func (m *metrics) sentFile(n int) {
	if m != nil && n > 0 {
		m.sendfile.Add(float64(n))
	}
}

// fetched counts the record bytes of a fetch response per topic, those
// pinned in ranged included.
func (m *metrics) fetched(e *engine, f *kmsg.FetchResponse, ranged []wire.Ranged) {
	for i, t := range f.Topics {
		n := 0
		for _, p := range t.Partitions {
			n += len(p.RecordBatches)
		}
		for _, rg := range ranged {
			if rg.Topic == i {
				n += rg.Span.Len()
			}
		}
		if n == 0 {
			continue
		}
		m.bytesOut.WithLabelValues(m.topicLabel(e, t.Topic, t.TopicID)).Add(float64(n))
	}
}

// closed forgets the requests of a closed connection.
func (m *metrics) closed(conn uint64) {
	if m == nil {
		return
	}
	for k := range m.started {
		if k.conn == conn {
			delete(m.started, k)
		}
	}
}

// applied counts the ISR shrinks and expands of the partitions this node
// leads among what the metadata quorum applied.
func (m *metrics) applied(self int32, applied []quorum.Applied) {
	if m == nil {
		return
	}
	for _, a := range applied {
		for _, d := range a.Deltas {
			if d.Before == nil || d.After == nil || d.After.Leader != self || d.Before.Leader != self {
				continue
			}
			switch b, a := len(d.Before.ISR), len(d.After.ISR); {
			case a < b:
				m.isr.WithLabelValues("shrink").Inc()
			case a > b:
				m.isr.WithLabelValues("expand").Inc()
			}
		}
	}
}

// stateCollector reads the broker's state at scrape time, on the engine.
type stateCollector struct{ e *engine }

var (
	descLogEnd = prometheus.NewDesc("gregor_topic_log_end_offset",
		"Sum of the log end offsets of the topic's partitions on this broker.", []string{"topic"}, nil)
	descHW = prometheus.NewDesc("gregor_topic_high_watermark",
		"Sum of the high watermarks of the topic's partitions on this broker.", []string{"topic"}, nil)
	descPartitions = prometheus.NewDesc("gregor_partitions",
		"Partition replicas on this broker, by role (leader or follower).", []string{"role"}, nil)
	descUnder = prometheus.NewDesc("gregor_under_replicated_partitions",
		"Partitions this broker leads whose ISR is smaller than their replica set.", nil, nil)
	descOffline = prometheus.NewDesc("gregor_offline_partitions",
		"Partitions on this broker that are offline: a failed write or sync, or no leader.", nil, nil)
	descController = prometheus.NewDesc("gregor_active_controller",
		"1 while this node is the active controller (a single broker always is).", nil, nil)
	descGroups = prometheus.NewDesc("gregor_groups",
		"Consumer groups this broker coordinates, by state.", []string{"state"}, nil)
	descGeneration = prometheus.NewDesc("gregor_group_generation",
		"The group's generation (KIP-848: group epoch); each rebalance raises it.", []string{"group"}, nil)
	descLag = prometheus.NewDesc("gregor_group_lag",
		"Sum over the group's committed partitions on this broker of high watermark minus committed offset.", []string{"group"}, nil)
	descTxns = prometheus.NewDesc("gregor_transactions",
		"Transactional ids this broker coordinates, by state (Ongoing: open transactions).", []string{"state"}, nil)
	descSessions = prometheus.NewDesc("gregor_fetch_sessions",
		"Incremental fetch sessions (KIP-227) the broker keeps, up to max.incremental.fetch.session.cache.slots.", nil, nil)
	descSessionParts = prometheus.NewDesc("gregor_fetch_session_partitions",
		"Partitions held in the incremental fetch sessions.", nil, nil)
	descConns = prometheus.NewDesc("gregor_connections",
		"Open client connections, per listener.", []string{"listener"}, nil)
)

func (c *stateCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descLogEnd, descHW, descPartitions, descUnder, descOffline,
		descController, descGroups, descGeneration, descLag, descTxns, descSessions, descSessionParts, descConns} {
		ch <- d
	}
}

// stateSample is the state read on the engine, exported after.
type stateSample struct {
	logEnd, hw        map[string]float64
	leaders, follower float64
	under, offline    float64
	controller        float64
	groups            map[string]float64
	generation, lag   map[string]float64
	txns              map[string]float64
	sessions, parts   float64
	conns             map[string]float64
}

func (c *stateCollector) Collect(ch chan<- prometheus.Metric) {
	var s stateSample
	if !c.e.call(func() { s = c.e.sample() }) {
		return // the server is stopping
	}
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	each := func(d *prometheus.Desc, m map[string]float64) {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			gauge(d, m[k], k)
		}
	}
	each(descLogEnd, s.logEnd)
	each(descHW, s.hw)
	gauge(descPartitions, s.leaders, "leader")
	gauge(descPartitions, s.follower, "follower")
	gauge(descUnder, s.under)
	gauge(descOffline, s.offline)
	gauge(descController, s.controller)
	each(descGroups, s.groups)
	each(descGeneration, s.generation)
	each(descLag, s.lag)
	each(descTxns, s.txns)
	gauge(descSessions, s.sessions)
	gauge(descSessionParts, s.parts)
	each(descConns, s.conns)
}

// sample reads the state; engine goroutine only.
func (e *engine) sample() stateSample {
	s := stateSample{logEnd: map[string]float64{}, hw: map[string]float64{}, groups: map[string]float64{},
		generation: map[string]float64{}, lag: map[string]float64{}, txns: map[string]float64{}, conns: map[string]float64{}}
	topics := labelSet{}
	self := e.metrics.self
	hw := map[string]map[int32]int64{}
	for _, t := range e.b.Topics() {
		name := topics.label(t.Name)
		hw[t.Name] = map[int32]int64{}
		for _, p := range t.Partitions {
			if p.Offline() || p.Leader < 0 {
				s.offline++
				continue
			}
			hw[t.Name][p.Index] = p.HighWatermark
			s.logEnd[name] += float64(p.Log().EndOffset())
			s.hw[name] += float64(p.HighWatermark)
			if p.Leader != self {
				s.follower++
				continue
			}
			s.leaders++
			if len(p.ISR) < len(p.Replicas) {
				s.under++
			}
		}
	}
	sessions, parts := e.b.FetchSessions()
	s.sessions, s.parts = float64(sessions), float64(parts)
	s.controller = 1
	if e.cl != nil {
		s.controller = 0
		if e.cl.node.Status().Controller {
			s.controller = 1
		}
	}
	groups := labelSet{}
	gc := e.b.Groups()
	for _, id := range gc.Groups() {
		g := gc.Group(id)
		if g == nil {
			continue
		}
		s.groups[string(g.State())]++
		label := groups.label(id)
		s.generation[label] = max(s.generation[label], float64(g.Generation()))
		lag := 0.0
		g.CommittedOffsets(func(topic string, partition int32, offset int64) {
			if h, ok := hw[topic][partition]; ok && h > offset {
				lag += float64(h - offset)
			}
		})
		s.lag[label] += lag
	}
	s.txns[txn.Ongoing.Name()] = 0 // exported even with none open
	tc := e.b.Transactions()
	for _, id := range tc.IDs() {
		if m, ok := tc.Get(id); ok {
			s.txns[m.State.Name()]++
		}
	}
	for _, c := range e.conns {
		s.conns[c.listener]++
	}
	return s
}
