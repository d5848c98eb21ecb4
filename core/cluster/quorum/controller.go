package quorum

import (
	"fmt"
	"github.com/gregor-kafka/gregor/core/cluster"
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// controller is KRaft's active controller (QuorumController): it lives on
// the raft leader for one term and turns requests and expired sessions
// into record batches. It decides from the committed image only; every
// record it writes carries a guard (broker epoch, partition epoch, next
// producer id) so a decision made on a view that changed before it
// committed is skipped by every replica alike.
type controller struct {
	n      *Node
	term   uint64
	active bool // the image holds everything committed before this term
	seq    uint64

	lastHeard map[int32]int64     // broker -> tick of its last heartbeat
	pending   map[uint64]*pending // by batch seq
	inflight  map[string]uint64   // "b/<id>", "t/<topic>" or "p/<topic>/<n>" -> batch seq
	nextPID   int64               // producer ids handed out, committed or not
	// held are requests waiting for a batch in flight about their topics
	// to commit (holdForTopics).
	held []heldRequest
	// proposedID is the cluster id this controller proposed for a log
	// that had none, until the image has it.
	proposedID string
	// nextRebalance is when to look for leaders to move back to their
	// preferred replicas (rebalance.go).
	nextRebalance int64
}

// pending is a request waiting for its batch to commit.
type pending struct {
	id   uint64
	req  kmsg.Request
	keys []string
	// done builds the response from the per-record errors once the batch
	// has been applied to the image.
	done func(errs []error) kmsg.Response
}

func newController(n *Node, term uint64) *controller {
	return &controller{n: n, term: term, lastHeard: map[int32]int64{},
		pending: map[uint64]*pending{}, inflight: map[string]uint64{}}
}

// activate runs once this term's first entry is applied. Brokers get a
// full session from now: the new controller has not heard from anyone
// yet, and fencing them all at once would be wrong (Kafka does the same).
// A log without a cluster id gets one before anything else this
// controller writes, so every registration it accepts is ordered after it.
func (c *controller) activate() {
	c.active = true
	for _, id := range c.n.image.BrokerIDs() {
		c.lastHeard[id] = c.n.now
	}
	c.nextRebalance = c.n.now + c.n.cfg.ImbalanceCheckTicks
	c.nextPID = c.n.image.NextProducerID
	if c.n.image.ClusterID == "" {
		c.proposedID = c.n.cfg.ClusterID
		if c.proposedID == "" {
			var id cluster.UUID
			for i := range id {
				id[i] = byte(c.n.cfg.Rand.Uint32())
			}
			c.proposedID = id.String()
		}
		// A new cluster gets the release's feature levels with its id.
		recs := []cluster.Record{{ClusterID: &cluster.ClusterIDRecord{ID: c.proposedID}}}
		recs = append(recs, cluster.BootstrapFeatures(c.n.image.Features, true, c.n.cfg.Features)...)
		c.propose(recs, nil, nil)
	} else if recs := cluster.BootstrapFeatures(c.n.image.Features, false, nil); len(recs) > 0 {
		c.propose(recs, nil, nil) // a log from before features
	}
	var creds []cluster.Record
	for _, cred := range c.n.cfg.BootstrapScram {
		if c.n.image.Scram[cluster.ScramKey(cred.Name, cred.Mechanism)] == nil {
			creds = append(creds, cluster.Record{ScramCredential: cred})
		}
	}
	if len(creds) > 0 {
		c.propose(creds, nil, nil)
	}
}

// clusterID is the id every broker registration must carry: the image's,
// or the one this controller proposed and has not seen applied yet.
func (c *controller) clusterID() string {
	if id := c.n.image.ClusterID; id != "" {
		return id
	}
	return c.proposedID
}

// imageReplaced: a snapshot replaced the image under us; the guards still
// protect every record, but forget what was in flight.
func (c *controller) imageReplaced() {
	clear(c.inflight)
	c.nextPID = max(c.nextPID, c.n.image.NextProducerID)
	c.releaseHeld()
}

// heldRequest is a request held back by holdForTopics.
type heldRequest struct {
	id  uint64
	req kmsg.Request
}

// holdForTopics holds a request back while a batch in flight creates,
// grows or deletes one of the topics it names, and reports whether it did.
// The controller decides from the committed image, so two CreatePartitions
// of one topic decided before either commits would both add the same
// partitions; Kafka's controller decides from its uncommitted state too
// and so sees the first one's outcome, as the held request does once that
// batch has committed.
func (c *controller) holdForTopics(id uint64, req kmsg.Request, topics []string) bool {
	for _, t := range topics {
		if _, busy := c.inflight[topicKey(t)]; busy {
			c.held = append(c.held, heldRequest{id, req})
			return true
		}
	}
	return false
}

// releaseHeld handles the held requests again, in order; those whose
// topics are still busy are held again.
func (c *controller) releaseHeld() {
	held := c.held
	c.held = nil
	for _, h := range held {
		c.handle(h.id, h.req)
	}
}

// resign fails every waiting request: another controller must redo it.
func (c *controller) resign() {
	seqs := make([]uint64, 0, len(c.pending))
	for s := range c.pending {
		seqs = append(seqs, s)
	}
	slices.Sort(seqs)
	for _, s := range seqs {
		if p := c.pending[s]; p.req != nil {
			c.n.respond(p.id, errorResponse(p.req, notController))
		}
	}
	for _, h := range c.held {
		c.n.respond(h.id, errorResponse(h.req, notController))
	}
	c.pending, c.held, c.active = nil, nil, false
}

// propose appends a batch. p (optional) waits for it; keys mark what it
// changes so tick does not propose the same change again meanwhile.
func (c *controller) propose(recs []cluster.Record, p *pending, keys []string) {
	c.seq++
	b := &cluster.Batch{Proposer: c.n.cfg.ID, Seq: c.seq, Records: recs}
	if err := c.n.rn.Propose(cluster.EncodeBatch(b)); err != nil {
		if p != nil {
			c.n.respond(p.id, errorResponse(p.req, notController))
		}
		return
	}
	if p == nil {
		p = &pending{}
	}
	p.keys = keys
	c.pending[c.seq] = p
	for _, k := range keys {
		c.inflight[k] = c.seq
	}
}

// committed is called for every applied batch; it completes ours.
func (c *controller) committed(term uint64, b *cluster.Batch, errs []error) {
	if b.Proposer != c.n.cfg.ID || term != c.term {
		return
	}
	p := c.pending[b.Seq]
	if p == nil {
		return
	}
	delete(c.pending, b.Seq)
	for _, k := range p.keys {
		if c.inflight[k] == b.Seq {
			delete(c.inflight, k)
		}
	}
	if p.done != nil {
		c.n.respond(p.id, p.done(errs))
	}
	if len(c.held) > 0 {
		c.releaseHeld()
	}
}

func brokerKey(id int32) string { return fmt.Sprintf("b/%d", id) }

func partitionKey(topic string, p int32) string { return fmt.Sprintf("p/%s/%d", topic, p) }

// topicKey marks a batch that creates, grows or deletes a topic.
func topicKey(topic string) string { return "t/" + topic }

// tick fences brokers whose session expired and repairs partitions whose
// leader or ISR names a broker that is not live, in one batch; when there
// is nothing to repair, it moves leaders back to their preferred replicas
// when they are due (rebalance.go).
func (c *controller) tick() {
	if !c.active {
		return
	}
	im := c.n.image
	var recs []cluster.Record
	var keys []string
	fencing := map[int32]bool{}
	for _, id := range im.BrokerIDs() {
		b := im.Brokers[id]
		heard, ok := c.lastHeard[id]
		if !ok {
			c.lastHeard[id] = c.n.now
			continue
		}
		if b.Fenced || c.n.now-heard <= c.n.cfg.SessionTicks {
			continue
		}
		fencing[id] = true
		if _, busy := c.inflight[brokerKey(id)]; !busy {
			recs = append(recs, cluster.Record{FenceBroker: &cluster.FenceBroker{ID: id, Epoch: b.Epoch}})
			keys = append(keys, brokerKey(id))
		}
	}
	live := func(id int32) bool { return im.Usable(id) && !fencing[id] }
	r, k := c.reconcile(live)
	recs, keys = append(recs, r...), append(keys, k...)
	if len(recs) == 0 {
		recs, keys = c.rebalance(live)
	}
	if len(recs) > 0 {
		c.propose(recs, nil, keys)
	}
}

// reconcile elects leaders and prunes ISRs for every partition whose
// leader or ISR includes a broker that is not live, or that has no leader
// and could have one (Kafka's handleBrokerFenced / handleBrokerUnfenced).
func (c *controller) reconcile(live func(int32) bool) ([]cluster.Record, []string) {
	im := c.n.image
	var recs []cluster.Record
	var keys []string
	for _, name := range im.TopicNames() {
		t := im.Topics[name]
		unclean := im.UncleanLeaderElection(name, c.n.cfg.UncleanDefault)
		for i, p := range t.Partitions {
			key := partitionKey(name, int32(i))
			if _, busy := c.inflight[key]; busy {
				continue
			}
			if ch := cluster.Elect(p, live, unclean).Change(name, int32(i), p); ch != nil {
				recs = append(recs, cluster.Record{PartitionChange: ch})
				keys = append(keys, key)
			}
		}
	}
	return recs, keys
}

// notController is the error for requests that reach a node that is not
// the active controller.
var notController = kerr.NotController.Code
