package broker

import (
	"errors"
	"slices"
	"sort"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/cluster"
	"github.com/gregor-kafka/gregor/core/quota"
	"github.com/gregor-kafka/gregor/core/wire"
)

// A broker in a cluster (Config.Cluster set) takes its metadata from the
// quorum's image instead of its own metadata file, and talks to the other
// brokers and to the controller with kmsg requests it hands to the driver
// (KIP-500, KIP-631):
//
//   - lifecycle: it registers with a random incarnation id, heartbeats with
//     the metadata offset it has applied, and re-registers when the
//     controller no longer knows its epoch;
//   - ApplyMetadata: every image the driver applies makes it leader or
//     follower of its replicas (replica.go);
//   - followers fetch from leaders with real Fetch requests carrying their
//     replica id; leaders change the ISR with AlterPartition (KIP-497).
//
// The driver owns the transport: it takes each request as a Send in the
// broker's Ready (ready.go), puts it on the wire, and hands the answer
// back through Receive with the same id. A request that is
// lost is never answered; the broker gives up on it after
// replica.socket.timeout.ms and tries again.

// ToController addresses a request to the active controller.
const ToController int32 = -1

// ClusterConfig makes a broker one of several.
type ClusterConfig struct {
	// Incarnation identifies this run of the broker (KIP-631); the driver
	// draws it anew at every start.
	Incarnation [16]byte
}

type clusterGlue struct {
	cfg   ClusterConfig
	image *cluster.Image

	epoch       int64 // broker epoch; -1 while unregistered
	registering bool
	registerAt  int64 // no registration before (cluster_id.go)
	// strayChecked: the stray logs have been looked for since the
	// broker started (partition_metadata.go).
	strayChecked bool
	// hwCheckpoint holds the previous run's high watermarks until their
	// replicas open; nextHWCheckpoint is when to write them next
	// (offset_checkpoint.go).
	hwCheckpoint     map[topicPartition]int64
	nextHWCheckpoint int64
	fenced           bool
	nextBeat         int64
	beating          bool
	// shutdown: a controlled shutdown was asked for; shutdownNow: the
	// controller answered that this broker may stop; heardAt: when the
	// controller last answered a heartbeat, or the shutdown began
	// (shutdown.go).
	shutdown, shutdownNow bool
	heardAt               int64
	// dirFailed: the log dir failed at dirFailedAt; halt: the broker
	// must stop (log_dir_failure.go).
	dirFailed, halt bool
	dirFailedAt     int64

	nextID uint64
	out    map[uint64]*outgoing
	// fetchers fetch, as a follower, from each leader (replica_fetcher.go).
	fetchers map[int32]*fetcher

	creating map[string]bool // internal topics asked of the controller
	// addRetries are requests held while their transaction's previous
	// end completes (verify_txn.go retryAdd).
	addRetries []heldAdd

	pidNext, pidEnd int64 // the producer id block being handed out
	pidAsking       bool
	pidWaiting      []pidWait
}

type outgoing struct {
	to       int32
	deadline int64
	done     func(resp kmsg.Response) // resp is nil when it timed out
	// retry, if set, runs instead of done(nil) when the request is lost
	// before its deadline: the controller moved (ControllerMoved) or the
	// link to it failed (Receive with no answer). It asks again.
	retry func()
}

// ClusterEpoch is the broker epoch the controller gave this broker, or -1.
func (b *Broker) ClusterEpoch() int64 {
	if b.cl == nil {
		return -1
	}
	return b.cl.epoch
}

// Fenced reports whether the controller holds this broker fenced.
func (b *Broker) Fenced() bool { return b.cl != nil && b.cl.fenced }

// send queues a request for the driver's transport and remembers what to
// do with the answer; it gives up after replica.socket.timeout.ms.
func (b *Broker) send(to int32, req kmsg.Request, done func(kmsg.Response)) {
	b.sendWithin(to, req, b.cfg.Settings.Int64("replica.socket.timeout.ms"), done)
}

