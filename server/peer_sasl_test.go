package server

import (
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gregor-kafka/gregor/core/cluster"
	"github.com/gregor-kafka/gregor/core/config"
)

// TestPeerSASL: a node (one voter of its own quorum) on a SASL controller
// listener accepts a peer with the right password and a principal that
// may CLUSTER_ACTION, and refuses, with a log line, a wrong password, a
// principal outside super.users, a mechanism it does not offer and a
// frame sent before authenticating; a refused connection is closed.
func TestPeerSASL(t *testing.T) {
	addr, logged := startPeerNode(t, &PeerSecurity{Listener: "CONTROLLER", Mechanism: "PLAIN", User: "broker", Password: "b-secret",
		Accept: Security{Mechanisms: []string{"PLAIN", "SCRAM-SHA-512"}, PlainUsers: map[string]string{"broker": "b-secret", "intruder": "i-secret"}}},
		"User:broker", 0, "SCRAM-SHA-512=[name=broker,password=b-secret]")
	for _, tc := range []struct {
		mech, user, pass string
		refused          string // part of the refusal, "" when accepted
		logs             string // part of the node's log line
	}{
		{"PLAIN", "broker", "b-secret", "", ""},
		{"SCRAM-SHA-512", "broker", "b-secret", "", ""}, // the --add-scram credential, or the metadata's
		{"PLAIN", "broker", "wrong", "invalid credentials with SASL mechanism PLAIN", "refused node 2 (127.0.0.1:"},
		{"SCRAM-SHA-512", "broker", "wrong", "invalid credentials with SASL mechanism SCRAM-SHA-512", "SASL authentication with SCRAM-SHA-512 failed"},
		{"PLAIN", "intruder", "i-secret", "User:intruder may not CLUSTER_ACTION on the cluster: name it in super.users", "failed: User:intruder may not"},
		{"SCRAM-SHA-256", "broker", "b-secret", "SASL mechanism SCRAM-SHA-256", `SASL mechanism "SCRAM-SHA-256" (enabled: PLAIN, SCRAM-SHA-512)`},
	} {
		t.Run(tc.mech+" "+tc.user+" "+tc.pass, func(t *testing.T) {
			nc, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer nc.Close()
			l := &peerLink{self: 2, addr: addr, sec: &PeerSecurity{Listener: "CONTROLLER", Mechanism: tc.mech, User: tc.user, Password: tc.pass}}
			_, err = l.authenticate(nc)
			var refused *peerAuthError
			switch {
			case tc.refused == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.refused == "":
				return
			case !errors.As(err, &refused) || !strings.Contains(err.Error(), tc.refused):
				t.Fatalf("error %v, want a refusal saying %q", err, tc.refused)
			}
			if !closed(nc) {
				t.Error("the refused connection is still open")
			}
			if err := logged(tc.logs); err != nil {
				t.Error(err)
			}
		})
	}

	// A raft frame before authenticating never reaches the quorum.
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	if _, err := nc.Write(finishFrame(append(frameHeader(frameRaft, 3), 0))); err != nil {
		t.Fatal(err)
	}
	if !closed(nc) {
		t.Error("a connection that sent a raft frame first is still open")
	}
	if err := logged("refused node 3"); err == nil {
		t.Error("the node took the sender's id from an unauthenticated frame it refused")
	}
	if err := logged("a frame of type 1 before SASL authentication"); err != nil {
		t.Error(err)
	}
}

// startPeerNode runs a node that is the one voter of its own quorum, with
// peer security on its controller listener, an authorizer whose only
// super user is superUser and SASL sessions of reauth (0: for ever); it
// returns the listener's address and a check that the node's log says
// something.
func startPeerNode(t *testing.T, peer *PeerSecurity, superUser string, reauth time.Duration, scram ...string) (string, func(string) error) {
	t.Helper()
	b := config.NewBroker()
	if err := b.SetStatic("node.id", "1"); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var logs strings.Builder
	logf := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(&logs, format+"\n", args...)
	}
	srv := run(t, Config{KafkaAddr: "127.0.0.1:0", HTTPAddr: "127.0.0.1:0", DataDir: t.TempDir(), Settings: b, Logf: logf,
		ControllerQuorum: map[int32]string{1: "127.0.0.1:0"}, Peer: peer,
		Authorizer: &cluster.Authorizer{SuperUsers: []string{superUser}}, ScramBootstrap: scram, SASLReauth: reauth,
	})
	return srv.e.cl.ln.Addr().String(), func(want string) error {
		mu.Lock()
		defer mu.Unlock()
		if !strings.Contains(logs.String(), want) {
			return fmt.Errorf("the log does not say %q:\n%s", want, logs.String())
		}
		return nil
	}
}

// closed reports whether the node closed nc (a read ends).
func closed(nc net.Conn) bool {
	_ = nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, err := nc.Read(make([]byte, 1))
	return errors.Is(err, io.EOF)
}
