package server

import (
	"net"
	"testing"
	"time"
)

// TestPeerSessionLifetime: with connections.max.reauth.ms, a node gives a
// peer's SASL session that lifetime (KIP-368), and closes the peer's
// connection at the first frame that arrives after it expired, saying
// why.
func TestPeerSessionLifetime(t *testing.T) {
	const lifetime = 300 * time.Millisecond
	addr, logged := startPeerNode(t, &PeerSecurity{Listener: "CONTROLLER", Mechanism: "PLAIN", User: "broker", Password: "b-secret",
		Accept: Security{Mechanisms: []string{"PLAIN"}, PlainUsers: map[string]string{"broker": "b-secret"}}},
		"User:broker", lifetime)
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	l := &peerLink{self: 2, addr: addr, sec: &PeerSecurity{Listener: "CONTROLLER", Mechanism: "PLAIN", User: "broker", Password: "b-secret"}}
	got, err := l.authenticate(nc)
	if err != nil {
		t.Fatal(err)
	}
	if got != lifetime {
		t.Fatalf("session lifetime %v, want %v", got, lifetime)
	}
	time.Sleep(lifetime + 50*time.Millisecond) // the session's length, not a synchronisation
	if _, err := nc.Write(finishFrame(append(frameHeader(frameRaft, 2), 0))); err != nil {
		t.Fatal(err)
	}
	if !closed(nc) {
		t.Error("a frame after the session expired left the connection open")
	}
	if err := logged("the SASL session of User:broker expired (connections.max.reauth.ms) without re-authentication: closing"); err != nil {
		t.Error(err)
	}
}
