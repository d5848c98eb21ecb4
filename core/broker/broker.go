package broker

import (
	"fmt"
	"math/rand/v2"
	"sort"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/cluster"
	"github.com/gregor-kafka/gregor/core/config"
	"github.com/gregor-kafka/gregor/core/coordinator"
	"github.com/gregor-kafka/gregor/core/log"
	"github.com/gregor-kafka/gregor/core/share"
	"github.com/gregor-kafka/gregor/core/store"
	"github.com/gregor-kafka/gregor/core/wire"
)

// Config is what a broker needs besides its settings.
type Config struct {
	NodeID int32
	Host   string // advertised host
	Port   int32  // advertised port
	// Listeners are every advertised listener, the first at Host and
	// Port (listeners.go); empty means one, PLAINTEXT, at Host and Port.
	Listeners []cluster.Endpoint
	// Authorizer, when set (authorizer.class.name), enforces the ACLs
	// on every client request (authorize.go).
	Authorizer *cluster.Authorizer
	// ClusterID is the cluster id a broker with empty storage starts
	// with. Empty: a single broker draws one; a clustered broker adopts
	// the metadata quorum's (cluster_id.go).
	ClusterID string
	// Features are the feature levels a broker with empty storage starts
	// with in place of the release's (kafka-storage format's --feature
	// name=level, features.go).
	Features map[string]int16
	Settings *config.Broker
	// Rand seeds topic ids and producer ids; the driver chooses the seed.
	Rand *rand.Rand
	// Logf receives one line per notable event (recovery, retention).
	Logf func(format string, args ...any)
	// LogDir is the absolute path of the data directory, as
	// DescribeLogDirs reports it; DiskSpace, when set, the total and
	// usable bytes of its volume (-1 where unknown).
	LogDir    string
	DiskSpace func() (total, usable int64)
	// Clock, when set, reads a monotonic clock in nanoseconds: the time
	// a request's handler takes is charged to its client's
	// request_percentage quota (KIP-124). Nil: handling takes no time,
	// as on the simulator's virtual clock.
	Clock func() int64
	// Cluster, when set, makes the broker one of several, with its
	// metadata from the quorum (cluster.go); nil is a single broker that
	// keeps its own metadata.
	Cluster *ClusterConfig
}

// Request is one decoded client request.
type Request struct {
	Conn   uint64
	Header wire.Header
	Msg    kmsg.Request
	// Host is the client's address as Kafka reports it in DescribeGroups
	// ("/127.0.0.1"); empty where there is none (peers, the simulator).
	Host string
	// Listener names the listener the request came through (KIP-103);
	// empty is the first. Broker addresses in answers are its endpoints.
	Listener string
	// Principal is the client's, as ACLs name it ("User:alice",
	// "User:ANONYMOUS"); empty for a peer broker and the simulator, whose
	// requests are not authorized.
	Principal string
	// ZeroCopy says the driver sends a Fetch answer's record batches from
	// their segment files itself (sendfile, issue 23): the answer may
	// then carry pinned ranges, Response.Ranged, in place of bytes. The
	// native server sets it on plaintext connections.
	ZeroCopy bool
	// addUntil is when a request held for its transaction's previous
	// end gives up (verify_txn.go retryAdd); 0 before it was held.
	addUntil int64
	// envelope is set on a request another broker forwarded in an
	// Envelope: its answer goes back in one (envelope.go).
	envelope *enveloped
	// session is set on a Fetch in an incremental fetch session
	// (fetch_session.go): its answer finishes there.
	session *sessionTurn
	// trim, when set, completes the answer with what a check took out of
	// the request before its handler ran (trims.go).
	trim func(kmsg.Response)
	// verdicts are what a remote transaction coordinator said about the
	// partitions of a held request, for its run once answered
	// (verify_txn.go askCoordinator); each is taken once, none after it.
	verdicts map[verifyKey]int16
}

