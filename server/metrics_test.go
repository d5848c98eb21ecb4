package server

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/broker"
	"github.com/gregor-kafka/gregor/core/wire"
)

// scrape fetches /metrics and parses it with Prometheus's text parser.
func scrape(t *testing.T, url string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", url, resp.Status)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("the scrape does not parse: %v", err)
	}
	return fams
}

// value is the value of the family's series whose labels include want.
func value(t *testing.T, fams map[string]*dto.MetricFamily, name string, want map[string]string) float64 {
	t.Helper()
	f := fams[name]
	if f == nil {
		t.Fatalf("no %s in the scrape", name)
	}
series:
	for _, m := range f.Metric {
		labels := map[string]string{}
		for _, l := range m.Label {
			labels[l.GetName()] = l.GetValue()
		}
		for k, v := range want {
			if labels[k] != v {
				continue series
			}
		}
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue()
		case m.Gauge != nil:
			return m.Gauge.GetValue()
		case m.Histogram != nil:
			return float64(m.Histogram.GetSampleCount())
		}
	}
	t.Fatalf("no %s series with %v", name, want)
	return 0
}

// TestMetrics produces 10 records, commits offset 4 for a group and
// consumes, then checks what /metrics says about it, and that every metric
// the Grafana dashboard queries is in the scrape.
func TestMetrics(t *testing.T) {
	srv := startInProcess(t, t.TempDir(), map[string]string{"log.flush.interval.messages": "1"})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	seed := kgo.SeedBrokers(srv.KafkaAddr().String())
	cl, err := kgo.NewClient(seed, kgo.DefaultProduceTopic("m"))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	if _, err := adm.CreateTopic(ctx, 1, 1, nil, "m"); err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		if err := cl.ProduceSync(ctx, &kgo.Record{Value: []byte(strings.Repeat("x", i))}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	offs := kadm.Offsets{}
	offs.AddOffset("m", 0, 4, -1)
	if _, err := adm.CommitOffsets(ctx, "g", offs); err != nil {
		t.Fatal(err)
	}
	cons, err := kgo.NewClient(seed, kgo.ConsumeTopics("m"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cons.Close()
	for n := 0; n < 10; {
		fs := cons.PollFetches(ctx)
		if err := fs.Err0(); err != nil {
			t.Fatal(err)
		}
		n += fs.NumRecords()
	}

	fams := scrape(t, "http://"+srv.HTTPAddr().String()+"/metrics")
	for _, c := range []struct {
		name   string
		labels map[string]string
		check  func(float64) bool
		want   string
	}{
		{"gregor_requests_total", map[string]string{"api": "Produce"}, func(v float64) bool { return v >= 10 }, ">= 10"},
		{"gregor_request_duration_seconds", map[string]string{"api": "Produce"}, func(v float64) bool { return v >= 10 }, ">= 10 observations"},
		{"gregor_topic_bytes_in_total", map[string]string{"topic": "m"}, func(v float64) bool { return v > 10*61 }, "> 10 batches of 61+ bytes"},
		{"gregor_topic_bytes_out_total", map[string]string{"topic": "m"}, func(v float64) bool { return v > 10*61 }, "> 10 batches of 61+ bytes"},
		{"gregor_topic_log_end_offset", map[string]string{"topic": "m"}, func(v float64) bool { return v == 10 }, "10"},
		{"gregor_topic_high_watermark", map[string]string{"topic": "m"}, func(v float64) bool { return v == 10 }, "10"},
		{"gregor_group_lag", map[string]string{"group": "g"}, func(v float64) bool { return v == 6 }, "6 (10 - 4)"},
		{"gregor_groups", map[string]string{"state": "Empty"}, func(v float64) bool { return v == 1 }, "1"},
		{"gregor_partitions", map[string]string{"role": "leader"}, func(v float64) bool { return v >= 1 }, ">= 1"},
		{"gregor_under_replicated_partitions", nil, func(v float64) bool { return v == 0 }, "0"},
		{"gregor_offline_partitions", nil, func(v float64) bool { return v == 0 }, "0"},
		{"gregor_active_controller", nil, func(v float64) bool { return v == 1 }, "1"},
		{"gregor_fetch_sessions", nil, func(v float64) bool { return v >= 1 }, ">= 1 (franz-go's consumer keeps one, KIP-227)"},
		{"gregor_fetch_session_partitions", nil, func(v float64) bool { return v >= 1 }, ">= 1"},
		{"gregor_storage_open_files", nil, func(v float64) bool { return v >= 3 }, ">= 3 (m's segment, index and time index)"},
		{"gregor_connections", map[string]string{"listener": "PLAINTEXT"}, func(v float64) bool { return v >= 2 }, ">= 2"},
		{"gregor_transactions", map[string]string{"state": "Ongoing"}, func(v float64) bool { return v == 0 }, "0"},
		{"gregor_isr_changes_total", map[string]string{"change": "shrink"}, func(v float64) bool { return v == 0 }, "0"},
		{"gregor_fsync_duration_seconds", nil, func(v float64) bool { return v >= 10 }, ">= 10 fsyncs"},
	} {
		if v := value(t, fams, c.name, c.labels); !c.check(v) {
			t.Errorf("%s%v = %v, want %s", c.name, c.labels, v, c.want)
		}
	}

	// Every metric the dashboard queries is one the broker exports.
	raw, err := os.ReadFile("grafana/gregor-dashboard.json")
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Panels []struct {
			Title   string
			Targets []struct{ Expr string }
		}
	}
	if err := json.Unmarshal(raw, &dash); err != nil {
		t.Fatalf("the dashboard is not JSON: %v", err)
	}
	name := regexp.MustCompile(`gregor_[a-z_]+`)
	exported := func(n string) bool {
		for _, suffix := range []string{"", "_bucket", "_sum", "_count"} {
			if b, ok := strings.CutSuffix(n, suffix); ok && fams[b] != nil {
				return true
			}
		}
		return fams[n] != nil
	}
	queried := 0
	for _, p := range dash.Panels {
		for _, tg := range p.Targets {
			for _, n := range name.FindAllString(tg.Expr, -1) {
				queried++
				if !exported(n) {
					t.Errorf("dashboard panel %q queries %s, which /metrics does not export", p.Title, n)
				}
			}
		}
	}
	if queried < 10 {
		t.Errorf("the dashboard queries %d metrics, want its panels", queried)
	}
}

// TestMetricsToken: with MetricsNeedToken, a scrape from beyond loopback
// needs the operator token; without it /metrics is open.
func TestMetricsToken(t *testing.T) {
	for _, need := range []bool{false, true} {
		s := &Server{cfg: Config{OperatorToken: "tok", MetricsNeedToken: need}, e: newEngine(t.Logf)}
		s.e.metrics = newMetrics(s.e, 1)
		h := s.routes()
		stopped := make(chan struct{})
		close(stopped)
		s.e.stopping = stopped // no engine runs: the state gauges are skipped
		req := httptest.NewRequest("GET", "/metrics", nil)
		req.RemoteAddr = "192.0.2.7:5555"
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if want := map[bool]int{false: 200, true: 401}[need]; rec.Code != want {
			t.Errorf("MetricsNeedToken=%v: a scrape from 192.0.2.7 without the token got %d, want %d", need, rec.Code, want)
		}
		req.Header.Set("Authorization", "Bearer tok")
		rec = httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != 200 || !strings.Contains(rec.Body.String(), "gregor_requests_total") && !strings.Contains(rec.Body.String(), "go_goroutines") {
			t.Errorf("MetricsNeedToken=%v: a scrape with the token got %d", need, rec.Code)
		}
	}
}

// TestNoMetrics: started without metrics (--http.metrics.enable false),
// the broker serves no /metrics and its engine hooks count nothing.
func TestNoMetrics(t *testing.T) {
	s := &Server{cfg: Config{OperatorToken: "tok", NoMetrics: true}, e: newEngine(t.Logf)}
	rec := httptest.NewRecorder()
	s.routes().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if rec.Code != http.StatusNotFound {
		t.Errorf("GET /metrics without metrics: %d, want 404", rec.Code)
	}
	var m *metrics // the engine's, when there are none
	m.request(s.e, inbound{})
	m.response(s.e, broker.Response{Conn: 1, CorrelationID: 1, Msg: kmsg.NewPtrProduceResponse()})
	m.sentFile(1)
	m.closed(1)
	m.applied(1, nil)
}

// TestLabelSetBounded: topics and groups past maxLabelValues share one
// series, so 10,000 topics make maxLabelValues+1 series, not 10,000.
func TestLabelSetBounded(t *testing.T) {
	s := labelSet{}
	seen := map[string]bool{}
	for i := range 10 * maxLabelValues {
		seen[s.label("t"+strings.Repeat("x", i%7)+string(rune('a'+i%26))+time.Duration(i).String())] = true
	}
	if len(seen) != maxLabelValues+1 || !seen[otherLabel] {
		t.Errorf("%d distinct labels for %d names, want %d and %q among them", len(seen), 10*maxLabelValues, maxLabelValues+1, otherLabel)
	}
	if got := s.label("t" + "a" + time.Duration(0).String()); got == otherLabel {
		t.Errorf("a name admitted first became %q later", got)
	}
}

// BenchmarkMetricsHooks is what the metrics add to one Produce request on
// the engine goroutine: counting it and its bytes per topic as it
// arrives, timing its answer. BenchmarkMetricsCost (server/bench) shows
// the same against the whole produce path.
func BenchmarkMetricsHooks(b *testing.B) {
	e := newEngine(b.Logf)
	m := newMetrics(e, 1)
	req := kmsg.NewPtrProduceRequest()
	req.SetVersion(9)
	req.Acks = -1
	t := kmsg.NewProduceRequestTopic()
	t.Topic = "bench"
	for p := range int32(6) {
		t.Partitions = append(t.Partitions, kmsg.ProduceRequestTopicPartition{Partition: p, Records: make([]byte, 16<<10)})
	}
	req.Topics = append(req.Topics, t)
	in := inbound{conn: &conn{id: 1}, req: broker.Request{Header: wire.Header{Key: 0, Version: 9}, Msg: req}}
	resp := req.ResponseKind()
	var corr int32
	for b.Loop() {
		corr++
		in.req.Header.CorrelationID = corr
		m.request(e, in)
		m.response(e, broker.Response{Conn: 1, CorrelationID: corr, Msg: resp})
	}
}
