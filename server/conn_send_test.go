package server

import (
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/broker"
	"github.com/gregor-kafka/gregor/core/store"
	"github.com/gregor-kafka/gregor/core/wire"
	"github.com/gregor-kafka/gregor/server/filestore"
)

// produceRecords writes n records of size bytes to t-0 and returns.
func produceRecords(t *testing.T, addr string, n, size int) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.DefaultProduceTopic("t"))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var recs []*kgo.Record
	for i := range n {
		recs = append(recs, &kgo.Record{Value: bytes.Repeat([]byte{byte('a' + i%26)}, size)})
	}
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
}

// fetchAll fetches all of t-0 from offset; v11, whose answer rawClient
// reads (its header has no tagged fields).
func fetchAll(offset int64) *kmsg.FetchRequest {
	req := kmsg.NewPtrFetchRequest()
	req.SetVersion(11)
	req.MaxBytes, req.MinBytes = 64<<20, 1
	rt := kmsg.NewFetchRequestTopic()
	rt.Topic = "t"
	rp := kmsg.NewFetchRequestTopicPartition()
	rp.FetchOffset, rp.PartitionMaxBytes = offset, 64<<20
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	return req
}

// waitUnpinned waits, turn by turn of the engine, until no range of the
// data directory is pinned; it fails when pins are still held after the
// engine and the writers had ten seconds to release them.
func waitUnpinned(t *testing.T, srv *Server) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for srv.fs.Pinned() != 0 {
		if !srv.e.call(func() {}) || time.Now().After(deadline) {
			t.Fatalf("%d ranges still pinned", srv.fs.Pinned())
		}
	}
}

// TestZeroCopyFetchSendsTheSegment: a plaintext Fetch of a whole
// partition carries exactly the segment file's bytes, sent by sendfile
// (gregor_fetch_sendfile_bytes_total moved by them), and holds no pin
// once answered; a connection that closes with fetch answers still
// queued releases theirs.
func TestZeroCopyFetchSendsTheSegment(t *testing.T) {
	dir := t.TempDir()
	srv := startInProcess(t, dir, nil)
	addr := srv.KafkaAddr().String()
	createTopic(t, addr, "t")
	produceRecords(t, addr, 300, 1000)
	seg, err := os.ReadFile(filepath.Join(dir, "t-0", "00000000000000000000.log"))
	if err != nil {
		t.Fatal(err)
	}

	c := dialRawClient(t, addr)
	c.send(1, fetchAll(0))
	resp := kmsg.NewPtrFetchResponse()
	resp.Version = 11
	if _, err := c.recv(resp); err != nil {
		t.Fatal(err)
	}
	if len(resp.Topics) != 1 {
		t.Fatalf("fetch answer: error %d, %d topics, throttle %d, session %d", resp.ErrorCode, len(resp.Topics), resp.ThrottleMillis, resp.SessionID)
	}
	if got := resp.Topics[0].Partitions[0].RecordBatches; !bytes.Equal(got, seg) {
		t.Fatalf("fetched %d bytes, not the segment's %d", len(got), len(seg))
	}
	// The client can have the last byte before the writer has counted
	// it: the writer counts a range once sendfile returned, and releases
	// its pin after that, so no pin held means the count is in.
	waitUnpinned(t, srv)
	fams := scrape(t, "http://"+srv.HTTPAddr().String()+"/metrics")
	if sent := value(t, fams, "gregor_fetch_sendfile_bytes_total", nil); sent < float64(len(seg)) {
		t.Fatalf("gregor_fetch_sendfile_bytes_total is %v after a fetch of %d bytes", sent, len(seg))
	}

	quitter := dialRawClient(t, addr)
	for i := range 50 {
		quitter.send(int32(i), fetchAll(0))
	}
	quitter.nc.Close()
	waitUnpinned(t, srv)
}

// TestShortRangeClosesTheConnection: a pinned range cut before its send
// (its segment truncated in place) is not sent: the connection closes
// with the frame incomplete, and the error is not a socket's.
func TestShortRangeClosesTheConnection(t *testing.T) {
	fs, f := tempSegment(t)
	if err := f.Append(make([]byte, 4096)); err != nil {
		t.Fatal(err)
	}
	span, err := f.(store.Ranger).Span(0, 4096)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(100); err != nil {
		t.Fatal(err)
	}
	client, server := tcpPair(t)
	c := newConn(1, server, newEngine(t.Logf), 1<<20, t.Logf)
	resp := kmsg.NewPtrFetchResponse()
	resp.Version = 12
	rt := kmsg.NewFetchResponseTopic()
	rt.Partitions = append(rt.Partitions, kmsg.NewFetchResponseTopicPartition())
	rt.Partitions[0].RecordBatches = []byte{}
	resp.Topics = append(resp.Topics, rt)
	ranged := []wire.Ranged{{Topic: 0, Partition: 0, Span: span}}
	var pieces net.Buffers
	_, _, err = c.writeSlots(nil, nil, &pieces, []*slot{{corr: 7, resp: resp, ranged: ranged, ready: true}})
	if !errors.Is(err, filestore.ErrShort) || errors.Is(err, errSocket) {
		t.Fatalf("writing a cut range: %v, want ErrShort", err)
	}
	broker.Release(ranged)
	server.Close()
	got := new(bytes.Buffer)
	if _, err := got.ReadFrom(client); err != nil {
		t.Fatal(err)
	}
	size := int(got.Bytes()[0])<<24 | int(got.Bytes()[1])<<16 | int(got.Bytes()[2])<<8 | int(got.Bytes()[3])
	if got.Len() >= 4+size {
		t.Fatalf("the client read %d bytes of a %d-byte frame: a whole frame went out", got.Len(), 4+size)
	}
	if fs.Pinned() != 0 {
		t.Fatalf("%d ranges pinned", fs.Pinned())
	}
}

// tempSegment is a new file of a new file store, closed when the test
// ends.
func tempSegment(t *testing.T) (*filestore.FS, store.File) {
	t.Helper()
	fs, err := filestore.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f, err := fs.Create("seg.log")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return fs, f
}

// tcpPair is the two ends of a loopback TCP connection, closed when the
// test ends.
func tcpPair(t *testing.T) (client, server net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if client, err = net.Dial("tcp", ln.Addr().String()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	if server, err = ln.Accept(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { server.Close() })
	return client, server
}