// Response answers a Request on the same connection.
type Response struct {
	Conn          uint64
	CorrelationID int32
	Msg           kmsg.Response
	// Throttle is the request-time quota's throttle (KIP-124), which the
	// driver puts in the answer's throttle_time_ms when larger than what
	// is there (Fetch answers carry it already); 0 but for answers sent
	// at once to a client over its request_percentage.
	Throttle int32
	// Ranged lists the partitions of a Fetch answer (Request.ZeroCopy)
	// whose record batches stayed pinned in a segment file: each Span is
	// a store.Span, which the driver sends in the frame
	// (wire.AppendFetchFrame) and must Release once sent or dropped.
	Ranged []wire.Ranged
}

// Broker is one Kafka broker's engine.
type Broker struct {
	cfg    Config
	st     store.Storage
	meta   metadata
	topics map[string]*Topic
	byID   map[[16]byte]*Topic
	now    int64
	outbox []Effect // what the driver takes with Ready (ready.go)

	fetches    []*pendingFetch
	sessions   map[int32]*fetchSession               // incremental fetch sessions by id (fetch_session.go)
	pins       map[*kmsg.FetchResponse][]wire.Ranged // fetch_pins.go
	acks       []*pendingAcks                        // acks=all produces waiting for the ISR
	cl         *clusterGlue                          // nil for a single broker
	image      metadataImage                         // the cluster's metadata, or a cluster of one (metadata_image.go)
	awaitFlush []heldAnswer                          // answers waiting for the next Commit's syncs (storage_failure.go)
	dirty      []*Partition                          // logs to sync at the next Commit
	lastRetain int64
	cleanStart bool         // while New opens the logs after a clean shutdown (clean_shutdown.go)
	cleaner    cleanerState // the log cleaner (compaction.go)
	scratch    log.Scratch  // the read buffers its logs' scans share (log.Config.Scratch)

	producerIDs struct{ next, end int64 } // the id block in use: [next, end); none after a start
	txnHooks    TxnHooks                  // producer_state.go

	groups *coordinator.Groups // the group coordinator (core/coordinator, group_coordinator.go)
	share  *share.Engine       // share groups (share_groups.go, share_fetch.go)

	shareFetches []*pendingShareFetch      // share fetches waiting for records
	shares       *coordinator.Shares       // the share coordinator (core/coordinator, share_persist.go)
	shareReads   map[share.Key]bool        // share partitions whose state is being read (share_persist.go)
	wakingShare  bool                      // wakeShareFetches is running
	txn          *coordinator.Transactions // the transaction coordinator (core/coordinator, txn_coordinator.go)
	step         *coordinatorWrites        // the coordinator step in progress, nil between steps (coordinator_writes.go)
	meters       map[string]*clientUsage   // clients' use of their quotas (client_quotas.go)
}

// New opens a broker on st, recovering every partition it finds there.
// What opening produced waits for the first Ready.
func New(cfg Config, st store.Storage, now int64) (*Broker, error) {
	if cfg.Settings == nil {
		cfg.Settings = config.NewBroker()
	}
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
	}
	b := &Broker{
		cfg: cfg, st: st, now: now,
		topics: map[string]*Topic{}, byID: map[[16]byte]*Topic{},
		lastRetain: now,
	}
	b.image = clusterOfOne{b}
	if err := b.loadMetadata(); err != nil {
		return nil, err
	}
	if cfg.Cluster != nil {
		// Topics come from the quorum's image (ApplyMetadata), not from
		// the metadata file.
		b.meta.Topics = map[string]*topicRecord{}
		b.cl = &clusterGlue{cfg: *cfg.Cluster, image: cluster.NewImage(), epoch: -1, fenced: true,
			out: map[uint64]*outgoing{}, fetchers: map[int32]*fetcher{}, creating: map[string]bool{},
			hwCheckpoint: b.loadHighWatermarks(), nextHWCheckpoint: now + cfg.Settings.Int64("replica.high.watermark.checkpoint.interval.ms")}
		b.image = quorumImage{b}
	}
	clean, err := b.takeCleanShutdown() // clean_shutdown.go
	if err != nil {
		return nil, fmt.Errorf("broker: reading the clean shutdown mark: %w", err)
	}
	b.cleanStart = clean
	names := make([]string, 0, len(b.meta.Topics))
	for name := range b.meta.Topics {
		names = append(names, name)
	}
	sort.Strings(names)
	// After an unclean shutdown every log syncs what it recovered before
	// it is served (log.Open): three fsyncs a partition, 2 s of a restart
	// after kill -9 with 10,000 of them. They are taken as one, as Close's.
	commit := b.deferSyncs()
	for _, name := range names {
		if err := b.openTopic(b.meta.Topics[name], now); err != nil {
			_ = commit()
			return nil, fmt.Errorf("broker: opening topic %s: %w", name, err)
		}
	}
	if err := commit(); err != nil {
		return nil, fmt.Errorf("broker: syncing the recovered logs: %w", err)
	}
	b.cleanStart = false
	if err := b.initShare(now); err != nil {
		return nil, fmt.Errorf("broker: loading share groups: %w", err)
	}
	if err := b.initGroups(now); err != nil {
		return nil, fmt.Errorf("broker: loading consumer groups: %w", err)
	}
	if err := b.initTxn(now); err != nil {
		return nil, fmt.Errorf("broker: loading transactions: %w", err)
	}
	return b, nil
}

