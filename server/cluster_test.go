package server

import (
	"encoding/binary"
	"testing"

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