// sendWithin is send with its own timeout.
func (b *Broker) sendWithin(to int32, req kmsg.Request, timeout int64, done func(kmsg.Response)) *outgoing {
	b.cl.nextID++
	id := b.cl.nextID
	o := &outgoing{to: to, deadline: b.now + timeout, done: done}
	b.cl.out[id] = o
	b.request(to, id, req)
	return o
}

// ControllerMoved tells the broker that the node hosting the active
// controller changed (or is no longer known). What it asked the old one
// (heartbeats, AlterPartition, registrations, forwarded requests) may
// never be answered, so it fails at once and is asked again of the new
// one, as Kafka's NodeToControllerChannelManager disconnects from a
// controller that is no longer active and re-sends what was in flight.
// Without this a heartbeat lost with a cut-off controller holds the next
// one back for replica.socket.timeout.ms, longer than the session the new
// controller grants: healthy brokers were fenced with the lost one, and
// every partition went offline.
func (b *Broker) ControllerMoved(now int64) {
	b.advance(now)
	if b.cl == nil {
		return
	}
	var lost []uint64
	for id, o := range b.cl.out {
		if o.to == ToController {
			lost = append(lost, id)
		}
	}
	slices.Sort(lost)
	for _, id := range lost {
		if o := b.cl.out[id]; o != nil {
			delete(b.cl.out, id)
			if o.retry != nil {
				o.retry()
			} else {
				o.done(nil)
			}
		}
	}
}

// Receive hands the broker the answer to one of its requests.
func (b *Broker) Receive(now int64, id uint64, resp kmsg.Response) {
	b.advance(now)
	if b.cl == nil {
		return
	}
	o := b.cl.out[id]
	if o == nil {
		return // late: already timed out
	}
	delete(b.cl.out, id)
	if resp == nil && o.retry != nil && b.now < o.deadline {
		o.retry()
		return
	}
	o.done(resp)
}

// expireOutgoing gives up on requests that were not answered in time.
func (b *Broker) expireOutgoing() {
	var late []uint64
	for id, o := range b.cl.out {
		if o.deadline <= b.now {
			late = append(late, id)
		}
	}
	sort.Slice(late, func(i, j int) bool { return late[i] < late[j] })
	for _, id := range late {
		o := b.cl.out[id]
		delete(b.cl.out, id)
		o.done(nil)
	}
}

// tickLifecycle registers the broker and heartbeats (KIP-631).
func (b *Broker) tickLifecycle() {
	c := b.cl
	if c.epoch < 0 {
		if !c.registering {
			b.register()
		}
		return
	}
	if c.beating || b.now < c.nextBeat {
		return
	}
	c.beating = true
	c.nextBeat = b.now + b.cfg.Settings.Int64("broker.heartbeat.interval.ms")
	req := kmsg.NewPtrBrokerHeartbeatRequest()
	req.BrokerID, req.BrokerEpoch = b.cfg.NodeID, c.epoch
	req.CurrentMetadataOffset = int64(c.image.Index)
	req.WantShutdown = c.shutdown
	req.OfflineLogDirs = c.offlineLogDirs()
	epoch := c.epoch
	// A heartbeat not answered by the time the next is due is given up,
	// so one lost message does not silence the broker for
	// replica.socket.timeout.ms, past its session: the controller would
	// fence a healthy broker.
	b.sendWithin(ToController, req, b.cfg.Settings.Int64("broker.heartbeat.interval.ms"), func(r kmsg.Response) {
		c.beating = false
		resp, _ := r.(*kmsg.BrokerHeartbeatResponse)
		if resp == nil || c.epoch != epoch {
			return
		}
		switch resp.ErrorCode {
		case 0:
			c.heardAt = b.now
			if c.fenced != resp.IsFenced {
				c.fenced = resp.IsFenced
			}
			if c.shutdown && resp.ShouldShutdown && !c.shutdownNow {
				c.shutdownNow = true
				b.cfg.Logf("controlled shutdown: the controller moved every leadership away")
			} else if c.shutdown {
				c.nextBeat = b.now + b.cfg.Settings.Int64("broker.heartbeat.interval.ms")/4
			}
		case kerr.StaleBrokerEpoch.Code, kerr.BrokerIDNotRegistered.Code:
			c.epoch, c.fenced = -1, true
			b.register()
		default: // NOT_CONTROLLER and the like: the next beat goes to the new one
			c.nextBeat = b.now
		}
	})
}