// ClusterID is the id of the cluster this broker belongs to; empty while
// a clustered broker with empty storage has not learnt it yet.
func (b *Broker) ClusterID() string { return b.meta.ClusterID }

// NodeID is the broker's node.id.
func (b *Broker) NodeID() int32 { return b.cfg.NodeID }

// Handle processes one request. Its response is in this call's Ready or
// a later one's.
func (b *Broker) Handle(now int64, req Request) {
	b.advance(now)
	b.serve(req)
}

// serve handles a client's request, sent here or forwarded in an
// Envelope. What only the controller serves goes there unauthorized: the
// controller authorizes it (envelope.go).
func (b *Broker) serve(req Request) {
	h, ok := handlers[req.Msg.Key()]
	v := req.Msg.GetVersion()
	if !ok || v < h.min || v > h.max {
		b.reply(req, unsupported(req.Msg))
		return
	}
	if h.resolve != nil {
		if resp := h.resolve(b, &req); resp != nil {
			b.reply(req, resp)
			return
		}
	}
	if b.forwards(&req) {
		b.forward(&req)
		return
	}
	if deny := b.authorize(&req); deny != nil {
		b.reply(req, deny)
		return
	}
	start := b.clock()
	resp := h.serve(b, &req)
	var ms int32
	if req.envelope == nil { // the forwarding broker charged the request's time
		ms = b.throttleRequest(&req, b.clock()-start) // client_quotas.go
	}
	if resp != nil {
		b.advertise(h, req.Listener, resp)
		b.replyThrottled(req, resp, ms)
	}
}

// clock reads Config.Clock, 0 without one.
func (b *Broker) clock() int64 {
	if b.cfg.Clock == nil {
		return 0
	}
	return b.cfg.Clock()
}

func (b *Broker) reply(req Request, msg kmsg.Response) { b.replyThrottled(req, msg, 0) }

// replyThrottled queues an answer with the request-time quota's throttle
// of ms.
func (b *Broker) replyThrottled(req Request, msg kmsg.Response, ms int32) {
	if req.trim != nil {
		req.trim(msg)
	}
	b.fillAuthorizedOps(&req, msg) // authorized_ops.go
	var ranged []wire.Ranged
	if f, ok := msg.(*kmsg.FetchResponse); ok {
		ranged = b.takePins(f)                       // fetch_pins.go
		ranged = b.throttleFetch(req, f, ms, ranged) // client_quotas.go
		if req.session != nil {
			ranged = b.answerSession(req.session, f, ranged) // fetch_session.go
		}
	}
	if req.envelope != nil {
		msg = req.envelope.wrap(msg)
	}
	b.respond(Response{Conn: req.Conn, CorrelationID: req.Header.CorrelationID, Msg: msg, Throttle: ms, Ranged: ranged})
}

