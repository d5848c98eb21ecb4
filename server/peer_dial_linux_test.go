//go:build linux

package server

import (
	"net"
	"testing"

	"golang.org/x/sys/unix"
)

// TestPeerDialerBoundsUnacked: a peer link's socket gives up on data left
// unacknowledged for peerUnackedTimeout (TCP_USER_TIMEOUT), so a link that
// outlived a network split is redialled instead of waiting out TCP's
// retransmission backoff.
func TestPeerDialerBoundsUnacked(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	c, err := peerDialer().Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	raw, err := c.(*net.TCPConn).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var got int
	var gerr error
	if err := raw.Control(func(fd uintptr) {
		got, gerr = unix.GetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_USER_TIMEOUT)
	}); err != nil || gerr != nil {
		t.Fatal(err, gerr)
	}
	if want := int(peerUnackedTimeout.Milliseconds()); got != want {
		t.Fatalf("TCP_USER_TIMEOUT = %d ms, want %d", got, want)
	}
}
