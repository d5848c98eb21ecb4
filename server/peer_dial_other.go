//go:build !linux

package server

import "net"

// peerDialer dials peer links. Only Linux bounds how long sent data may
// stay unacknowledged (peer_dial_linux.go); elsewhere a link outlives a
// network split and recovers at TCP's pace.
func peerDialer() *net.Dialer { return &net.Dialer{Timeout: peerDialTimeout} }
