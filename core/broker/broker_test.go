package broker

import (
	"math/rand/v2"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/config"
	"github.com/gregor-kafka/gregor/core/record"
	"github.com/gregor-kafka/gregor/core/store"
	"github.com/gregor-kafka/gregor/core/wire"
)

// harness drives one broker on memory storage with a hand-moved clock.
type harness struct {
	t     *testing.T
	st    *store.Mem
	b     *Broker
	now   int64
	out   []Response // answers since the last reset (answers)
	corr  int32
	flags map[string]string
	clock func() int64 // Config.Clock, nil for none
	// principal signs the requests sent; empty, as a peer's, they are not
	// authorized.
	principal string
	// wrap, when set, wraps st for the broker (a pinning store,
	// fetch_pins_test.go); zeroCopy marks the requests sent ZeroCopy.
	wrap     func(store.Storage) store.Storage
	zeroCopy bool
}

func newHarness(t *testing.T, flags map[string]string) *harness {
	h := &harness{t: t, st: store.NewMem(), now: 1_000_000, flags: flags}
	h.open()
	return h
}

func (h *harness) open() {
	b, err := h.tryOpen()
	if err != nil {
		h.t.Fatal(err)
	}
	h.b = b
}

// tryOpen starts a broker on the harness's storage, as open, and returns
// it or why it did not start.
func (h *harness) tryOpen() (*Broker, error) {
	s := config.NewBroker()
	for k, v := range h.flags {
		if err := s.SetStatic(k, v); err != nil {
			h.t.Fatal(err)
		}
	}
	var st store.Storage = h.st
	if h.wrap != nil {
		st = h.wrap(st)
	}
	return New(Config{NodeID: 1, Host: "sim", Port: 9092, Settings: s, Rand: rand.New(rand.NewPCG(1, 2)), Clock: h.clock, LogDir: "/data"},
		st, h.now)
}

// answers are the answers the broker produced since the last reset: it
// takes the broker's Ready, which a single broker fills with answers
// only.
func (h *harness) answers() []Response {
	for _, e := range h.b.Ready().Effects {
		if e.Send.Req != nil {
			h.t.Fatalf("a single broker sent %s", kmsg.NameForKey(e.Send.Req.Key()))
		}
		h.out = append(h.out, e.Response)
	}
	return h.out
}

// reset forgets the answers produced so far.
func (h *harness) reset() {
	h.answers()
	h.out = nil
}

// send hands a request to the broker and returns what it answered at once.
func (h *harness) send(req kmsg.Request) []Response {
	h.corr++
	h.reset()
	h.b.Handle(h.now, Request{Conn: 1, Header: wire.Header{Key: req.Key(), Version: req.GetVersion(), CorrelationID: h.corr}, Msg: req, Principal: h.principal, ZeroCopy: h.zeroCopy})
	return h.answers()
}

// call expects exactly one immediate response.
func call[T kmsg.Response](h *harness, req kmsg.Request) T {
	h.t.Helper()
	out := h.send(req)
	if len(out) != 1 {
		h.t.Fatalf("%s: %d responses, want 1", kmsg.NameForKey(req.Key()), len(out))
	}
	return out[0].Msg.(T)
}

func (h *harness) createTopic(name string, partitions int32, configs map[string]string) {
	h.t.Helper()
	req := kmsg.NewPtrCreateTopicsRequest()
	rt := kmsg.NewCreateTopicsRequestTopic()
	rt.Topic, rt.NumPartitions, rt.ReplicationFactor = name, partitions, 1
	for k, v := range configs {
		c := kmsg.NewCreateTopicsRequestTopicConfig()
		c.Name, c.Value = k, &v
		rt.Configs = append(rt.Configs, c)
	}
	req.Topics = append(req.Topics, rt)
	resp := call[*kmsg.CreateTopicsResponse](h, req)
	if code := resp.Topics[0].ErrorCode; code != 0 {
		h.t.Fatalf("create %s: %v", name, kerr.ErrorForCode(code))
	}
}

func batchOf(values ...string) []byte {
	bl := record.NewBuilder(record.NewBatchHeader(1000))
	for _, v := range values {
		bl.Add(nil, []byte(v), 0)
	}
	return bl.Build()
}

func produceReq(topic string, partition int32, acks int16, batch []byte) *kmsg.ProduceRequest {
	req := kmsg.NewPtrProduceRequest()
	req.SetVersion(9)
	req.Acks = acks
	rt := kmsg.NewProduceRequestTopic()
	rt.Topic = topic
	rp := kmsg.NewProduceRequestTopicPartition()
	rp.Partition, rp.Records = partition, batch
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	return req
}