func (b *Broker) register() {
	c := b.cl
	if b.meta.ClusterID == "" || b.now < c.registerAt {
		return // no cluster id yet (cluster_id.go), or refused lately
	}
	c.registering = true
	req := kmsg.NewPtrBrokerRegistrationRequest()
	req.BrokerID, req.ClusterID, req.IncarnationID = b.cfg.NodeID, b.meta.ClusterID, c.cfg.Incarnation
	for _, e := range b.listeners() {
		l := kmsg.NewBrokerRegistrationRequestListener()
		l.Name, l.Host, l.Port = e.Name, e.Host, uint16(e.Port)
		req.Listeners = append(req.Listeners, l)
	}
	req.Rack = rackField(b.ownRack())
	// Asked again after a heartbeat interval, like a heartbeat.
	b.sendWithin(ToController, req, b.cfg.Settings.Int64("broker.heartbeat.interval.ms"), func(r kmsg.Response) {
		c.registering = false
		resp, _ := r.(*kmsg.BrokerRegistrationResponse)
		if resp == nil {
			return // tried again at the next tick
		}
		if resp.ErrorCode != 0 {
			b.registrationRefused(resp.ErrorCode)
			return
		}
		c.epoch, c.fenced, c.nextBeat = resp.BrokerEpoch, true, b.now
		b.cfg.Logf("registered with the controller (broker epoch %d)", resp.BrokerEpoch)
	})
}

// nextClusterDeadline is the earliest time the cluster machinery has work.
func (b *Broker) nextClusterDeadline() (int64, bool) {
	c := b.cl
	at, ok := c.nextBeat, c.epoch >= 0 && !c.beating
	consider := func(t int64) {
		if !ok || t < at {
			at, ok = t, true
		}
	}
	//purity:unordered takes the earliest deadline
	for _, o := range c.out {
		consider(o.deadline)
	}
	for _, p := range b.partitions() {
		if p.lead != nil {
			consider(p.lead.nextISRCheck)
		}
		if f := p.follow; f != nil && !f.asking && !p.offline && !(f.truncated && c.fetchers[f.leader].busy()) {
			consider(f.retryAt)
		}
	}
	for _, a := range b.acks {
		consider(a.deadline)
	}
	for _, h := range c.addRetries {
		consider(h.at)
	}
	return at, ok
}

// controllerID is the controller Metadata and DescribeCluster name.
func (b *Broker) controllerID() int32 { return b.image.controller() }

// Image is the metadata image the broker last applied (nil for a single
// broker). Callers must not modify it.
func (b *Broker) Image() *cluster.Image {
	if b.cl == nil {
		return nil
	}
	return b.cl.image
}

// routeError is the error for a request about a partition this broker does
// not lead (metadataImage.routeError).
func (b *Broker) routeError(topic string, idx int32) int16 { return b.image.routeError(topic, idx) }

// leads reports whether this broker serves reads and writes of p.
func (b *Broker) leads(p *Partition) bool { return b.image.leads(p) }

// quorumImage is the metadata image of a broker of a cluster
// (metadataImage): the quorum's image the driver last applied.
type quorumImage struct{ b *Broker }

func (q quorumImage) im() *cluster.Image { return q.b.cl.image }

func (q quorumImage) topic(name string) (imageTopic, bool) {
	return quorumTopic(q.im().Topics[name])
}

func (q quorumImage) topicByID(id [16]byte) (imageTopic, bool) {
	return quorumTopic(q.im().TopicByID(id))
}

// quorumTopic describes a topic of the image; ok false for nil.
func quorumTopic(t *cluster.Topic) (imageTopic, bool) {
	if t == nil {
		return imageTopic{}, false
	}
	return imageTopic{name: t.Name, id: t.ID, partitions: len(t.Partitions), configs: t.Configs}, true
}

func (q quorumImage) topicNames() []string {
	names := make([]string, 0, len(q.im().Topics))
	//purity:unordered callers sort
	for name := range q.im().Topics {
		names = append(names, name)
	}
	return names
}

