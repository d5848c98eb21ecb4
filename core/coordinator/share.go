package coordinator

import (
	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/gregor-kafka/gregor/core/group"
	"github.com/gregor-kafka/gregor/core/record"
	"github.com/gregor-kafka/gregor/core/share"
)

// Shares is the share coordinator (KIP-932): the leader of the
// __share_group_state partition a share partition's coordinator key
// hashes to keeps that share partition's persisted state and serves it to
// the share partitions' leaders, one ShareOp at a time. As Kafka's
// ShareCoordinatorShard, with one ShareSnapshot record per write (no
// ShareUpdate deltas): the log is compacted, so the last snapshot of a
// key is its state. The broker routes the APIs (83-87) and answers a
// write once the ISR has it.
//
// # Invariants
//
//   - The state of a key is held only where its __share_group_state
//     partition is led and online (Host.Leads): loaded from the log when
//     the broker becomes its leader (Replay), forgotten when it stops
//     (Unload).
//   - A write or read carrying a leader epoch older than the one stored is
//     refused (FENCED_LEADER_EPOCH): a deposed share-partition leader
//     cannot overwrite its successor's state. A write carrying another
//     state epoch is refused (FENCED_STATE_EPOCH): the state was reset or
//     deleted by an admin since that leader read it.
//   - ShareInit (an admin's reset) takes the next state epoch when the
//     request's is not newer: the group coordinator does not track state
//     epochs.
//   - Deleted state is kept as uninitialized (start offset -1) with the
//     next state epoch, not as a tombstone, so the fence survives.
type Shares struct {
	h     Host
	state map[share.Key]*share.Partition
}

// The share coordinator's APIs, by their keys: what a ShareOp asks.
const (
	ShareInit    int16 = 83 // InitializeShareGroupState: start offset, the next state epoch
	ShareRead    int16 = 84 // ReadShareGroupState: the state, fencing older leader epochs
	ShareWrite   int16 = 85 // WriteShareGroupState: the state a share-partition leader changed
	ShareDelete  int16 = 86 // DeleteShareGroupState: uninitialized, the next state epoch
	ShareSummary int16 = 87 // ReadShareGroupStateSummary: start offset, epochs, records done
)

// ShareOp is one share partition of a share coordinator request.
type ShareOp struct {
	API int16
	Key share.Key
	// State: for ShareWrite the new state (with the writer's state and
	// leader epochs), for ShareInit its start offset and state epoch.
	State *share.Partition
	// LeaderEpoch: for ShareRead, the reader's.
	LeaderEpoch int32
}

// ShareAnswer is the coordinator's answer to a ShareOp: State for
// ShareRead and ShareSummary (start offset -1: uninitialized), Complete
// the records of its window acknowledged or archived (ShareSummary).
type ShareAnswer struct {
	Code     int16
	State    *share.Partition
	Complete int32
}

// NewShares is a share coordinator keeping no state yet.
func NewShares(h Host) *Shares {
	return &Shares{h: h, state: map[share.Key]*share.Partition{}}
}

// Load replays the __share_group_state partitions this broker keeps, at
// startup on a single broker. In a cluster a partition is loaded when this
// broker becomes its leader (Replay).
func (s *Shares) Load() error {
	_, err := replayLocal(s.h, share.StateTopic, s.Replay)
	return err
}

// Replay rebuilds the state of the keys of __share_group_state partition
// p from its log: the last snapshot of a key wins. A record that does not
// decode is logged and skipped.
func (s *Shares) Replay(p int32) error {
	return Records(s.h, share.StateTopic, p, func(_ int64, r record.Record) {
		k, sp, ok, err := share.DecodeSnapshot(r.Key, r.Value)
		switch {
		case err != nil:
			s.h.Logf("replaying %s-%d: %v", share.StateTopic, p, err)
		case ok && sp == nil:
			delete(s.state, k)
		case ok:
			s.state[k] = sp
		}
	})
}

// Unload forgets the keys of partition p, whose leadership left, and
// says how many there were.
func (s *Shares) Unload(p int32) int {
	n := 0
	//purity:unordered deletes and counts only
	for k := range s.state {
		if s.PartitionOf(k) == p {
			delete(s.state, k)
			n++
		}
	}
	return n
}

