package broker

import (
	"fmt"
	"maps"
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/cluster"
	"github.com/gregor-kafka/gregor/core/log"
	"github.com/gregor-kafka/gregor/core/record"
)

// Replication, as Kafka's Partition and ReplicaFetcherThread do it.
//
// The leader keeps, per follower, the log end offset the follower last
// asked to fetch from (its LEO) and when it was last caught up. The high
// watermark is the smallest LEO over the ISR, counting the replicas an
// AlterPartition in flight is adding (KIP-497), and never goes back. A
// follower that has not caught up for replica.lag.time.max.ms leaves the
// ISR; one whose LEO reaches the high watermark (and the leader's current
// epoch) joins it again. Only one AlterPartition per partition is in flight.
//
// A follower first asks the leader where its epoch ended
// (OffsetForLeaderEpoch, KIP-101/KIP-279) and truncates what diverged, then
// fetches from its LEO with its replica id and the leader epoch it knows;
// it appends the leader's batches unchanged and sets its high watermark to
// min(leader's high watermark, its LEO).

// leaderState is a partition's replication state while this broker leads it.
type leaderState struct {
	followers    map[int32]*follower
	epochStart   int64   // LEO when this leader epoch began
	alter        []int32 // the ISR asked for by the AlterPartition in flight
	alterEpoch   int32   // partition epoch it was asked at
	recovered    bool    // RECOVERING reported done (KIP-704)
	nextISRCheck int64
}

type follower struct {
	leo                int64 // -1: unknown
	lastCaughtUp       int64
	lastFetch          int64
	lastFetchLeaderLEO int64
}

// followState is a partition's state while this broker follows it.
type followState struct {
	leader    int32
	epoch     int32
	truncated bool  // OffsetForLeaderEpoch answered for this epoch
	asking    bool  // its OffsetForLeaderEpoch is in flight
	retryAt   int64 // not fetched before (an error's backoff)
}

// ApplyMetadata makes the broker act on a metadata image: it creates the
// logs of partitions it replicates, becomes leader or follower as the
// image says, and removes topics that are gone. The broker keeps im: the
// driver passes a copy it will not change.
func (b *Broker) ApplyMetadata(now int64, im *cluster.Image) error {
	b.advance(now)
	if b.cl == nil {
		return fmt.Errorf("broker: ApplyMetadata on a broker outside a cluster")
	}
	b.cl.image = im
	if err := b.adoptClusterID(im); err != nil {
		return err
	}
	if !maps.Equal(b.cfg.Settings.Dynamic, im.Defaults) {
		// The cluster-wide dynamic broker settings (AlterConfigs on
		// broker "", through the controller) are every broker's.
		b.cfg.Settings.Dynamic = copyMap(im.Defaults)
		b.reconfigure(nil)
	}
	var firstErr error
	for _, name := range b.topicNames() {
		t := b.topics[name]
		if it := im.Topics[name]; it == nil || it.ID != t.ID {
			if err := b.dropTopic(t); err != nil && firstErr == nil {
				firstErr = err
			}
		}
	}
	for _, name := range im.TopicNames() {
		it := im.Topics[name]
		t := b.topics[name]
		for i, ip := range it.Partitions {
			if !slices.Contains(ip.Replicas, b.cfg.NodeID) {
				continue
			}
			if t == nil {
				t = &Topic{Name: name, ID: it.ID, Configs: map[string]string{}}
				b.topics[name], b.byID[it.ID] = t, t
			}
			// AlterConfigs, via the controller; internal topics are
			// compacted whatever an older image says.
			if cfg := internalCompacted(name, copyMap(it.Configs)); !maps.Equal(t.Configs, cfg) {
				t.Configs = cfg
				b.reconfigure(t)
			}
			for int(int32(len(t.Partitions))) <= i {
				if err := b.openReplica(t, now); err != nil {
					return err
				}
			}
			b.applyPartition(t.Partitions[i], ip)
		}
		if err := b.retireReplicas(t, it, now); err != nil && firstErr == nil {
			firstErr = err
		}
	}
	if !b.cl.strayChecked && b.active() {
		// The image now holds everything committed before this run.
		b.cl.strayChecked = true
		if err := b.removeStrayLogs(); err != nil && firstErr == nil {
			firstErr = err
		}
	}
	b.retireIdleFetchers()
	b.replicateAll()
	b.wakeFetches(nil)
	b.completeAcks()
	return firstErr
}

func copyMap(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	//purity:unordered copies into a map
	for k, v := range m {
		out[k] = v
	}
	return out
}