func (q quorumImage) replicas(topic string, p int32) ([]int32, bool) {
	if ip := q.im().Partition(topic, p); ip != nil {
		return ip.Replicas, true
	}
	return nil, false
}

// partition: a broker in controlled shutdown is listed and its replicas
// are not offline, as Kafka's KRaftMetadataCache has it.
func (q quorumImage) partition(topic string, p int32) (imagePartition, bool) {
	im := q.im()
	ip := im.Partition(topic, p)
	if ip == nil {
		return imagePartition{}, false
	}
	out := imagePartition{leader: ip.Leader, leaderEpoch: ip.LeaderEpoch,
		replicas: slices.Clone(ip.Replicas), isr: slices.Clone(ip.ISR), offline: []int32{}}
	for _, r := range ip.Replicas {
		if !im.Live(r) || im.Brokers[r].LogDirOffline || r == q.b.cfg.NodeID && q.b.topics[topic].partition(p).Offline() {
			out.offline = append(out.offline, r)
		}
	}
	return out, true
}

func (q quorumImage) autoCreate(name string) int16 {
	if isInternalTopic(name) {
		return kerr.UnknownTopicOrPartition.Code
	}
	create := kmsg.NewPtrCreateTopicsRequest()
	create.SetVersion(4)
	ct := kmsg.NewCreateTopicsRequestTopic()
	ct.Topic, ct.NumPartitions, ct.ReplicationFactor = name, -1, -1
	create.Topics = append(create.Topics, ct)
	q.b.send(ToController, create, func(kmsg.Response) {})
	return kerr.LeaderNotAvailable.Code
}

func (q quorumImage) leader(topic string, p int32) (int32, string, int32, bool) {
	ip := q.im().Partition(topic, p)
	if ip == nil || ip.Leader == cluster.NoLeader {
		return 0, "", 0, false
	}
	br := q.im().Brokers[ip.Leader]
	if br == nil {
		return 0, "", 0, false
	}
	return br.ID, br.Host, br.Port, true
}

func (q quorumImage) leads(p *Partition) bool {
	return p.Leader == q.b.cfg.NodeID && p.lead != nil
}

func (q quorumImage) routeError(topic string, idx int32) int16 {
	ip := q.im().Partition(topic, idx)
	switch {
	case ip == nil:
		return kerr.UnknownTopicOrPartition.Code
	case ip.Leader == cluster.NoLeader:
		return kerr.LeaderNotAvailable.Code
	}
	return kerr.NotLeaderForPartition.Code
}

// controller: a client cannot reach a KRaft controller, so a clustered
// broker names a live broker instead (the lowest id; Kafka picks a
// random one), which forwards what only the controller serves (KIP-590).
func (q quorumImage) controller() int32 {
	if live := q.im().LiveBrokers(); len(live) > 0 {
		return live[0]
	}
	return -1
}

func (q quorumImage) liveBrokers() []imageBroker {
	var out []imageBroker
	for _, id := range q.im().LiveBrokers() {
		br := q.im().Brokers[id]
		out = append(out, imageBroker{id: id, host: br.Host, port: br.Port, rack: br.Rack})
	}
	return out
}

func (q quorumImage) endpoint(id int32, listener string) (string, int32, bool) {
	br := q.im().Brokers[id]
	if br == nil {
		return "", 0, false
	}
	h, p := br.Endpoint(listener)
	return h, p, true
}

func (q quorumImage) acls() map[string]*cluster.ACL { return q.im().ACLs }

func (q quorumImage) quotas() quota.Quotas { return q.im().Quotas }

func (q quorumImage) scram() map[string]*cluster.ScramCredential { return q.im().Scram }

func (q quorumImage) groupConfigs(id string) map[string]string { return q.im().Groups[id] }

func (q quorumImage) features() (map[string]int16, int64) {
	return q.im().Features, int64(q.im().Index)
}

func (q quorumImage) byController(r *Request, _ func(*Broker, *Request) kmsg.Response) kmsg.Response {
	q.b.forward(r)
	return nil
}

