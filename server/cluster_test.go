package server

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
	pb "go.etcd.io/raft/v3/raftpb"
	"google.golang.org/protobuf/proto"
)

func TestParseQuorum(t *testing.T) {
	q, err := ParseQuorum("1@127.0.0.1:9192, 2@127.0.0.1:9193,3@h:9194")
	if err != nil || len(q) != 3 || q[1] != "127.0.0.1:9192" || q[3] != "h:9194" {
		t.Fatalf("ParseQuorum: %v %v", q, err)
	}
	for _, bad := range []string{"", "1@x", "a@h:1", "1@h:1,1@h:2", "h:1", "-1@h:1"} {
		if _, err := ParseQuorum(bad); err == nil {
			t.Errorf("ParseQuorum(%q): no error", bad)
		}
	}
}

// Frames between nodes decode to what was encoded.
func TestPeerFrames(t *testing.T) {
	unframe := func(f []byte) []byte {
		if int(binary.BigEndian.Uint32(f)) != len(f)-4 {
			t.Fatalf("frame size %d, have %d bytes", binary.BigEndian.Uint32(f), len(f)-4)
		}
		return f[4:]
	}
	to, term := uint64(3), uint64(7)
	typ := pb.MessageType_MsgHeartbeat
	m := &pb.Message{To: &to, Term: &term, Type: &typ}
	body, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	in, err := decodePeerFrame(unframe(finishFrame(append(frameHeader(frameRaft, 2), body...))))
	if err != nil || in.kind != evRaft || in.peer != 2 || in.raft.GetTerm() != 7 || in.raft.GetTo() != 3 {
		t.Fatalf("raft frame: %+v %v", in, err)
	}

	req := kmsg.NewPtrFetchRequest()
	req.SetVersion(12)
	req.ReplicaID = 2
	rt := kmsg.NewFetchRequestTopic()
	rt.Topic = "t"
	rp := kmsg.NewFetchRequestTopicPartition()
	rp.FetchOffset = 42
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	in, err = decodePeerFrame(unframe(kmsgFrame(frameReq, 2, 99, false, req.Key(), req.GetVersion(), req.AppendTo)))
	if err != nil || in.kind != evPeerRequest || in.id != 99 || in.ctl {
		t.Fatalf("request frame: %+v %v", in, err)
	}
	got := in.msg.(*kmsg.FetchRequest)
	if got.ReplicaID != 2 || got.Topics[0].Topic != "t" || got.Topics[0].Partitions[0].FetchOffset != 42 {
		t.Fatalf("request decoded as %+v", got)
	}

	resp := kmsg.NewPtrBrokerHeartbeatResponse()
	resp.IsFenced = true
	in, err = decodePeerFrame(unframe(kmsgFrame(frameResp, 1, 5, true, resp.Key(), 0, resp.AppendTo)))
	if err != nil || in.kind != evPeerResponse || in.id != 5 || !in.resp.(*kmsg.BrokerHeartbeatResponse).IsFenced {
		t.Fatalf("response frame: %+v %v", in, err)
	}
}

// A peer that dies and comes back on the same address gets what is sent
// to it next: the link redials rather than write into the connection it
// saw end, and an answer is not dropped in the back-off after a failed
// dial. (Either loss left a restarted follower waiting
// replica.socket.timeout.ms for the answer to its fetch.)
func TestPeerLinkAfterPeerRestart(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	e := newEngine(t.Logf)
	l := newPeerLink(1, 2, addr, nil, e)
	defer l.close()
	unreachable := func() {
		t.Helper()
		for {
			select {
			case ev := <-e.in:
				if ev.kind == evUnreachable {
					return
				}
			case <-time.After(5 * time.Second):
				t.Fatal("the link did not report the peer unreachable")
			}
		}
	}
	// receive accepts the link's connection on ln and reads want from it.
	receive := func(ln net.Listener, want []byte) net.Conn {
		t.Helper()
		got := make(chan error, 1)
		var c net.Conn
		go func() {
			var err error
			if c, err = ln.Accept(); err == nil {
				buf := make([]byte, len(want))
				_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
				if _, err = io.ReadFull(c, buf); err == nil && !bytes.Equal(buf, want) {
					err = fmt.Errorf("read %q, want %q", buf, want)
				}
			}
			got <- err
		}()
		select {
		case err := <-got:
			if err != nil {
				t.Fatal(err)
			}
			return c
		case <-time.After(5 * time.Second):
			t.Fatalf("%q was not delivered", want)
			return nil
		}
	}
	// restart kills the peer (the link sees its connection end) and
	// starts it again on the same address.
	restart := func(c net.Conn, down func()) net.Listener {
		t.Helper()
		c.Close()
		ln.Close()
		unreachable()
		down()
		if ln, err = net.Listen("tcp", addr); err != nil {
			t.Fatal(err)
		}
		return ln
	}
	frame := func(typ byte, body string) []byte {
		return finishFrame(append(frameHeader(typ, 1), body...))
	}
	defer func() { ln.Close() }()

	l.send(frame(frameRaft, "first"))
	c := receive(ln, frame(frameRaft, "first"))
	ln = restart(c, func() {})
	l.send(frame(frameRaft, "second"))
	c = receive(ln, frame(frameRaft, "second"))
	ln = restart(c, func() {
		l.send(frame(frameRaft, "lost")) // the dial fails: back-off
		unreachable()
	})
	l.send(frame(frameResp, "answer"))
	receive(ln, frame(frameResp, "answer")).Close()
}