// openReplica opens (recovering) or creates the log of t's next replica.
func (b *Broker) openReplica(t *Topic, now int64) error {
	p, err := b.loadReplica(t, int32(len(t.Partitions)), now)
	if err != nil {
		return err
	}
	t.Partitions = append(t.Partitions, p)
	return nil
}

// loadReplica opens (recovering) or creates the log of one replica.
func (b *Broker) loadReplica(t *Topic, idx int32, now int64) (*Partition, error) {
	p := &Partition{Topic: t, Index: idx, Leader: cluster.NoLeader, LeaderEpoch: -1}
	if err := b.claimPartitionDir(p.dir(), cluster.UUID(t.ID)); err != nil {
		return nil, err
	}
	l, notes, err := log.Open(b.st, p.dir(), b.logConfig(t.Configs), -1, now)
	if err != nil {
		return nil, err
	}
	for _, n := range notes {
		b.cfg.Logf("recovery: %s", n)
	}
	p.log = l
	// From the checkpoint (offset_checkpoint.go); the leader, or as a
	// leader the followers, bring it up to date.
	p.HighWatermark = b.checkpointedHighWatermark(p)
	if err := b.loadProducerState(p); err != nil {
		_ = l.Close()
		return nil, err
	}
	if err := p.loadEpochs(); err != nil {
		_ = l.Close()
		return nil, err
	}
	return p, nil
}

// dropTopic forgets a topic the image no longer has (deleted, or deleted
// and created again with another id) and deletes its logs.
func (b *Broker) dropTopic(t *Topic) error {
	for _, p := range t.Partitions {
		b.loseLeadership(p)
		p.follow = nil
	}
	if err := b.deleteTopic(t); err != nil {
		return err
	}
	b.cfg.Logf("deleted topic %s and its logs", t.Name)
	return nil
}

// applyPartition moves one replica to the state the image gives it.
func (b *Broker) applyPartition(p *Partition, ip *cluster.Partition) {
	me := b.cfg.NodeID
	newEpoch := ip.LeaderEpoch != p.LeaderEpoch
	p.Replicas, p.ISR = slices.Clone(ip.Replicas), slices.Clone(ip.ISR)
	p.PartitionEpoch, p.Recovering = ip.PartitionEpoch, ip.Recovering
	switch {
	case ip.Leader == me && !b.active():
		// An image from before this broker's registration (replayed at
		// start-up) is stale: it leads only once the controller has
		// registered and unfenced this incarnation.
		if p.lead != nil || p.follow != nil {
			b.loseLeadership(p)
			p.follow = nil
		}
		p.LeaderEpoch = -1
	case ip.Leader == me && (newEpoch || p.lead == nil):
		b.becomeLeader(p, ip)
	case ip.Leader != me && (newEpoch || p.Leader != ip.Leader):
		b.becomeFollower(p, ip)
	}
	if l := p.lead; l != nil {
		b.syncFollowers(p)
		if l.alter != nil && p.PartitionEpoch != l.alterEpoch {
			l.alter = nil // the change (or another) is in the image now
		}
		b.maybeAdvanceHW(p)
		if p.Recovering && !l.recovered {
			b.alterISR(p, p.ISR, true)
		}
	}
}

// active reports whether the image knows this incarnation of the broker
// as registered and unfenced.
func (b *Broker) active() bool {
	br := b.cl.image.Brokers[b.cfg.NodeID]
	return b.cl.epoch >= 0 && br != nil && br.Epoch == b.cl.epoch && !br.Fenced
}

func (b *Broker) becomeLeader(p *Partition, ip *cluster.Partition) {
	elected := p.lead == nil
	p.follow = nil
	p.Leader, p.LeaderEpoch = ip.Leader, ip.LeaderEpoch
	p.epochs.assign(p.LeaderEpoch, p.log.EndOffset())
	l := &leaderState{followers: map[int32]*follower{}, epochStart: p.log.EndOffset(),
		nextISRCheck: b.now + b.lagMax()/2}
	for _, r := range p.Replicas {
		if r != b.cfg.NodeID {
			// Kafka gives every follower a fresh lease when leadership
			// changes: none is dropped before it had a chance to fetch.
			l.followers[r] = &follower{leo: -1, lastCaughtUp: b.now}
		}
	}
	p.lead = l
	b.cfg.Logf("%s: leader at epoch %d (leo=%d hw=%d isr=%v)", p, p.LeaderEpoch, p.log.EndOffset(), p.HighWatermark, p.ISR)
	if elected {
		b.loadCoordinator(p)
	}
}

