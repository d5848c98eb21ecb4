package server

import (
	"context"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/gregor-kafka/gregor/core/quota"
)

// admission enforces Kafka's max.connections and max.connections.per.ip:
// a connection over either is closed as soon as it is accepted, with a
// log line (at most one every refusalLogEvery, counting the others, so a
// flood of connections cannot flood the log too). It also paces new
// connections to max.connection.creation.rate (KIP-612): one that would
// take the broker past it waits, and the listener accepts no other
// meanwhile. The ip entity's connection_creation_rate is the engine's
// (broker.ConnectionThrottle, engine.go).
type admission struct {
	max, perIP int
	rate       float64     // max.connection.creation.rate
	created    quota.Meter // connections per second, under mu

	mu      sync.Mutex
	total   int
	byIP    map[string]int
	refused int       // since the last log line
	logged  time.Time // when the last one was written
}

const refusalLogEvery = 10 * time.Second

func newAdmission(max, perIP, rate int64) *admission {
	return &admission{max: int(max), perIP: int(perIP), rate: float64(rate), byIP: map[string]int{}}
}

// waitCreation counts a new connection against the creation rate,
// waiting first as long as it would exceed it; false when ctx ended.
func (a *admission) waitCreation(ctx context.Context) bool {
	for {
		d := a.creationDelay(time.Now())
		if d == 0 {
			return true
		}
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return false
		}
	}
}

// creationDelay counts a new connection at now, or returns how long to
// wait before it fits the rate (it is not counted then).
func (a *admission) creationDelay(now time.Time) time.Duration {
	a.mu.Lock()
	defer a.mu.Unlock()
	ms := now.UnixMilli()
	a.created.Record(ms, 1)
	wait := a.created.Throttle(ms, a.rate)
	if wait > 0 {
		a.created.Unrecord(1)
	}
	return time.Duration(wait) * time.Millisecond
}

// admit counts a new connection from ip, or returns why it is refused
// and the log line to write now ("" to stay quiet).
func (a *admission) admit(ip string, now time.Time) (refused bool, line string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	why := ""
	switch {
	case a.total >= a.max:
		why = fmt.Sprintf("max.connections (%d) reached", a.max)
	case a.byIP[ip] >= a.perIP:
		why = fmt.Sprintf("max.connections.per.ip (%d) reached for %s", a.perIP, ip)
	}
	if why == "" {
		a.total++
		a.byIP[ip]++
		return false, ""
	}
	a.refused++
	if now.Sub(a.logged) < refusalLogEvery {
		return true, ""
	}
	line = fmt.Sprintf("closing connection from %s: %s", ip, why)
	if a.refused > 1 {
		line += fmt.Sprintf(" (%d connections refused since the last such line)", a.refused)
	}
	a.refused, a.logged = 0, now
	return true, line
}

// leave uncounts a connection from ip that closed.
func (a *admission) leave(ip string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.total--
	if a.byIP[ip]--; a.byIP[ip] == 0 {
		delete(a.byIP, ip)
	}
}

// remoteIP is the address a connection comes from, without its port.
func remoteIP(nc net.Conn) string {
	if t, ok := nc.RemoteAddr().(*net.TCPAddr); ok {
		return t.IP.String()
	}
	return nc.RemoteAddr().String()
}
