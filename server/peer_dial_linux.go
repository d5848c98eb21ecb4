//go:build linux

package server

import (
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// peerDialer dials peer links with TCP_USER_TIMEOUT set to
// peerUnackedTimeout: a connection whose sent data stays unacknowledged
// that long (the peer's link is down, a cable pulled) is closed by the
// kernel, and the link redials once the peer answers again. Without it a
// connection outlives a network split, and after the heal its frames wait
// for TCP's retransmission backoff, seconds after a 10 s split, while
// followers, heartbeats and raft go unanswered.
func peerDialer() *net.Dialer {
	return &net.Dialer{Timeout: peerDialTimeout, Control: func(_, _ string, c syscall.RawConn) error {
		var serr error
		err := c.Control(func(fd uintptr) {
			serr = unix.SetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_USER_TIMEOUT, int(peerUnackedTimeout.Milliseconds()))
		})
		if err != nil {
			return err
		}
		return serr
	}}
}
