//go:build !noquorum

package sim

import (
	"strings"
	"testing"
)

// TestClusterFailover: a 3-broker cluster replicates an acks=all record to
// the ISR, loses the leader, elects a follower from the ISR, and the
// returning broker catches up as a follower.
func TestClusterFailover(t *testing.T) {
	w := New(1)
	out := execAll(t, w,
		"cluster 3 replica.lag.time.max.ms=10000",
		"topic t partitions=1 rf=3 min.insync.replicas=2",
		"producer p1 acks=all",
		"produce p1 t partition=0 value=a",
		"advance 1s",
		"crash b1",
		"advance 15s",
		"consumer c1",
		"fetch c1 t-0 offset=0",
		"restart b1",
		"advance 15s",
		"show replicas t-0",
	)
	for _, want := range []string{
		"p1           acked t-0 offset 0",
		"t-0 leader=b2 epoch=1 isr=[b2 b0] (leader elected from the ISR)",
		"c1           t-0: 0:a (position 1)",
		"t-0 leader=b2 epoch=1 isr=[b2 b0 b1] (ISR grew)",
		"b1             t-0 leo=1 hw=1 (follower)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
}

// TestClusterIDMismatchRefused: every broker reports the quorum's cluster
// id. A broker restarted on storage of another cluster is refused
// (INCONSISTENT_CLUSTER_ID) and opens none of this cluster's replicas: its
// own log is left as it was.
func TestClusterIDMismatchRefused(t *testing.T) {
	w := New(1)
	execAll(t, w,
		"cluster 3",
		"topic t partitions=1 rf=3",
		"producer p1 acks=all",
		"produce p1 t partition=0 value=a",
		"advance 1s",
	)
	for _, n := range w.nodes {
		if got := n.Broker.ClusterID(); got != "gregor-sim" || n.Quorum.Image().ClusterID != got {
			t.Fatalf("%s: cluster id %q, image's %q", n.Name, got, n.Quorum.Image().ClusterID)
		}
	}
	b1 := w.nodes[1]
	execAll(t, w, "crash b1")
	raw, err := b1.Store.ReadFile("gregor-metadata.json")
	if err != nil {
		t.Fatal(err)
	}
	foreign := strings.Replace(string(raw), `"cluster_id": "gregor-sim"`, `"cluster_id": "another-cluster"`, 1)
	if foreign == string(raw) {
		t.Fatalf("no cluster id in %s", raw)
	}
	if err := b1.Store.WriteFile("gregor-metadata.json", []byte(foreign)); err != nil {
		t.Fatal(err)
	}
	out := execAll(t, w, "restart b1", "advance 10s")
	if b1.Broker.ClusterEpoch() >= 0 || w.nodes[0].Quorum.Image().Live(b1.ID) {
		t.Errorf("b1 registered with another cluster's storage")
	}
	if b1.Broker.Topic("t") != nil {
		t.Errorf("b1 opened a replica of this cluster into another cluster's storage")
	}
	if !strings.Contains(out, "INCONSISTENT_CLUSTER_ID") {
		t.Errorf("no INCONSISTENT_CLUSTER_ID in:\n%s", out)
	}
	if names, _ := b1.Store.List("t-0"); len(names) == 0 {
		t.Errorf("b1's own log was removed")
	}
}

// TestClusterTopicAdmin: in a cluster, CreatePartitions and DeleteTopics
// go through the controller. New partitions are placed after the topic's
// first ones, their replicas open logs and their leader takes writes; a
// deleted topic's logs are removed from every broker, and a topic created
// again under its name starts empty.
func TestClusterTopicAdmin(t *testing.T) {
	w := New(1)
	out := execAll(t, w,
		"cluster 3",
		"topic t partitions=2 rf=2",
		"add-partitions t count=2",
		"add-partitions t count=5 broker=b2",
		"advance 1s",
		"producer p1 acks=all",
		"produce p1 t partition=4 value=new",
		"advance 1s",
	)
	for _, want := range []string{
		"CreatePartitions t error=INVALID_PARTITIONS",
		"t-4 leader=",
		"p1           acked t-4 offset 0",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
	im := w.nodes[0].Quorum.Image()
	for i, p := range im.Topics["t"].Partitions {
		for _, r := range p.Replicas {
			bt := w.nodes[r].Broker.Topic("t")
			if bt == nil || len(bt.Partitions) <= i || bt.Partitions[i].Log() == nil {
				t.Errorf("b%d has no log for t-%d", r, i)
			}
		}
	}
	out = execAll(t, w, "delete-topic t", "advance 1s")
	for _, want := range []string{
		"quorum       topic t deleted",
		"b0           deleted topic t and its logs",
		"b1           deleted topic t and its logs",
		"b2           deleted topic t and its logs",
		"b0 -> admin  DeleteTopics t\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
	for _, n := range w.nodes {
		if n.Broker.Topic("t") != nil {
			t.Errorf("%s still has topic t", n.Name)
		}
		names, _ := n.Store.List("")
		for _, name := range names {
			if strings.HasPrefix(name, "t-") {
				t.Errorf("%s still has %s", n.Name, name)
			}
		}
	}
	out = execAll(t, w, "topic t partitions=1 rf=3", "advance 1s", "consumer c1", "fetch c1 t-0 offset=0")
	if !strings.Contains(out, "c1           t-0: no records (position 0)") {
		t.Errorf("the topic created again is not empty:\n%s", out)
	}
}

// TestClusterStrayLogs: a broker's partition directories name their
// topic's id (partition.metadata). One left by an older topic of the same
// name is emptied before the replica uses it; one of a topic that no
// longer exists is deleted once the broker is registered and unfenced.
func TestClusterStrayLogs(t *testing.T) {
	w := New(1)
	execAll(t, w,
		"cluster 3",
		"topic t partitions=1 rf=3",
		"producer p1 acks=all",
		"produce p1 t partition=0 value=a",
		"advance 1s",
		"crash b1",
	)
	b1 := w.nodes[1]
	st := b1.Store
	old := "version: 0\ntopic_id: AAAAAAAAAAAAAAAAAAAAAQ\n"
	// t-0 as an older topic t left it; gone-0 of a topic deleted since.
	for _, f := range []struct{ name, data string }{
		{"t-0/partition.metadata", old},
		{"gone-0/partition.metadata", old},
		{"gone-0/00000000000000000000.log", ""},
		{"legacy-0/00000000000000000000.log", ""},
	} {
		if err := st.MkdirAll(f.name[:strings.IndexByte(f.name, '/')]); err != nil {
			t.Fatal(err)
		}
		if err := st.WriteFile(f.name, []byte(f.data)); err != nil {
			t.Fatal(err)
		}
	}
	out := execAll(t, w, "restart b1", "advance 10s")
	for _, want := range []string{
		"t-0: removed the stray log of an older topic of that name (id AAAAAAAAAAAAAAAAAAAAAQ)",
		"gone-0: removed the stray log of a deleted topic (id AAAAAAAAAAAAAAAAAAAAAQ)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
	if names, _ := st.List("gone-0"); len(names) != 0 {
		t.Errorf("gone-0 still holds %v", names)
	}
	if names, _ := st.List("legacy-0"); len(names) != 1 {
		t.Errorf("a directory without partition.metadata was touched: %v", names)
	}
	// b1 caught up again from the leader: the record is back.
	if v, ok := valueAt(b1, 0); !ok || v != "a" {
		t.Errorf("b1 t-0 offset 0: %q %v, want a", v, ok)
	}
}

// TestClusterTopicDeletedWhileDown: a broker that was down while one topic
// was deleted and another deleted and created again under its name
// removes the first's logs and replaces the second's old records with the
// new topic's when it comes back.
func TestClusterTopicDeletedWhileDown(t *testing.T) {
	w := New(1)
	out := execAll(t, w,
		"cluster 3",
		"topic d partitions=1 rf=3",
		"topic t partitions=1 rf=3 flush.messages=1", // b1 keeps "old" through its crash
		"producer p1 acks=all",
		"produce p1 t partition=0 value=old",
		"advance 1s",
		"crash b1",
		"delete-topic d",
		"delete-topic t",
		"advance 1s",
		"topic t partitions=1 rf=3",
		"advance 15s", // b1's session expires: the new t-0 is led elsewhere
		"produce p1 t partition=0 value=new",
		"advance 1s",
		"restart b1",
		"advance 15s",
	)
	if !strings.Contains(out, "p1           acked t-0 offset 0") {
		t.Fatalf("the new topic's record was not acknowledged:\n%s", out)
	}
	if !strings.Contains(out, "b1           t-0: follower of b0 at epoch 0 (leo=1)") {
		t.Fatalf("b1 did not restart with the old topic's record:\n%s", out)
	}
	b1 := w.nodes[1]
	if names, _ := b1.Store.List("d-0"); len(names) != 0 {
		t.Errorf("b1 still has d-0: %v", names)
	}
	if v, ok := valueAt(b1, 0); !ok || v != "new" {
		t.Errorf("b1 t-0 offset 0 is %q (%v), want the new topic's record", v, ok)
	}
}

// TestClusterHighWatermarkCheckpoint: a restarted broker's replicas start
// from the high watermarks it checkpointed (replication-offset-checkpoint)
// instead of their log start.
func TestClusterHighWatermarkCheckpoint(t *testing.T) {
	w := New(1)
	execAll(t, w,
		"cluster 3",
		"topic t partitions=1 rf=3 flush.messages=1",
		"producer p1 acks=all",
		"produce p1 t partition=0 value=a count=3",
		"advance 6s", // past replica.high.watermark.checkpoint.interval.ms
		"crash b0",
		"crash b1",
		"crash b2",
		// Alone, b1 replays its metadata log and opens t-0, but has no
		// leader to learn the high watermark from.
		"restart b1",
		"advance 1s",
	)
	p := partition(w.nodes[1])
	if p == nil || p.Log().EndOffset() != 3 || p.HighWatermark != 3 {
		t.Fatalf("b1 t-0 after restart: %+v", p)
	}
}