// Tick moves the clock: expired long polls answer and retention runs.
func (b *Broker) Tick(now int64) {
	b.advance(now)
	b.expireFetches()
	if b.cl != nil {
		b.expireOutgoing()
		b.runAddRetries()
		b.tickLifecycle()
		b.tickReplication()
		b.completeAcks()
		if err := b.maybeCheckpointHighWatermarks(); err != nil {
			b.cfg.Logf("%v", err)
		}
	}
	b.tickGroups(now)
	b.share.Tick(now)
	if b.persistShare(nil) {
		b.wakeShareFetches()
	}
	b.tickTxn(now)
	if iv := b.cfg.Settings.Int64("log.retention.check.interval.ms"); now-b.lastRetain >= iv {
		b.lastRetain = now
		b.enforceRetention()
	}
	b.tickCleaner()
	for _, p := range b.partitions() {
		if !p.offline && p.log.NeedsFlush(now) {
			b.markDirty(p)
		}
	}
}

func (b *Broker) markDirty(p *Partition) {
	if !p.dirty {
		p.dirty = true
		b.dirty = append(b.dirty, p)
	}
}

func (b *Broker) advance(now int64) {
	if now > b.now {
		b.now = now
	}
}

// NextDeadline is the earliest time Tick has work to do, so a driver can
// sleep until then; ok is false when only periodic work remains.
func (b *Broker) NextDeadline() (at int64, ok bool) {
	for _, f := range b.fetches {
		if !ok || f.deadline < at {
			at, ok = f.deadline, true
		}
	}
	for _, f := range b.shareFetches {
		if !ok || f.deadline < at {
			at, ok = f.deadline, true
		}
	}
	if s, sok := b.share.NextDeadline(); sok && (!ok || s < at) {
		at, ok = s, true
	}
	if g, gok := b.groups.NextDeadline(); gok && (!ok || g < at) {
		at, ok = g, true
	}
	if t, tok := b.txn.NextDeadline(); tok && (!ok || t < at) {
		at, ok = t, true
	}
	if b.cleaner.current != nil && (!ok || b.now < at) {
		at, ok = b.now, true // a cleaning pass goes on at the next tick
	}
	if b.cl != nil {
		if t, tok := b.nextClusterDeadline(); tok && (!ok || t < at) {
			at, ok = t, true
		}
	}
	return at, ok
}

// deferSyncs opens a batch of the storage's syncs, where it can take
// them as one (store.SyncDeferrer), and returns its commit: nothing synced
// until then is durable before it returns nil.
func (b *Broker) deferSyncs() (commit func() error) {
	if d, ok := b.st.(store.SyncDeferrer); ok {
		if c, ok := d.DeferSyncs(); ok {
			return c
		}
	}
	return func() error { return nil }
}

// Close flushes and closes every log, their syncs taken as one where
// the storage can (store.SyncDeferrer), and then leaves the clean
// shutdown mark.
func (b *Broker) Close() error {
	var firstErr error
	commit := b.deferSyncs()
	if b.cl != nil {
		firstErr = b.checkpointHighWatermarks()
	}
	for _, p := range b.partitions() {
		if p.offline {
			// Never synced again after a failure (storage_failure.go).
			if err := p.log.Abandon(); err != nil && firstErr == nil {
				firstErr = err
			}
			continue
		}
		if err := p.log.Flush(b.now); err != nil && firstErr == nil {
			firstErr = err
		}
		if err := p.log.Close(); err != nil && firstErr == nil {
			firstErr = err
		}
	}
	if err := commit(); err != nil && firstErr == nil {
		firstErr = err
	}
	if firstErr == nil {
		firstErr = b.st.WriteFile(cleanShutdownFile, nil) // clean_shutdown.go
	}
	return firstErr
}

// partitions lists every partition in a fixed order.
func (b *Broker) partitions() []*Partition {
	var out []*Partition
	for _, name := range b.topicNames() {
		out = append(out, b.topics[name].Partitions...)
	}
	return out
}

func (b *Broker) topicNames() []string {
	names := make([]string, 0, len(b.topics))
	for n := range b.topics {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
