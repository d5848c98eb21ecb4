package e2e

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestClusterConsole: in a three-broker cluster every broker's console
// shows the whole cluster, not only what it holds: all three brokers, the
// topic, and each of its partitions with its leader, linked to its page
// on that leader's console (--http-peers). A partition's page on a
// broker that does not lead it names the leader and links there, and a
// read of its records is answered 421 with where to read them; on the
// leader the same page reads them. A group's page on a broker that does
// not coordinate it links to the one that does.
func TestClusterConsole(t *testing.T) {
	t.Parallel()
	bs := startCluster(t, 3)
	byNode := map[int32]*Broker{}
	for _, b := range bs {
		byNode[b.NodeID] = b
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cl := clusterClient(t, bs, kgo.RecordPartitioner(kgo.ManualPartitioner()))
	adm := kadm.NewClient(cl)
	const topic, partitions = "spread", 3
	if _, err := adm.CreateTopic(ctx, partitions, 1, nil, topic); err != nil {
		t.Fatal(err)
	}
	for p := range int32(partitions) {
		if err := cl.ProduceSync(ctx, &kgo.Record{Topic: topic, Partition: p, Value: fmt.Appendf(nil, "v%d", p)}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	const group = "ledger"
	commit := kadm.Offsets{}
	commit.Add(kadm.Offset{Topic: topic, Partition: 0, At: 1, LeaderEpoch: -1})
	if err := adm.CommitAllOffsets(ctx, group, commit); err != nil {
		t.Fatal(err)
	}
	coordinators := adm.FindGroupCoordinators(ctx, group)
	if err := coordinators.Error(); err != nil {
		t.Fatal(err)
	}
	coordinator := coordinators[group].NodeID
	md, err := adm.Metadata(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	leaders := map[int32]int32{}
	for _, p := range md.Topics[topic].Partitions {
		leaders[p.Partition] = p.Leader
	}
	// link is where a broker's console sends a partition's page: here
	// when node leads it, else the leader's console.
	link := func(node, p int32) string {
		path := fmt.Sprintf("/console/topics/%s/%d", topic, p)
		if leaders[p] == node {
			return path
		}
		return "http://" + byNode[leaders[p]].HTTPAddr + path
	}
	row := regexp.MustCompile(`<tr data-partition="(\d+)"><td[^>]*><a href="([^"]*)">\d+</a></td><td[^>]*>(-?\d+)`)
	for _, b := range bs {
		eventually(t, 30*time.Second, fmt.Sprintf("broker %d's console shows the whole cluster", b.NodeID), func() error {
			home, _, err := getPage(b, "/console")
			if err != nil {
				return err
			}
			for id := range byNode {
				if !strings.Contains(home, fmt.Sprintf(`data-broker="%d"`, id)) {
					return fmt.Errorf("its home does not list broker %d", id)
				}
			}
			if !strings.Contains(home, `data-topic="`+topic+`"`) {
				return fmt.Errorf("its home does not list topic %s", topic)
			}
			page, _, err := getPage(b, "/console/topics/"+topic)
			if err != nil {
				return err
			}
			rows := row.FindAllStringSubmatch(page, -1)
			if len(rows) != partitions {
				return fmt.Errorf("its topic page lists %d partitions, want %d", len(rows), partitions)
			}
			for _, m := range rows {
				var p, leader int32
				fmt.Sscan(m[1], &p)
				fmt.Sscan(m[3], &leader)
				if leader != leaders[p] || m[2] != link(b.NodeID, p) {
					return fmt.Errorf("partition %d: leader %d linked to %s, want %d linked to %s", p, leader, m[2], leaders[p], link(b.NodeID, p))
				}
			}
			return nil
		})
		for p := range int32(partitions) {
			path := fmt.Sprintf("/console/topics/%s/%d?from=0", topic, p)
			page, code, err := getPage(b, path)
			if err != nil {
				t.Fatal(err)
			}
			value := fmt.Sprintf(`<pre class="value">v%d</pre>`, p)
			switch {
			case leaders[p] == b.NodeID:
				if code != http.StatusOK || !strings.Contains(page, value) {
					t.Errorf("broker %d, the leader of %s-%d: %d, record v%d shown: %v", b.NodeID, topic, p, code, p, strings.Contains(page, value))
				}
			case code != http.StatusMisdirectedRequest ||
				!strings.Contains(page, fmt.Sprintf(`href="%s" data-leader="%d"`, link(b.NodeID, p), leaders[p])) ||
				!strings.Contains(page, fmt.Sprintf("Broker %d leads this partition", leaders[p])):
				t.Errorf("broker %d, not the leader of %s-%d: %d, want 421 naming leader %d and linking to %s:\n%.2000s", b.NodeID, topic, p, code, leaders[p], link(b.NodeID, p), page)
			}
		}
	}
	for _, b := range bs {
		page, code, err := getPage(b, "/console/groups/"+group)
		if err != nil {
			t.Fatal(err)
		}
		href := fmt.Sprintf(`href="http://%s/console/groups/%s" data-coordinator="%d"`, byNode[coordinator].HTTPAddr, group, coordinator)
		switch {
		case b.NodeID == coordinator:
			if code != http.StatusOK || !strings.Contains(page, fmt.Sprintf(`data-partition="%s-0"`, topic)) {
				t.Errorf("broker %d, the coordinator of group %s: %d, its lag shown: %v", b.NodeID, group, code, strings.Contains(page, "data-partition"))
			}
		case code != http.StatusMisdirectedRequest || !strings.Contains(page, href):
			t.Errorf("broker %d, not the coordinator of group %s: %d, want 421 linking to broker %d's console:\n%.2000s", b.NodeID, group, code, coordinator, page)
		}
	}
}

// getPage GETs path on b's HTTP port, returning the body and status.
func getPage(b *Broker, path string) (string, int, error) {
	resp, err := http.Get("http://" + b.HTTPAddr + path)
	if err != nil {
		return "", 0, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return string(body), resp.StatusCode, err
}
