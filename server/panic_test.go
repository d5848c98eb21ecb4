package server

import (
	"fmt"
	"math/rand/v2"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/gregor-kafka/gregor/core/broker"
	"github.com/gregor-kafka/gregor/core/config"
	"github.com/gregor-kafka/gregor/core/store"
	"github.com/gregor-kafka/gregor/core/wire"
)

// TestPanicOffTheEngine: a panic encoding an answer (here a slot with no
// response, which the encoder dereferences) becomes an error that closes
// only its connection.
func TestPanicOffTheEngine(t *testing.T) {
	_, _, err := encodeAll(nil, nil, []*slot{{corr: 1, ready: true}})
	if err == nil || !strings.Contains(err.Error(), "BUG: panic encoding a response") || !strings.Contains(err.Error(), "encodeAll") {
		t.Fatalf("err = %v, want the panic with its stack", err)
	}
	if h, req, err := decode([]byte{0, 18, 0, 0, 0, 0, 0, 5, 0, 0}); err != nil || req == nil || h.CorrelationID != 5 {
		t.Fatalf("a good frame decodes through the guard: %v %v %v", h, req, err)
	}
}

// TestPanicOnTheEngine: a panic on the engine goroutine is not recovered:
// it panics again, naming what the engine was doing, so the process ends
// and the restart's recovery runs.
func TestPanicOnTheEngine(t *testing.T) {
	var logged []string
	e := newEngine(func(f string, a ...any) { logged = append(logged, fmt.Sprintf(f, a...)) })
	b, err := broker.New(broker.Config{NodeID: 1, Settings: config.NewBroker(), Rand: rand.New(rand.NewPCG(1, 2)), Logf: t.Logf}, store.NewMem(), time.Now().UnixMilli())
	if err != nil {
		t.Fatal(err)
	}
	e.b = b
	client, _ := net.Pipe()
	c := newConn(1, client, e, 1<<20, t.Logf)
	e.handle(inbound{conn: c, kind: evOpen})
	// A request without a message: the broker dereferences it.
	bad := inbound{conn: c, kind: evRequest, corr: 42, req: broker.Request{Conn: 1, Header: wire.Header{Key: 0, Version: 9}}}
	got := func() (r any) {
		defer func() { r = recover() }()
		defer e.crashOnPanic()
		e.handle(bad)
		return nil
	}()
	msg, _ := got.(string)
	if !strings.Contains(msg, "gregor engine: panic handling Produce v9 (correlation id 42)") || !strings.Contains(msg, "restart recovers") {
		t.Fatalf("re-panicked with %#v", got)
	}
	if len(logged) != 1 || !strings.HasPrefix(logged[0], "FATAL: panic on the engine goroutine handling Produce v9") {
		t.Fatalf("logged %q", logged)
	}
}
