package broker

import (
	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/gregor-kafka/gregor/core/record"
	"github.com/gregor-kafka/gregor/core/share"
)

// The share coordinator (KIP-932): the leader of the __share_group_state
// partition a share partition's coordinator key hashes to owns that share
// partition's persisted state, and serves it to the share partitions'
// leaders with InitializeShareGroupState v0 (83), ReadShareGroupState v0
// (84), WriteShareGroupState v0-1 (85), DeleteShareGroupState v0 (86) and
// ReadShareGroupStateSummary v0-1 (87), inter-broker APIs (CLUSTER_ACTION,
// share_remote.go, left out of the single-broker browser build). Each is
// a shareOp here, served by coordinateShare, in-process on a single
// broker and where a leader is its own coordinator. Kafka's
// ShareCoordinatorShard, with one ShareSnapshot record per write
// (no ShareUpdate deltas): the log is compacted, so the last snapshot of a
// key is its state. A write is answered once the ISR has it.
//
// # Invariants
//
//   - The state of a key is held (b.shareState) only where its
//     __share_group_state partition is led: loaded from the log when the
//     broker becomes its leader, forgotten when it stops.
//   - A write or read carrying a leader epoch older than the one stored is
//     refused (FENCED_LEADER_EPOCH): a deposed share-partition leader
//     cannot overwrite its successor's state. A write carrying another
//     state epoch is refused (FENCED_STATE_EPOCH): the state was reset or
//     deleted by an admin since that leader read it.
//   - InitializeShareGroupState (an admin's reset) takes the next state
//     epoch when the request's is not newer: Gregor's group coordinator
//     does not track state epochs.
//   - Deleted state is kept as uninitialized (start offset -1) with the
//     next state epoch, not as a tombstone, so the fence survives.
//
// loadShareState replays partition p of __share_group_state into the
// coordinator's state.
func (b *Broker) loadShareState(p int32) error {
	return b.ReplayInternal(share.StateTopic, p, func(_ int64, r record.Record) {
		k, sp, ok, err := share.DecodeSnapshot(r.Key, r.Value)
		switch {
		case err != nil:
			b.cfg.Logf("replaying %s-%d: %v", share.StateTopic, p, err)
		case ok && sp == nil:
			delete(b.shareState, k)
		case ok:
			b.shareState[k] = sp
		}
	})
}

// unloadShareState forgets the keys of partition p, whose leadership left.
func (b *Broker) unloadShareState(p int32) int {
	n := 0
	//purity:unordered deletes and counts only
	for k := range b.shareState {
		if b.shareStatePartitionOf(k) == p {
			delete(b.shareState, k)
			n++
		}
	}
	return n
}

// shareStatePartitionOf is the __share_group_state partition of a key,
// or -1 while the topic does not exist.
func (b *Broker) shareStatePartitionOf(k share.Key) int32 {
	t, _ := b.image.topic(share.StateTopic)
	if t.partitions == 0 {
		return -1
	}
	return shareStatePartition(k, int32(t.partitions))
}

// The share coordinator's APIs (their keys): what a shareOp asks.
const (
	shareInit    int16 = 83 // reset: start offset, the next state epoch
	shareRead    int16 = 84 // the state, fencing older leader epochs
	shareWrite   int16 = 85 // the state a share-partition leader changed
	shareDelete  int16 = 86 // forget: uninitialized, the next state epoch
	shareSummary int16 = 87 // start offset, epochs, records done
)

// shareOp is one share partition of a share coordinator request.
type shareOp struct {
	api int16
	k   share.Key
	// state: for shareWrite the new state (with the writer's state and
	// leader epochs), for shareInit its start offset and state epoch.
	state *share.Partition
	// leaderEpoch: for shareRead, the reader's.
	leaderEpoch int32
}

// shareAnswer is the coordinator's answer to a shareOp; state is for
// shareRead and shareSummary (start offset -1: uninitialized), complete
// the records of its window acknowledged or archived (shareSummary).
type shareAnswer struct {
	code     int16
	state    *share.Partition
	complete int32
}

// coordinateShare serves a shareOp on this broker's coordinator state;
// the appends it makes are the step's in progress (collectWrites).
func (b *Broker) coordinateShare(op shareOp) shareAnswer {
	sp := b.shareStatePartitionOf(op.k)
	if sp < 0 || !b.coordinates(share.StateTopic, sp) {
		return shareAnswer{code: kerr.NotCoordinator.Code}
	}
	cur := b.shareState[op.k]
	if cur == nil {
		cur = share.NewPartition(-1)
	}
	var next *share.Partition
	switch op.api {
	case shareRead:
		if op.leaderEpoch < cur.LeaderEpoch {
			return shareAnswer{code: kerr.FencedLeaderEpoch.Code}
		}
		if op.leaderEpoch > cur.LeaderEpoch { // the new leader fences its predecessor
			next = cloneShare(cur)
			next.LeaderEpoch = op.leaderEpoch
		}
	case shareWrite:
		switch {
		case op.state.LeaderEpoch < cur.LeaderEpoch:
			return shareAnswer{code: kerr.FencedLeaderEpoch.Code}
		case op.state.StateEpoch != cur.StateEpoch:
			return shareAnswer{code: kerr.FencedStateEpoch.Code}
		}
		next = op.state
	case shareInit: // the group coordinator keeps no state epochs: at least the next one
		next = share.NewPartition(op.state.Start)
		next.StateEpoch, next.LeaderEpoch = max(op.state.StateEpoch, cur.StateEpoch+1), cur.LeaderEpoch
	case shareDelete:
		if cur.Start >= 0 {
			next = share.NewPartition(-1)
			next.StateEpoch, next.LeaderEpoch = cur.StateEpoch+1, cur.LeaderEpoch
		}
	case shareSummary:
		a := shareAnswer{state: cur}
		for _, r := range cur.Records() {
			if r.State == share.Acknowledged || r.State == share.Archived {
				a.complete++
			}
		}
		return a
	}
	a := shareAnswer{state: cloneShare(cur)}
	if next != nil {
		a.code = b.putShareState(op.k, next)
	}
	return a
}

// cloneShare copies persisted state (locks are not part of it).
func cloneShare(p *share.Partition) *share.Partition {
	c, _ := share.FromBatches(p.Start, p.Batches())
	c.StateEpoch, c.LeaderEpoch = p.StateEpoch, p.LeaderEpoch
	return c
}

// putShareState keeps a key's new state and appends its snapshot; the
// answer waits for the append (collectWrites).
func (b *Broker) putShareState(k share.Key, p *share.Partition) int16 {
	key, value := share.EncodeSnapshot(k, p, b.now)
	bt := record.NewBuilder(record.NewBatchHeader(b.now))
	bt.Add(key, value, 0)
	if _, err := b.AppendInternal(share.StateTopic, b.shareStatePartitionOf(k), bt.Build()); err != nil {
		b.cfg.Logf("share state of %s not written: %v", k.CoordinatorKey(), err)
		return kerr.CoordinatorNotAvailable.Code
	}
	b.shareState[k] = p
	return 0
}
