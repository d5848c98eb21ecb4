package server

import (
	"context"
	"time"
)

// controlledShutdown runs when a clustered broker is asked to stop
// (SIGTERM, Ctrl-C): it asks the controller to move its leaderships away
// (core/broker/shutdown.go, KIP-631) and keeps serving until the
// controller lets it go, or for at most broker.session.timeout.ms, after
// which the controller would have fenced it anyway (a controller that
// cannot be reached must not keep the process up). A single broker stops
// at once. It returns early if ctx ends.
func (s *Server) controlledShutdown(ctx context.Context) {
	if s.e.cl == nil {
		return
	}
	ready := make(chan struct{})
	select {
	case s.e.in <- inbound{kind: evShutdown, ready: ready}:
	case <-ctx.Done():
		return
	}
	bound := time.Duration(s.cfg.Settings.Int64("broker.session.timeout.ms")) * time.Millisecond
	start := time.Now()
	select {
	case <-ready:
		s.cfg.Logf("controlled shutdown: done in %v", time.Since(start).Round(time.Millisecond))
	case <-time.After(bound):
		s.cfg.Logf("controlled shutdown: not granted within %v; stopping anyway", bound)
	case <-ctx.Done():
	}
}

// checkShutdown closes the channel of a controlled shutdown asked for once
// the broker may stop. It runs on the engine goroutine after every tick.
func (e *engine) checkShutdown() {
	if e.shutdownReady != nil && e.b.ShutdownReady() {
		close(e.shutdownReady)
		e.shutdownReady = nil
	}
}