// Count is the number of keys whose state partition p holds here.
func (s *Shares) Count(p int32) int {
	n := 0
	//purity:unordered counts only
	for k := range s.state {
		if s.PartitionOf(k) == p {
			n++
		}
	}
	return n
}

// Initialized lists the keys whose state this coordinator keeps and that
// have a start offset, in key order.
func (s *Shares) Initialized() []share.Key {
	var ks []share.Key
	//purity:unordered collects; sorted below
	for k, p := range s.state {
		if p.Start >= 0 {
			ks = append(ks, k)
		}
	}
	share.SortKeys(ks)
	return ks
}

// State is the state kept of a key, nil when none is (for tests and
// views; callers do not change it).
func (s *Shares) State(k share.Key) *share.Partition { return s.state[k] }

// PartitionOf is the __share_group_state partition of a key, its
// coordinator key hashed as Kafka hashes group ids, or -1 while the topic
// does not exist.
func (s *Shares) PartitionOf(k share.Key) int32 {
	_, n, ok := s.h.Topic(share.StateTopic)
	if !ok || n == 0 {
		return -1
	}
	return group.PartitionFor(k.CoordinatorKey(), n)
}

// Serve answers a ShareOp from the state kept here (NOT_COORDINATOR when
// its partition is not led here); the snapshot it appends is the
// coordinator step's in progress, and the broker holds the answer until
// it is durable.
func (s *Shares) Serve(op ShareOp, now int64) ShareAnswer {
	sp := s.PartitionOf(op.Key)
	if sp < 0 || !s.h.Leads(share.StateTopic, sp) {
		return ShareAnswer{Code: kerr.NotCoordinator.Code}
	}
	cur := s.state[op.Key]
	if cur == nil {
		cur = share.NewPartition(-1)
	}
	var next *share.Partition
	switch op.API {
	case ShareRead:
		if op.LeaderEpoch < cur.LeaderEpoch {
			return ShareAnswer{Code: kerr.FencedLeaderEpoch.Code}
		}
		if op.LeaderEpoch > cur.LeaderEpoch { // the new leader fences its predecessor
			next = cur.Snapshot()
			next.LeaderEpoch = op.LeaderEpoch
		}
	case ShareWrite:
		switch {
		case op.State.LeaderEpoch < cur.LeaderEpoch:
			return ShareAnswer{Code: kerr.FencedLeaderEpoch.Code}
		case op.State.StateEpoch != cur.StateEpoch:
			return ShareAnswer{Code: kerr.FencedStateEpoch.Code}
		}
		next = op.State
	case ShareInit: // the group coordinator keeps no state epochs: at least the next one
		next = share.NewPartition(op.State.Start)
		next.StateEpoch, next.LeaderEpoch = max(op.State.StateEpoch, cur.StateEpoch+1), cur.LeaderEpoch
	case ShareDelete:
		if cur.Start >= 0 {
			next = share.NewPartition(-1)
			next.StateEpoch, next.LeaderEpoch = cur.StateEpoch+1, cur.LeaderEpoch
		}
	case ShareSummary:
		a := ShareAnswer{State: cur}
		for _, r := range cur.Records() {
			if r.State == share.Acknowledged || r.State == share.Archived {
				a.Complete++
			}
		}
		return a
	}
	a := ShareAnswer{State: cur.Snapshot()}
	if next != nil {
		a.Code = s.put(sp, op.Key, next, now)
	}
	return a
}

// put keeps a key's new state and appends its snapshot to partition sp.
func (s *Shares) put(sp int32, k share.Key, p *share.Partition, now int64) int16 {
	key, value := share.EncodeSnapshot(k, p, now)
	bt := record.NewBuilder(record.NewBatchHeader(now))
	bt.Add(key, value, 0)
	if _, err := s.h.Append(share.StateTopic, sp, bt.Build()); err != nil {
		s.h.Logf("share state of %s not written: %v", k.CoordinatorKey(), err)
		return kerr.CoordinatorNotAvailable.Code
	}
	s.state[k] = p
	return 0
}