// forward sends a client's request to the controller, in an Envelope
// (envelope.go), and answers the client with the controller's response
// (KIP-590); at the controller's node, a request that came in an Envelope
// goes to the quorum controller as it is. A request the controller does
// not answer in time gets REQUEST_TIMED_OUT for each of its parts.
func (b *Broker) forward(r *Request) {
	b.forwardUntil(*r, b.now+b.cfg.Settings.Int64("replica.socket.timeout.ms"))
}

// forwardUntil sends req to the active controller; when the controller
// moves or its link fails before it answers, it is sent again (to the new
// controller once there is one), as Kafka's NodeToControllerChannelManager
// re-queues what a disconnect cut off. The driver reports a failed link at
// the next raft tick, so a retry happens at most once a tick. Past
// deadline the client gets REQUEST_TIMED_OUT.
func (b *Broker) forwardUntil(req Request, deadline int64) {
	var msg kmsg.Request = req.Msg
	if req.envelope == nil {
		msg = seal(req)
	}
	o := b.sendWithin(ToController, msg, deadline-b.now, func(resp kmsg.Response) {
		if env, ok := resp.(*kmsg.EnvelopeResponse); ok {
			resp = unseal(req.Msg, env)
		}
		if resp == nil {
			resp = wire.ErrorResponse(req.Msg, kerr.RequestTimedOut.Code)
		}
		resp.SetVersion(req.Msg.GetVersion())
		b.reply(req, resp)
	})
	o.retry = func() { b.forwardUntil(req, deadline) }
}

// initProducerID answers InitProducerId from a block of producer ids
// the controller allocated to this broker (AllocateProducerIds, KIP-730),
// so ids are unique across the cluster; while a block is being fetched the
// requests wait.
func (q quorumImage) initProducerID(r Request, resp *kmsg.InitProducerIDResponse) kmsg.Response {
	c := q.b.cl
	c.pidWaiting = append(c.pidWaiting, pidWait{r, resp})
	q.b.servePIDs()
	return nil
}

type pidWait struct {
	req  Request
	resp *kmsg.InitProducerIDResponse
}

// errNoProducerIDs is returned while this broker waits for a block of
// producer ids from the controller.
var errNoProducerIDs = errors.New("broker: waiting for a block of producer ids from the controller")

// producerID: from the blocks the controller allocates (initProducerID).
func (q quorumImage) producerID() (int64, error) {
	c := q.b.cl
	if c.pidNext < c.pidEnd {
		c.pidNext++
		return c.pidNext - 1, nil
	}
	q.b.servePIDs()
	return 0, errNoProducerIDs
}

func (b *Broker) servePIDs() {
	c := b.cl
	for len(c.pidWaiting) > 0 && c.pidNext < c.pidEnd {
		w := c.pidWaiting[0]
		c.pidWaiting = c.pidWaiting[1:]
		w.resp.ProducerID, w.resp.ProducerEpoch = c.pidNext, 0
		c.pidNext++
		b.reply(w.req, w.resp)
	}
	if c.pidNext < c.pidEnd || c.pidAsking {
		return
	}
	if c.epoch < 0 {
		for _, w := range c.pidWaiting {
			w.resp.ErrorCode = kerr.CoordinatorNotAvailable.Code
			b.reply(w.req, w.resp)
		}
		c.pidWaiting = nil
		return
	}
	c.pidAsking = true
	req := kmsg.NewPtrAllocateProducerIDsRequest()
	req.BrokerID, req.BrokerEpoch = b.cfg.NodeID, c.epoch
	b.send(ToController, req, func(r kmsg.Response) {
		c.pidAsking = false
		resp, _ := r.(*kmsg.AllocateProducerIDsResponse)
		if resp == nil || resp.ErrorCode != 0 {
			code := kerr.RequestTimedOut.Code
			if resp != nil {
				code = resp.ErrorCode
			}
			for _, w := range c.pidWaiting {
				w.resp.ErrorCode = code
				b.reply(w.req, w.resp)
			}
			c.pidWaiting = nil
			return
		}
		c.pidNext, c.pidEnd = resp.ProducerIDStart, resp.ProducerIDStart+int64(resp.ProducerIDLen)
		b.servePIDs()
	})
}

func (q quorumImage) coordinatorHere(topic string, p int32) bool { return q.b.coordinates(topic, p) }
