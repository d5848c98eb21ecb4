package quorum

import "testing"

// clusterIDRecords collects the raft indexes of the ClusterIDRecords node 1
// applies (again after a restart: the set counts each once).
func clusterIDRecords(h *harness) map[uint64]bool {
	at := map[uint64]bool{}
	h.observe = func(a Applied) {
		if a.Batch == nil {
			return
		}
		for i, r := range a.Batch.Records {
			if r.ClusterID != nil && a.Errs[i] == nil {
				at[a.Index] = true
			}
		}
	}
	return at
}

func TestClusterIDWrittenOnceAndAdopted(t *testing.T) {
	h := newHarness(t, 1, 3, scenarioConfig())
	written := clusterIDRecords(h)
	h.runUntil(200, "a controller elected", func() bool { return h.controller() != nil })
	for _, id := range []int32{1, 2, 3} {
		h.addBroker(id)
	}
	h.runUntil(200, "all brokers unfenced", h.allUnfenced)
	h.run(3)
	h.agree()
	cid := h.controller().Image().ClusterID
	if len(cid) != 22 {
		t.Fatalf("cluster id %q, want a random uuid as Kafka prints it", cid)
	}
	for id, b := range h.brokers {
		if b.clusterID != cid {
			t.Errorf("broker %d adopted %q, cluster id is %q", id, b.clusterID, cid)
		}
	}
	// A new controller finds the id in the log and keeps it.
	old := h.controller().ID()
	h.crash(old)
	h.runUntil(200, "a new controller", func() bool { c := h.controller(); return c != nil && c.ID() != old })
	h.restart(old)
	h.run(30)
	h.agree()
	if got := h.controller().Image().ClusterID; got != cid {
		t.Errorf("cluster id after failover %q, want %q", got, cid)
	}
	if len(written) != 1 {
		t.Errorf("cluster id records applied at %v, want one", written)
	}
	if !h.allUnfenced() {
		t.Error("brokers fenced after a failover")
	}
}

func TestClusterIDFromConfig(t *testing.T) {
	cfg := scenarioConfig()
	cfg.ClusterID = "formatted-id"
	h := threeBrokers(t, cfg)
	h.agree()
	if got := h.controller().Image().ClusterID; got != "formatted-id" {
		t.Fatalf("cluster id %q, want the configured one", got)
	}
}

// A broker whose data belongs to another cluster is refused
// (INCONSISTENT_CLUSTER_ID) and never registered; the others are not
// disturbed.
func TestInconsistentClusterIDRefused(t *testing.T) {
	h := threeBrokers(t, scenarioConfig())
	h.brokers[4] = &simBroker{id: 4, up: true, clusterID: "another-cluster"}
	h.runUntil(200, "broker 4 refused", func() bool { return h.brokers[4].refused >= 3 })
	h.agree()
	im := h.controller().Image()
	if im.Brokers[4] != nil {
		t.Fatalf("broker 4 registered: %+v", im.Brokers[4])
	}
	if h.brokers[4].epoch != 0 {
		t.Fatal("broker 4 has an epoch")
	}
	for _, id := range []int32{1, 2, 3} {
		if !im.Live(id) {
			t.Errorf("broker %d not live", id)
		}
	}
}
