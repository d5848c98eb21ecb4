package broker

import (
	"encoding/json"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gregor-kafka/gregor/core/cluster"
	"github.com/gregor-kafka/gregor/core/config"
	"github.com/gregor-kafka/gregor/core/store"
)

// oldStorage is a data directory as Gregor wrote it before cluster ids
// were the quorum's: a metadata file without "format", carrying an id
// the broker drew itself, and a replica's log whose partition.metadata
// names topic id.
func oldStorage(t *testing.T, drawn string, id cluster.UUID) *store.Mem {
	t.Helper()
	st := store.NewMem()
	if err := st.WriteFile(metadataFile, []byte(`{"cluster_id":"`+drawn+`","next_producer_id_block":0,"topics":{}}`)); err != nil {
		t.Fatal(err)
	}
	if err := st.MkdirAll("orders-0"); err != nil {
		t.Fatal(err)
	}
	if err := st.WriteFile("orders-0/"+partitionMetadataFile, []byte("version: 0\ntopic_id: "+id.String()+"\n")); err != nil {
		t.Fatal(err)
	}
	return st
}

func clusteredBroker(t *testing.T, st store.Storage, logf func(string, ...any)) (*Broker, error) {
	cfg := Config{NodeID: 1, Settings: config.NewBroker(), Rand: rand.New(rand.NewPCG(1, 2)), Logf: logf,
		Cluster: &ClusterConfig{}}
	return New(cfg, st, 1000)
}

func imageOf(clusterID string, topic cluster.UUID) *cluster.Image {
	im := cluster.NewImage()
	im.ClusterID = clusterID
	im.Topics["orders"] = &cluster.Topic{Name: "orders", ID: topic, Partitions: []*cluster.Partition{{Replicas: []int32{1}, ISR: []int32{1}, Leader: 1}}}
	return im
}

// TestMigrateOldClusterStorage: a clustered broker on storage of the
// earlier format adopts the quorum's id in place of the one it drew, and
// keeps its logs; one whose logs name another topic id is refused.
func TestMigrateOldClusterStorage(t *testing.T) {
	topic := cluster.UUID{1, 2, 3}
	var logged []string
	logf := func(f string, a ...any) { logged = append(logged, f) }
	st := oldStorage(t, "drawnByB1", topic)
	b, err := clusteredBroker(t, st, logf)
	if err != nil {
		t.Fatal(err)
	}
	if b.ClusterID() != "" {
		t.Fatalf("before the quorum's image: cluster id %q, want none (the drawn one is forgotten)", b.ClusterID())
	}
	if err := b.ApplyMetadata(1000, imageOf("quorumID", topic)); err != nil {
		t.Fatalf("migrating: %v", err)
	}
	if b.ClusterID() != "quorumID" || len(b.Topics()) != 1 {
		t.Fatalf("after the image: cluster id %q, %d topics", b.ClusterID(), len(b.Topics()))
	}
	if !strings.Contains(strings.Join(logged, "\n"), "migrated storage") {
		t.Errorf("no log line says the storage was migrated: %q", logged)
	}
	// The next write of the metadata file is of the new format, with the
	// quorum's id: a restart is then an ordinary one.
	if err := b.saveMetadata(); err != nil {
		t.Fatal(err)
	}
	var m struct {
		Format    int    `json:"format"`
		ClusterID string `json:"cluster_id"`
	}
	raw, _ := st.ReadFile(metadataFile)
	if err := json.Unmarshal(raw, &m); err != nil || m.Format != metadataFormat || m.ClusterID != "quorumID" {
		t.Fatalf("metadata file after migration: %s (%v)", raw, err)
	}
	again, err := clusteredBroker(t, st, logf)
	if err != nil {
		t.Fatal(err)
	}
	if err := again.ApplyMetadata(1000, imageOf("otherCluster", topic)); !errors.Is(err, ErrInconsistentClusterID) {
		t.Fatalf("migrated storage joining another cluster: %v, want ErrInconsistentClusterID", err)
	}

	other, err := clusteredBroker(t, oldStorage(t, "drawnByB2", cluster.UUID{9}), logf)
	if err != nil {
		t.Fatal(err)
	}
	if err := other.ApplyMetadata(1000, imageOf("quorumID", topic)); !errors.Is(err, ErrInconsistentClusterID) || !strings.Contains(err.Error(), "orders-0") {
		t.Fatalf("old storage whose log names another topic id: %v, want ErrInconsistentClusterID naming orders-0", err)
	}
}

// TestOldSingleBrokerStorage: a single broker keeps the id it drew.
func TestOldSingleBrokerStorage(t *testing.T) {
	st := oldStorage(t, "drawnAlone", cluster.UUID{1})
	b, err := New(Config{NodeID: 1, Settings: config.NewBroker(), Rand: rand.New(rand.NewPCG(1, 2))}, st, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if b.ClusterID() != "drawnAlone" {
		t.Fatalf("cluster id %q, want the stored one", b.ClusterID())
	}
	st2 := store.NewMem()
	st2.WriteFile(metadataFile, []byte(`{"format":3,"cluster_id":"x","topics":{}}`))
	if _, err := New(Config{NodeID: 1, Settings: config.NewBroker(), Rand: rand.New(rand.NewPCG(1, 2))}, st2, 1000); err == nil || !strings.Contains(err.Error(), "newer") {
		t.Fatalf("a file of a newer format: %v", err)
	}
}
