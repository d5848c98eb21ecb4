package server

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/store"
	"github.com/gregor-kafka/gregor/core/wire"
	"github.com/gregor-kafka/gregor/server/filestore"
)

// A leader's Fetch answer to a follower, its batches pinned in segment
// files, goes out byte for byte as kmsg encodes the same answer with the
// bytes copied out: by sendfile on a TCP connection, read through the
// stream on another (a TLS link's case). A range cut since it was pinned
// fails the write (ErrShort), and every range is released either way.
func TestPeerFetchFrame(t *testing.T) {
	fs, f := tempSegment(t)
	seg := make([]byte, 300<<10)
	for i := range seg {
		seg[i] = byte(i * 7)
	}
	if err := f.Append(seg); err != nil {
		t.Fatal(err)
	}
	pin := func(off, n int) wire.Span {
		s, err := f.(store.Ranger).Span(int64(off), n)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	resp := kmsg.NewPtrFetchResponse()
	resp.SetVersion(12)
	rt := kmsg.NewFetchResponseTopic()
	rt.Topic = "replicated"
	for p := range 4 {
		rp := kmsg.NewFetchResponseTopicPartition()
		rp.Partition, rp.HighWatermark = int32(p), int64(100*p)
		rt.Partitions = append(rt.Partitions, rp)
	}
	rt.Partitions[0].RecordBatches = []byte{} // ranged
	rt.Partitions[1].RecordBatches = []byte("bytes of its own")
	rt.Partitions[3].RecordBatches = []byte{} // ranged
	resp.Topics = append(resp.Topics, rt)
	copied := *resp
	copied.Topics = []kmsg.FetchResponseTopic{rt}
	copied.Topics[0].Partitions = append([]kmsg.FetchResponseTopicPartition(nil), rt.Partitions...)
	copied.Topics[0].Partitions[0].RecordBatches = seg[:100<<10]
	copied.Topics[0].Partitions[3].RecordBatches = seg[100<<10:]
	want := kmsgFrame(frameResp, 2, 9, false, copied.Key(), copied.GetVersion(), copied.AppendTo)

	// write sends the answer through writeOut on one end of a
	// connection and returns what the other end read, and the error.
	write := func(client, server net.Conn, ranged []wire.Ranged) ([]byte, error) {
		out, ok := peerFetchFrame(2, 9, resp, ranged)
		if !ok {
			t.Fatal("the answer was not laid out")
		}
		got := make(chan []byte, 1)
		go func() {
			b, _ := io.ReadAll(server)
			got <- b
		}()
		var pieces [][]byte
		w := bufio.NewWriter(client)
		err := writeOut(client, w, out, &pieces, nil)
		if err == nil {
			err = w.Flush()
		}
		client.Close()
		return <-got, err
	}
	tcp := func() (net.Conn, net.Conn) { return tcpPair(t) }
	ranged := func() []wire.Ranged {
		return []wire.Ranged{{Topic: 0, Partition: 0, Span: pin(0, 100<<10)}, {Topic: 0, Partition: 3, Span: pin(100<<10, 200<<10)}}
	}
	for _, path := range []struct {
		name string
		pair func() (net.Conn, net.Conn)
	}{{"tcp (sendfile)", tcp}, {"pipe (copied)", net.Pipe}} {
		client, server := path.pair()
		got, err := write(client, server, ranged())
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: %d bytes, %v; want kmsg's %d bytes", path.name, len(got), err, len(want))
		}
	}
	if fs.Pinned() != 0 {
		t.Fatalf("%d ranges pinned after the writes", fs.Pinned())
	}

	for _, path := range []struct {
		name string
		pair func() (net.Conn, net.Conn)
	}{{"tcp (sendfile)", tcp}, {"pipe (copied)", net.Pipe}} {
		cut := ranged()
		if err := f.Truncate(50 << 10); err != nil {
			t.Fatal(err)
		}
		client, server := path.pair()
		got, err := write(client, server, cut)
		if !errors.Is(err, filestore.ErrShort) || len(got) >= len(want) {
			t.Errorf("%s: a cut range wrote %d of %d bytes, %v; want a short frame and ErrShort", path.name, len(got), len(want), err)
		}
		if fs.Pinned() != 0 {
			t.Fatalf("%s: %d ranges pinned after a cut write", path.name, fs.Pinned())
		}
		if err := f.Append(seg[50<<10:]); err != nil { // whole again
			t.Fatal(err)
		}
	}
}
