package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestClusterUpgradeFromOldDataDirs: a three-broker cluster's data
// directories are rewritten into the format of a Gregor from before
// cluster ids were the quorum's (each broker's metadata file without
// "format", carrying an id of its own drawing); the cluster then starts
// on them, every broker adopts the quorum's id and says so, and the
// records written before are all there.
func TestClusterUpgradeFromOldDataDirs(t *testing.T) {
	t.Parallel()
	requireBinary(t)
	bs := startCluster(t, 3)
	topic := topicName(t, "")
	cl, _ := createReplicated(t, bs, topic)
	ctx := testCtx(t, 60*time.Second)
	const n = 50
	for i := range n {
		if err := cl.ProduceSync(ctx, &kgo.Record{Topic: topic, Value: fmt.Appendf(nil, "v%03d", i)}).FirstErr(); err != nil {
			t.Fatalf("produce %d: %v", i, err)
		}
	}
	cl.Close()
	before := describeClusterID(t, bs)
	for _, b := range bs {
		if code, err := b.Stop(); err != nil || code != 0 {
			t.Fatalf("stop %s: %d %v", b.Addr, code, err)
		}
	}
	for i, b := range bs {
		editMetadata(t, b, "format", func(m map[string]any) {
			delete(m, "format")
			m["cluster_id"] = fmt.Sprintf("drawnByBroker%d", i+1)
		})
	}
	for _, b := range bs {
		b.Restart()
	}
	eventually(t, 60*time.Second, "every broker registered again", func() error {
		if id := describeClusterID(t, bs); id != before {
			return fmt.Errorf("cluster id %q, want %q", id, before)
		}
		return nil
	})
	for i, b := range bs {
		if out := b.Output(); !strings.Contains(out, fmt.Sprintf("adopted the quorum's cluster id %s in place of drawnByBroker%d", before, i+1)) {
			t.Errorf("broker %d does not log its migration:\n%s", i+1, out)
		}
	}
	got := startTail(t, bs, topic).waitFor(t, "the records written before the upgrade", func(vals []string) error {
		if len(vals) < n {
			return fmt.Errorf("%d of %d records", len(vals), n)
		}
		return nil
	})
	for i, v := range got[:n] {
		if want := fmt.Sprintf("v%03d", i); v != want {
			t.Fatalf("offset %d: %q, want %q", i, v, want)
		}
	}
}

// describeClusterID asks every broker for the cluster id; it fails the
// test unless they all answer the same.
func describeClusterID(t *testing.T, bs []*Broker) string {
	t.Helper()
	ids := map[string]bool{}
	for _, b := range bs {
		cl, err := kgo.NewClient(kgo.SeedBrokers(b.Addr))
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		md, err := kadm.NewClient(cl).BrokerMetadata(ctx)
		cancel()
		cl.Close()
		if err != nil {
			return "unreachable: " + err.Error()
		}
		ids[md.Cluster] = true
	}
	if len(ids) != 1 {
		return fmt.Sprintf("brokers disagree: %v", ids)
	}
	for id := range ids {
		return id
	}
	return ""
}

// editMetadata makes a stopped broker's gregor-metadata.json look older:
// edit changes it as JSON; it must hold field, which an older Gregor did
// not write, or the test would prove nothing.
func editMetadata(t *testing.T, b *Broker, field string, edit func(map[string]any)) {
	t.Helper()
	path := filepath.Join(b.DataDir, "gregor-metadata.json")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	if m[field] == nil {
		t.Fatalf("%s has no %s: the test would not make it older", path, field)
	}
	edit(m)
	raw, _ = json.Marshal(m)
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
}