func fetchReq(topic string, partition int32, offset int64, minBytes, waitMs int32) *kmsg.FetchRequest {
	req := kmsg.NewPtrFetchRequest()
	req.SetVersion(12)
	req.MinBytes, req.MaxWaitMillis, req.MaxBytes = minBytes, waitMs, 1<<20
	rt := kmsg.NewFetchRequestTopic()
	rt.Topic = topic
	rp := kmsg.NewFetchRequestTopicPartition()
	rp.Partition, rp.FetchOffset, rp.PartitionMaxBytes = partition, offset, 1<<20
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	return req
}

func TestProduceThenFetch(t *testing.T) {
	h := newHarness(t, nil)
	h.createTopic("t", 2, nil)
	for i, want := range []int64{0, 2} {
		resp := call[*kmsg.ProduceResponse](h, produceReq("t", 1, -1, batchOf("a", "b")))
		p := resp.Topics[0].Partitions[0]
		if p.ErrorCode != 0 || p.BaseOffset != want {
			t.Fatalf("produce %d: code %d base %d, want base %d", i, p.ErrorCode, p.BaseOffset, want)
		}
	}
	f := call[*kmsg.FetchResponse](h, fetchReq("t", 1, 1, 1, 0))
	fp := f.Topics[0].Partitions[0]
	if fp.HighWatermark != 4 || fp.LastStableOffset != 4 {
		t.Fatalf("hw %d lso %d, want 4", fp.HighWatermark, fp.LastStableOffset)
	}
	// Offset 1 lives in the first batch: whole batches come back.
	it := record.NewIter(fp.RecordBatches)
	var bases []int64
	for b, ok := it.Next(); ok; b, ok = it.Next() {
		bases = append(bases, b.BaseOffset())
	}
	if len(bases) != 2 || bases[0] != 0 || bases[1] != 2 {
		t.Fatalf("batch bases %v, want [0 2]", bases)
	}
}

func TestProduceErrors(t *testing.T) {
	h := newHarness(t, nil)
	h.createTopic("t", 1, map[string]string{"max.message.bytes": "100"})
	bad := batchOf("x")
	bad[len(bad)-1] ^= 0xff
	cases := []struct {
		name string
		req  *kmsg.ProduceRequest
		code int16
	}{
		{"unknown topic", produceReq("nope", 0, 1, batchOf("a")), kerr.UnknownTopicOrPartition.Code},
		{"unknown partition", produceReq("t", 5, 1, batchOf("a")), kerr.UnknownTopicOrPartition.Code},
		{"bad crc", produceReq("t", 0, 1, bad), kerr.CorruptMessage.Code},
		{"too large", produceReq("t", 0, 1, batchOf(string(make([]byte, 200)))), kerr.MessageTooLarge.Code},
		{"bad acks", produceReq("t", 0, 2, batchOf("a")), kerr.InvalidRequiredAcks.Code},
	}
	for _, c := range cases {
		resp := call[*kmsg.ProduceResponse](h, c.req)
		if got := resp.Topics[0].Partitions[0].ErrorCode; got != c.code {
			t.Errorf("%s: code %d, want %d", c.name, got, c.code)
		}
	}
	if err := h.b.image.localInternalTopic(OffsetsTopic); err != nil {
		t.Fatal(err)
	}
	resp := call[*kmsg.ProduceResponse](h, produceReq(OffsetsTopic, 0, 1, batchOf("forged")))
	if got := resp.Topics[0].Partitions[0].ErrorCode; got != kerr.InvalidTopicException.Code {
		t.Errorf("produce to %s: code %d, want INVALID_TOPIC_EXCEPTION", OffsetsTopic, got)
	}
	if got := h.send(produceReq("t", 0, 0, batchOf("a"))); len(got) != 0 {
		t.Fatalf("acks=0 must get no response, got %d", len(got))
	}
}

