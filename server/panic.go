package server

import (
	"fmt"
	"runtime/debug"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/wire"
)

// The panic policy (doc.go, # Panics): a panic where no broker state is touched
// (decoding a frame, encoding an answer, on a connection's goroutines)
// closes that connection with its stack logged; a panic on the engine
// goroutine, which owns the broker, ends the process, since the state it
// leaves may be half-updated (a record appended but the producer state
// not, a group half-rebalanced). The restart recovers from the data
// directory, as after kill -9.

// recoverAs turns a panic into *err, stack included. Only code that
// touches no broker state may use it.
func recoverAs(err *error, what string) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("BUG: panic %s: %v\n%s", what, r, debug.Stack())
	}
}

// decode parses a request frame; a panic in the decoder is returned as
// an error, which closes only this connection.
func decode(frame []byte) (h wire.Header, req kmsg.Request, err error) {
	defer recoverAs(&err, "decoding a request")
	return wire.ParseRequest(frame)
}

// crashOnPanic ends the process on a panic of the engine goroutine: it
// panics again with what the engine was doing (the request, or the
// phase), so the runtime prints both, with the stack, and exits 2.
func (e *engine) crashOnPanic() {
	r := recover()
	if r == nil {
		return
	}
	doing := e.phase
	if e.phase == phaseRequest {
		h := e.cur.req.Header
		doing = fmt.Sprintf("%s %s v%d (correlation id %d) from %s", e.phase, kmsg.NameForKey(h.Key), h.Version, e.cur.corr, e.cur.conn.nc.RemoteAddr())
	}
	e.logf("FATAL: panic on the engine goroutine %s: %v: exiting, restart recovers from the data directory", doing, r)
	panic(fmt.Sprintf("gregor engine: panic %s: %v (the broker's state may be half-updated: exiting; the restart recovers it from the data directory)", doing, r))
}

// The engine's phases, for crashOnPanic.
const (
	phaseRequest = "handling"
	phaseEvent   = "handling a connection or cluster event"
	phaseTick    = "in Tick, queued work or Commit"
)
