package server

import (
	"fmt"
	"net"
	"sync"
	"time"
)

// admission enforces Kafka's max.connections and max.connections.per.ip:
// a connection over either is closed as soon as it is accepted, with a
// log line (at most one every refusalLogEvery, counting the others, so a
// flood of connections cannot flood the log too).
type admission struct {
	max, perIP int

	mu      sync.Mutex
	total   int
	byIP    map[string]int
	refused int       // since the last log line
	logged  time.Time // when the last one was written
}

const refusalLogEvery = 10 * time.Second

func newAdmission(max, perIP int64) *admission {
	return &admission{max: int(max), perIP: int(perIP), byIP: map[string]int{}}
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