func (b *Broker) becomeFollower(p *Partition, ip *cluster.Partition) {
	b.loseLeadership(p)
	p.Leader, p.LeaderEpoch = ip.Leader, ip.LeaderEpoch
	p.follow = nil
	if ip.Leader == cluster.NoLeader {
		b.cfg.Logf("%s: no leader (epoch %d)", p, p.LeaderEpoch)
		return
	}
	p.follow = &followState{leader: ip.Leader, epoch: ip.LeaderEpoch}
	b.cfg.Logf("%s: follower of b%d at epoch %d (leo=%d)", p, ip.Leader, p.LeaderEpoch, p.log.EndOffset())
}

// loseLeadership answers what waited on this broker leading p.
func (b *Broker) loseLeadership(p *Partition) {
	if p.lead == nil {
		return
	}
	p.lead = nil
	b.unloadCoordinator(p)
	b.completeAcks()
}

func (b *Broker) lagMax() int64 { return b.cfg.Settings.Int64("replica.lag.time.max.ms") }

// maximalISR is the ISR the high watermark must wait for: the committed
// one plus the replicas an AlterPartition in flight adds (KIP-497).
func (p *Partition) maximalISR() []int32 {
	isr := slices.Clone(p.ISR)
	if p.lead != nil {
		for _, r := range p.lead.alter {
			if !slices.Contains(isr, r) {
				isr = append(isr, r)
			}
		}
	}
	return isr
}

// maybeAdvanceHW moves the leader's high watermark to the smallest LEO in
// the maximal ISR, if that is higher, and completes what waited for it.
func (b *Broker) maybeAdvanceHW(p *Partition) {
	if p.offline {
		return // its own log is not known to hold what it appended (storage_failure.go)
	}
	hw := p.log.EndOffset()
	for _, r := range p.maximalISR() {
		if r == b.cfg.NodeID {
			continue
		}
		f := p.lead.followers[r]
		if f == nil || f.leo < 0 {
			return
		}
		hw = min(hw, f.leo)
	}
	if hw > p.HighWatermark {
		p.HighWatermark = hw
		b.wakeFetches(p)
		b.completeAcks()
	}
}

// updateFollower records a follower's fetch (Kafka's Replica
// .updateFetchState): its LEO is the offset it asks for, and it is caught
// up if that reaches the leader's LEO, or the LEO the leader had at its
// previous fetch.
func (b *Broker) updateFollower(p *Partition, id int32, offset int64) {
	f := p.lead.followers[id]
	if f == nil {
		return
	}
	leo := p.log.EndOffset()
	switch {
	case offset >= leo:
		f.lastCaughtUp = b.now
	case offset >= f.lastFetchLeaderLEO:
		f.lastCaughtUp = max(f.lastCaughtUp, f.lastFetch)
	}
	f.leo, f.lastFetch, f.lastFetchLeaderLEO = offset, b.now, leo
	b.maybeExpandISR(p, id)
	b.maybeAdvanceHW(p)
}

// maybeExpandISR adds a caught-up usable follower (cluster.Image.Usable:
// not one in controlled shutdown, KIP-841) to the ISR: its LEO has
// reached the high watermark and the start of the leader's epoch.
func (b *Broker) maybeExpandISR(p *Partition, id int32) {
	l := p.lead
	f := l.followers[id]
	if slices.Contains(p.ISR, id) || l.alter != nil || p.Recovering || !b.cl.image.Usable(id) {
		return
	}
	if f.leo < p.HighWatermark || f.leo < l.epochStart {
		return
	}
	b.alterISR(p, append(slices.Clone(p.ISR), id), false)
}

// tickReplication shrinks ISRs and retries what followers ask of their
// leaders once its backoff has passed.
func (b *Broker) tickReplication() {
	for _, p := range b.partitions() {
		if l := p.lead; l != nil && b.now >= l.nextISRCheck {
			l.nextISRCheck = b.now + max(b.lagMax()/2, 1)
			b.maybeShrinkISR(p)
		}
	}
	b.replicateAll()
}

// replicateAll moves every followed partition's replication on that is
// not waiting (replicate), with one fetch per leader: Kafka's
// ReplicaManager adds all the partitions an image makes it follow to the
// fetchers before they fetch.
func (b *Broker) replicateAll() {
	leaders := map[int32]bool{}
	for _, p := range b.partitions() {
		if f := p.follow; f != nil && b.now >= f.retryAt && b.readyToFetch(p) {
			leaders[f.leader] = true
		}
	}
	for _, id := range slices.Sorted(maps.Keys(leaders)) {
		b.fetchFrom(id)
	}
}

