package e2e

import (
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// scrapeMetrics parses b's /metrics with Prometheus's text parser.
func scrapeMetrics(b *Broker) (map[string]*dto.MetricFamily, error) {
	resp, err := http.Get("http://" + b.HTTPAddr + "/metrics")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET /metrics: %s", resp.Status)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	return p.TextToMetricFamilies(resp.Body)
}

// sumOf adds the values of a family's series whose label name has value
// (every series for an empty name).
func sumOf(fams map[string]*dto.MetricFamily, family, name, value string) float64 {
	total := 0.0
	f := fams[family]
	if f == nil {
		return 0
	}
	for _, m := range f.Metric {
		match := name == ""
		for _, l := range m.Label {
			match = match || l.GetName() == name && l.GetValue() == value
		}
		if !match {
			continue
		}
		if m.Gauge != nil {
			total += m.Gauge.GetValue()
		} else if m.Counter != nil {
			total += m.Counter.GetValue()
		}
	}
	return total
}

// TestClusterMetrics scrapes every node of a three-broker cluster: one
// active controller among them, the replicas of a topic with replication
// factor 3 as one leader and two followers each; when a follower is
// killed, its leader counts an ISR shrink and an under-replicated
// partition.
func TestClusterMetrics(t *testing.T) {
	t.Parallel()
	bs := startCluster(t, 3, WithConfig("replica.lag.time.max.ms", "1500"))
	topic := topicName(t, "")
	_, p := createReplicated(t, bs, topic)
	eventually(t, 20*time.Second, "one active controller, the topic's three replicas", func() error {
		controllers, leaders, followers := 0.0, 0.0, 0.0
		for _, b := range bs {
			fams, err := scrapeMetrics(b)
			if err != nil {
				return err
			}
			controllers += sumOf(fams, "gregor_active_controller", "", "")
			leaders += sumOf(fams, "gregor_partitions", "role", "leader")
			followers += sumOf(fams, "gregor_partitions", "role", "follower")
		}
		if controllers != 1 || leaders < 1 || followers < 2 {
			return fmt.Errorf("%v active controllers, %v leaders, %v followers", controllers, leaders, followers)
		}
		return nil
	})
	var follower, leader *Broker
	for _, b := range bs {
		switch {
		case b.NodeID == p.Leader:
			leader = b
		case follower == nil:
			follower = b
		}
	}
	follower.Kill()
	eventually(t, 30*time.Second, "the leader counts an ISR shrink", func() error {
		fams, err := scrapeMetrics(leader)
		if err != nil {
			return err
		}
		if sumOf(fams, "gregor_isr_changes_total", "change", "shrink") < 1 || sumOf(fams, "gregor_under_replicated_partitions", "", "") < 1 {
			return errors.New("no ISR shrink or under-replicated partition yet")
		}
		return nil
	})
}