// TestMinInsyncReplicasOnOneBroker: a single broker is a cluster of one,
// so its ISR is itself and min.insync.replicas=2 refuses acks=all before
// appending (NOT_ENOUGH_REPLICAS), as Kafka refuses it on a partition of
// one replica; acks=1 is still written.
func TestMinInsyncReplicasOnOneBroker(t *testing.T) {
	h := newHarness(t, nil)
	h.createTopic("t", 1, map[string]string{"min.insync.replicas": "2"})
	resp := call[*kmsg.ProduceResponse](h, produceReq("t", 0, -1, batchOf("a")))
	if got := resp.Topics[0].Partitions[0].ErrorCode; got != kerr.NotEnoughReplicas.Code {
		t.Fatalf("acks=all: code %d, want NOT_ENOUGH_REPLICAS", got)
	}
	resp = call[*kmsg.ProduceResponse](h, produceReq("t", 0, 1, batchOf("b")))
	if p := resp.Topics[0].Partitions[0]; p.ErrorCode != 0 || p.BaseOffset != 0 {
		t.Fatalf("acks=1: code %d base %d, want base 0 (nothing appended before it)", p.ErrorCode, p.BaseOffset)
	}
}

// TestLongPollFetch: a fetch below fetch.min.bytes waits as a pending
// operation, is woken by an append, and otherwise answers at max.wait.ms.
func TestLongPollFetch(t *testing.T) {
	h := newHarness(t, nil)
	h.createTopic("t", 1, nil)
	if got := h.send(fetchReq("t", 0, 0, 1, 500)); len(got) != 0 {
		t.Fatalf("empty log: fetch answered at once")
	}
	if at, ok := h.b.NextDeadline(); !ok || at != h.now+500 {
		t.Fatalf("deadline %d %v, want %d", at, ok, h.now+500)
	}
	out := h.send(produceReq("t", 0, 1, batchOf("wake")))
	if len(out) != 2 {
		t.Fatalf("produce should answer itself and the waiting fetch, got %d responses", len(out))
	}
	if f := out[0].Msg.(*kmsg.FetchResponse); len(f.Topics[0].Partitions[0].RecordBatches) == 0 {
		t.Fatalf("woken fetch carries no data")
	}
	// A second waiting fetch times out with nothing.
	h.send(fetchReq("t", 0, 1, 1, 300))
	h.reset()
	h.now += 299
	h.b.Tick(h.now)
	if len(h.answers()) != 0 {
		t.Fatalf("fetch answered before max.wait.ms")
	}
	h.now++
	h.b.Tick(h.now)
	if len(h.answers()) != 1 || len(h.answers()[0].Msg.(*kmsg.FetchResponse).Topics[0].Partitions[0].RecordBatches) != 0 {
		t.Fatalf("expired fetch: %d responses", len(h.answers()))
	}
	if _, ok := h.b.NextDeadline(); ok {
		t.Fatalf("no fetch should be waiting")
	}
}

// TestGroupCommit: with flush.messages=1 a produce answer waits for Commit,
// which syncs each dirty log once.
func TestGroupCommit(t *testing.T) {
	h := newHarness(t, map[string]string{"log.flush.interval.messages": "1"})
	h.createTopic("t", 1, nil)
	for range 3 {
		if got := h.send(produceReq("t", 0, -1, batchOf("x"))); len(got) != 0 {
			t.Fatalf("answered before the sync")
		}
	}
	if n := h.st.Unsynced("t-0/00000000000000000000.log"); n == 0 {
		t.Fatalf("nothing waiting to be synced")
	}
	h.reset()
	if err := h.b.Commit(); err != nil {
		t.Fatal(err)
	}
	if len(h.answers()) != 3 {
		t.Fatalf("commit released %d answers, want 3", len(h.answers()))
	}
	if n := h.st.Unsynced("t-0/00000000000000000000.log"); n != 0 {
		t.Fatalf("%d bytes still unsynced after commit", n)
	}
}

func TestApiVersionsAndUnsupported(t *testing.T) {
	h := newHarness(t, nil)
	av := call[*kmsg.ApiVersionsResponse](h, kmsg.NewPtrApiVersionsRequest())
	keys := map[int16]bool{}
	for _, k := range av.ApiKeys {
		keys[k.ApiKey] = true
		if _, ok := handlers[k.ApiKey]; !ok {
			t.Errorf("ApiVersions lists key %d without a handler", k.ApiKey)
		}
	}
	if len(keys) != len(handlers) {
		t.Fatalf("ApiVersions lists %d keys, %d registered", len(keys), len(handlers))
	}
	old := produceReq("t", 0, 1, batchOf("a"))
	old.SetVersion(2) // message sets v0/v1: not served
	resp := call[*kmsg.ProduceResponse](h, old)
	if resp.Topics[0].Partitions[0].ErrorCode != kerr.UnsupportedVersion.Code {
		t.Fatalf("Produce v2: %+v", resp.Topics)
	}
}