func (b *Broker) maybeShrinkISR(p *Partition) {
	l := p.lead
	if l.alter != nil {
		return
	}
	var keep, out []int32
	for _, r := range p.ISR {
		if f := l.followers[r]; r != b.cfg.NodeID && (f == nil || b.now-f.lastCaughtUp > b.lagMax()) {
			out = append(out, r)
			continue
		}
		keep = append(keep, r)
	}
	if len(out) == 0 {
		return
	}
	b.cfg.Logf("%s: shrinking the ISR %v -> %v: %v not caught up for %dms", p, p.ISR, keep, out, b.lagMax())
	b.alterISR(p, keep, false)
}

// alterISR asks the controller to change the ISR (AlterPartition,
// KIP-497), guarded by the leader and partition epochs the broker holds.
func (b *Broker) alterISR(p *Partition, isr []int32, recovered bool) {
	l := p.lead
	if l.alter != nil || b.cl.epoch < 0 {
		return
	}
	l.alter, l.alterEpoch = slices.Clone(isr), p.PartitionEpoch
	req := kmsg.NewPtrAlterPartitionRequest()
	req.SetVersion(1)
	req.BrokerID, req.BrokerEpoch = b.cfg.NodeID, b.cl.epoch
	rt := kmsg.NewAlterPartitionRequestTopic()
	rt.Topic = p.Topic.Name
	rp := kmsg.NewAlterPartitionRequestTopicPartition()
	rp.Partition, rp.LeaderEpoch, rp.PartitionEpoch, rp.NewISR = p.Index, p.LeaderEpoch, p.PartitionEpoch, isr
	if p.Recovering && !recovered {
		rp.LeaderRecoveryState = 1
	}
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	b.send(ToController, req, func(r kmsg.Response) {
		if p.lead != l || l.alterEpoch != p.PartitionEpoch {
			return // leadership or the partition moved on meanwhile
		}
		resp, _ := r.(*kmsg.AlterPartitionResponse)
		code := kerr.RequestTimedOut.Code
		if resp != nil {
			code = resp.ErrorCode
			if code == 0 && len(resp.Topics) == 1 && len(resp.Topics[0].Partitions) == 1 {
				code = resp.Topics[0].Partitions[0].ErrorCode
			}
		}
		switch code {
		case 0:
			op := resp.Topics[0].Partitions[0]
			if op.PartitionEpoch > p.PartitionEpoch {
				// The controller's answer is the new state; the image
				// brings the same change soon.
				p.ISR, p.PartitionEpoch = slices.Clone(op.ISR), op.PartitionEpoch
			}
			if recovered || op.LeaderRecoveryState == 0 {
				l.recovered = true
				p.Recovering = op.LeaderRecoveryState == 1
			}
			l.alter = nil
			b.maybeAdvanceHW(p)
			b.completeAcks()
		case kerr.InvalidUpdateVersion.Code, kerr.FencedLeaderEpoch.Code:
			// Our view is stale: wait for newer metadata (applyPartition
			// clears alter when the partition epoch moves).
		default:
			l.alter = nil
		}
	})
}

// fetchTimeout is how long a follower waits for the leader to answer a
// fetch (or OffsetForLeaderEpoch) before it asks again: the longest the
// leader may hold a fetch (replica.fetch.wait.max.ms) plus
// replica.fetch.backoff.ms for the round trip. Kafka waits
// replica.socket.timeout.ms (30 s) and then reconnects; a fetch lost
// while the network was split would then keep a healed follower from
// fetching, and so out of the ISR, for up to 30 s. Asking again is
// harmless: the leader answers the same offsets, and a late answer to the
// earlier fetch is ignored.
func (b *Broker) fetchTimeout() int64 {
	return b.cfg.Settings.Int64("replica.fetch.wait.max.ms") + b.cfg.Settings.Int64("replica.fetch.backoff.ms")
}

func (b *Broker) backoff(p *Partition, f *followState) {
	f.retryAt = b.now + b.cfg.Settings.Int64("replica.fetch.backoff.ms")
}

