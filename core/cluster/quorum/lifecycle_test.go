package quorum

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
)

// TestOfflineLogDir: a broker whose heartbeat lists an offline log dir
// (KIP-858) is recorded so, stays unfenced, and in the same batch loses
// its leadership and leaves the ISR; the leader may not add it back.
func TestOfflineLogDir(t *testing.T) {
	h := threeBrokers(t, scenarioConfig())
	h.createTopic("t", 1, 3, nil)
	before := h.controller().Image().Partition("t", 0).Clone()
	h.brokers[before.Leader].dirOffline = true
	h.runUntil(100, "log dir recorded offline", func() bool {
		return h.controller().Image().Brokers[before.Leader].LogDirOffline
	})
	im := h.controller().Image()
	p := im.Partition("t", 0)
	if p.Leader == before.Leader || p.InISR(before.Leader) || im.Brokers[before.Leader].Fenced {
		t.Fatalf("broker %d with its log dir offline: %+v, fenced %v", before.Leader, p, im.Brokers[before.Leader].Fenced)
	}
	if !p.InISR(p.Leader) || len(p.ISR) != 2 {
		t.Fatalf("ISR after the move: %+v", p)
	}
	if code := h.alterISR("t", 0, p.LeaderEpoch, p.PartitionEpoch, append(p.ISR, before.Leader), 0); code != kerr.IneligibleReplica.Code {
		t.Fatalf("adding broker %d back to the ISR: %v, want INELIGIBLE_REPLICA", before.Leader, kerr.ErrorForCode(code))
	}
	h.agree()
}

// TestControlledShutdownStates: a broker asking for a controlled shutdown
// goes in controlled shutdown (registered, unfenced) with its leadership
// moved and out of the ISR in one batch, may not rejoin the ISR, and is
// fenced and told should_shut_down only at a later heartbeat.
func TestControlledShutdownStates(t *testing.T) {
	h := threeBrokers(t, scenarioConfig())
	h.createTopic("t", 1, 3, nil)
	id := h.controller().Image().Partition("t", 0).Leader
	b := h.brokers[id]
	b.wantShutdown = true
	h.runUntil(100, "in controlled shutdown", func() bool {
		return h.controller().Image().Brokers[id].InControlledShutdown
	})
	im := h.controller().Image()
	p := im.Partition("t", 0)
	if im.Brokers[id].Fenced || b.shouldShutdown || p.Leader == id || p.InISR(id) {
		t.Fatalf("broker %d entering controlled shutdown: fenced %v, should_shut_down %v, %+v", id, im.Brokers[id].Fenced, b.shouldShutdown, p)
	}
	if code := h.alterISR("t", 0, p.LeaderEpoch, p.PartitionEpoch, append(p.ISR, id), 0); code != kerr.IneligibleReplica.Code {
		t.Fatalf("adding broker %d back to the ISR: %v, want INELIGIBLE_REPLICA", id, kerr.ErrorForCode(code))
	}
	h.runUntil(100, "told to shut down", func() bool { return b.shouldShutdown })
	if !h.controller().Image().Brokers[id].Fenced {
		t.Fatalf("broker %d told to shut down but not fenced", id)
	}
	h.agree()
}