func TestPartitionsOnlyGrow(t *testing.T) {
	h := newHarness(t, nil)
	h.createTopic("t", 3, nil)
	for _, c := range []struct {
		count int32
		code  int16
	}{{2, kerr.InvalidPartitions.Code}, {3, kerr.InvalidPartitions.Code}, {5, 0}} {
		req := kmsg.NewPtrCreatePartitionsRequest()
		rt := kmsg.NewCreatePartitionsRequestTopic()
		rt.Topic, rt.Count = "t", c.count
		req.Topics = append(req.Topics, rt)
		if got := call[*kmsg.CreatePartitionsResponse](h, req).Topics[0].ErrorCode; got != c.code {
			t.Errorf("count %d: code %d, want %d", c.count, got, c.code)
		}
	}
	if n := len(h.b.topics["t"].Partitions); n != 5 {
		t.Fatalf("%d partitions, want 5", n)
	}
}

// TestRestartKeepsEverything reopens the broker on the same storage.
func TestRestartKeepsEverything(t *testing.T) {
	h := newHarness(t, nil)
	h.createTopic("t", 2, map[string]string{"retention.ms": "1000"})
	call[*kmsg.ProduceResponse](h, produceReq("t", 1, 1, batchOf("a", "b", "c")))
	id := h.b.topics["t"].ID
	dr := kmsg.NewPtrDeleteRecordsRequest()
	drt := kmsg.NewDeleteRecordsRequestTopic()
	drt.Topic = "t"
	drt.Partitions = []kmsg.DeleteRecordsRequestTopicPartition{{Partition: 1, Offset: 2}}
	dr.Topics = append(dr.Topics, drt)
	if lw := call[*kmsg.DeleteRecordsResponse](h, dr).Topics[0].Partitions[0].LowWatermark; lw != 2 {
		t.Fatalf("low watermark %d, want 2", lw)
	}
	if err := h.b.Close(); err != nil {
		t.Fatal(err)
	}
	h.open()
	tp := h.b.topics["t"]
	if tp == nil || tp.ID != id || tp.Configs["retention.ms"] != "1000" {
		t.Fatalf("topic after restart: %+v", tp)
	}
	p := tp.Partitions[1]
	if p.log.StartOffset() != 2 || p.log.EndOffset() != 3 || p.HighWatermark != 3 {
		t.Fatalf("start %d end %d hw %d", p.log.StartOffset(), p.log.EndOffset(), p.HighWatermark)
	}
}

// TestMetadataTopicIsNotATopic: __cluster_metadata is the metadata
// quorum's log; CreateTopics refuses it as Kafka does.
func TestMetadataTopicIsNotATopic(t *testing.T) {
	h := newHarness(t, nil)
	req := kmsg.NewPtrCreateTopicsRequest()
	rt := kmsg.NewCreateTopicsRequestTopic()
	rt.Topic, rt.NumPartitions, rt.ReplicationFactor = "__cluster_metadata", 1, 1
	req.Topics = append(req.Topics, rt)
	resp := call[*kmsg.CreateTopicsResponse](h, req)
	if code := resp.Topics[0].ErrorCode; code != kerr.TopicAuthorizationFailed.Code {
		t.Fatalf("CreateTopics __cluster_metadata: %v, want TOPIC_AUTHORIZATION_FAILED", kerr.ErrorForCode(code))
	}
}

// TestProducerIDsNeverReused: after a crash and a restart, a new producer
// gets an id no earlier producer had. Reusing one would make its first
// batch (epoch 0, seq 0) look like a retry of the old producer's and be
// acknowledged without being stored.
func TestProducerIDsNeverReused(t *testing.T) {
	h := newHarness(t, nil)
	initPID := func() int64 {
		resp := call[*kmsg.InitProducerIDResponse](h, kmsg.NewPtrInitProducerIDRequest())
		if resp.ErrorCode != 0 {
			t.Fatalf("InitProducerId: %v", kerr.ErrorForCode(resp.ErrorCode))
		}
		return resp.ProducerID
	}
	seen := map[int64]bool{}
	for round := range 3 {
		for range 2 {
			id := initPID()
			if seen[id] {
				t.Fatalf("round %d: producer id %d handed out twice", round, id)
			}
			seen[id] = true
		}
		h.st.Crash()
		h.open()
	}
}