// appendAsFollower appends the leader's batches unchanged and moves the
// follower's high watermark. It reports whether the flush policy wants
// the appended records synced at the next Commit.
func (b *Broker) appendAsFollower(p *Partition, sp *kmsg.FetchResponseTopicPartition) (sync bool, err error) {
	it := record.NewIter(sp.RecordBatches)
	appended := false
	for bt, ok := it.Next(); ok; bt, ok = it.Next() {
		leo := p.log.EndOffset()
		if bt.LastOffset() < leo {
			continue
		}
		if bt.BaseOffset() < leo {
			return false, fmt.Errorf("batch at %d does not continue the log at %d", bt.BaseOffset(), leo)
		}
		// The leader's log may be compacted: gaps before a batch, and
		// batches with fewer records than offsets. bt is a slice of the
		// answer, which the log copies (store.File.Append) and nothing
		// keeps: the native driver reuses the answer's buffer once
		// Receive returns (server/frame_pool.go).
		if err := record.ValidateStored(bt); err != nil {
			return false, err
		}
		if err := p.log.AppendAsFollower(bt, b.now); err != nil {
			err = fmt.Errorf("appending to %s as a follower: %w", p, err)
			b.failPartition(p, err)
			return false, err
		}
		p.epochs.assign(bt.PartitionLeaderEpoch(), bt.BaseOffset())
		if err := applyBatch(p.log, p.producers, bt); err != nil {
			b.cfg.Logf("%s: producer state: %v", p, err)
		}
		appended = true
	}
	if appended && p.log.NeedsFlush(b.now) {
		b.markDirty(p)
		sync = true
	}
	if hw := min(sp.HighWatermark, p.log.EndOffset()); hw > p.HighWatermark {
		p.HighWatermark = hw
		b.wakeFetches(p) // consumers reading from this follower (KIP-392)
	}
	if sp.LogStartOffset > p.log.StartOffset() && sp.LogStartOffset <= p.HighWatermark {
		if err := p.log.DeleteRecordsBefore(sp.LogStartOffset); err == nil {
			_ = b.saveMetadata()
		}
	}
	return sync, nil
}

// askEpochEnd asks the leader where our latest epoch ends in its log
// (OffsetForLeaderEpoch, KIP-279) and truncates what follows it; a log
// with no epoch is truncated at once, and its caller fetches it.
func (b *Broker) askEpochEnd(p *Partition, f *followState) {
	mine := p.epochs.latest()
	if mine < 0 {
		f.truncated = true // nothing to truncate: the caller fetches
		return
	}
	f.asking = true
	req := kmsg.NewPtrOffsetForLeaderEpochRequest()
	req.SetVersion(3)
	req.ReplicaID = b.cfg.NodeID
	rt := kmsg.NewOffsetForLeaderEpochRequestTopic()
	rt.Topic = p.Topic.Name
	rp := kmsg.NewOffsetForLeaderEpochRequestTopicPartition()
	rp.Partition, rp.CurrentLeaderEpoch, rp.LeaderEpoch = p.Index, f.epoch, mine
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	b.sendWithin(f.leader, req, b.fetchTimeout(), func(r kmsg.Response) {
		if p.follow != f || p.deleted || p.offline {
			return
		}
		f.asking = false
		resp, _ := r.(*kmsg.OffsetForLeaderEpochResponse)
		if resp == nil {
			b.replicate(p)
			return
		}
		if len(resp.Topics) != 1 || len(resp.Topics[0].Partitions) != 1 || resp.Topics[0].Partitions[0].ErrorCode != 0 {
			b.backoff(p, f)
			return
		}
		op := resp.Topics[0].Partitions[0]
		to := p.log.EndOffset()
		switch {
		case op.EndOffset < 0:
			to = min(to, p.HighWatermark)
		case op.LeaderEpoch == mine:
			to = min(to, op.EndOffset)
		default:
			// The leader's log has no epoch `mine`: it diverged where our
			// copy of its epoch op.LeaderEpoch ends, or where its ends.
			to = min(to, op.EndOffset, p.epochs.endOf(op.LeaderEpoch, p.log.EndOffset()))
		}
		if to < p.log.EndOffset() {
			from := p.log.EndOffset()
			if err := p.log.TruncateTo(to); err != nil {
				b.cfg.Logf("%s: truncating to %d failed: %v", p, to, err)
				b.backoff(p, f)
				return
			}
			b.afterTruncate(p)
			b.cfg.Logf("%s: truncated offsets %d..%d that diverged from b%d's log (epoch %d ends at %d)", p, p.log.EndOffset(), from-1, f.leader, op.LeaderEpoch, op.EndOffset)
		}
		f.truncated = true
		b.replicate(p)
	})
}

// afterTruncate rebuilds what is derived from the log's end.
func (b *Broker) afterTruncate(p *Partition) {
	p.epochs.truncate(p.log.EndOffset())
	if p.HighWatermark > p.log.EndOffset() {
		p.HighWatermark = p.log.EndOffset()
	}
	if err := b.loadProducerState(p); err != nil {
		b.cfg.Logf("%s: reloading producer state: %v", p, err)
	}
	_ = b.saveMetadata()
}
