package server

import (
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"

	"github.com/gregor-kafka/gregor/core/cluster"
)

// Listeners as Kafka configures them (KIP-103):
//
//	listeners=PLAINTEXT://0.0.0.0:9092,SSL://0.0.0.0:9093
//	advertised.listeners=PLAINTEXT://kafka.example:9092,SSL://kafka.example:9093
//	listener.security.protocol.map=PLAINTEXT:PLAINTEXT,SSL:SSL
//
// Each listener has a name and a security protocol (PLAINTEXT, SSL,
// SASL_PLAINTEXT, SASL_SSL; the map gives the protocol of each name, and
// the four protocol names map to themselves by default). A client is told
// the advertised addresses of the listener it connected through; a
// listener without an advertised entry advertises its bound address (a
// wildcard bind advertises 127.0.0.1). The listener named by
// controller.listener.names is the node's peer address (--controller-addr):
// raft messages, controller requests and follower fetches travel on it,
// and clients never see it. With SSL every node presents its certificate
// and requires its peers' (mutual TLS, tls.go); with SASL_PLAINTEXT or
// SASL_SSL nodes authenticate each other with SASL (security.go).

// Protocol is a listener's security protocol, as Kafka names it.
type Protocol string

const (
	Plaintext     Protocol = "PLAINTEXT"
	SSL           Protocol = "SSL"
	SASLPlaintext Protocol = "SASL_PLAINTEXT"
	SASLSSL       Protocol = "SASL_SSL"
)

var protocols = []Protocol{Plaintext, SSL, SASLPlaintext, SASLSSL}

// TLS reports whether the protocol runs over TLS.
func (p Protocol) TLS() bool { return p == SSL || p == SASLSSL }

// SASL reports whether the protocol authenticates with SASL.
func (p Protocol) SASL() bool { return p == SASLPlaintext || p == SASLSSL }

// Listener is one configured listener.
type Listener struct {
	Name     string
	Protocol Protocol
	// Addr is where it binds (host:port; an empty host is every
	// interface). Advertised is what clients are told; empty: the
	// bound address.
	Addr       string
	Advertised string
}

// ListenerSettings are the listener settings under Kafka's names; empty
// strings are unset.
type ListenerSettings struct {
	Listeners           string // listeners
	Advertised          string // advertised.listeners
	ProtocolMap         string // listener.security.protocol.map
	InterBrokerListener string // inter.broker.listener.name
	ControllerListeners string // controller.listener.names
}

// ParseListeners turns the settings into the client listeners, in the
// order given, and the controller listener (zero if none is named). kafkaAddr (--kafka-addr) is the one PLAINTEXT listener when
// listeners is unset.
func ParseListeners(s ListenerSettings, kafkaAddr string) (client []Listener, controller Listener, err error) {
	protoOf := map[string]Protocol{}
	for _, p := range protocols {
		protoOf[string(p)] = p
	}
	if s.ProtocolMap != "" {
		protoOf = map[string]Protocol{}
		for _, kv := range splitList(s.ProtocolMap) {
			name, proto, ok := strings.Cut(kv, ":")
			if !ok || !slices.Contains(protocols, Protocol(proto)) {
				return nil, Listener{}, fmt.Errorf("listener.security.protocol.map: %q: want NAME:PROTOCOL with PROTOCOL one of %v", kv, protocols)
			}
			protoOf[name] = Protocol(proto)
		}
	}
	spec := s.Listeners
	if spec == "" {
		spec = "PLAINTEXT://" + kafkaAddr
	}
	all, err := parseEndpoints("listeners", spec)
	if err != nil {
		return nil, Listener{}, err
	}
	adv, err := parseEndpoints("advertised.listeners", s.Advertised)
	if err != nil {
		return nil, Listener{}, err
	}
	ctl := splitList(s.ControllerListeners)
	ports := map[string]string{}
	for _, e := range all {
		p, ok := protoOf[e.name]
		if !ok {
			return nil, Listener{}, fmt.Errorf("listeners: %s has no security protocol: add %s:PROTOCOL to listener.security.protocol.map", e.name, e.name)
		}
		if _, port, _ := net.SplitHostPort(e.addr); port != "0" {
			if other, dup := ports[port]; dup {
				return nil, Listener{}, fmt.Errorf("listeners: %s and %s both use port %s", other, e.name, port)
			}
			ports[port] = e.name
		}
		if slices.Contains(ctl, e.name) {
			if controller.Addr != "" {
				return nil, Listener{}, fmt.Errorf("controller.listener.names: only one controller listener is supported")
			}
			controller = Listener{Name: e.name, Protocol: p, Addr: e.addr}
			continue
		}
		l := Listener{Name: e.name, Protocol: p, Addr: e.addr}
		for _, a := range adv {
			if a.name == e.name {
				l.Advertised = a.addr
			}
		}
		client = append(client, l)
	}
	for _, a := range adv {
		if !slices.ContainsFunc(client, func(l Listener) bool { return l.Name == a.name }) {
			return nil, Listener{}, fmt.Errorf("advertised.listeners: %s is not one of listeners (%s)", a.name, spec)
		}
	}
	if len(client) == 0 {
		return nil, Listener{}, fmt.Errorf("listeners: no listener for clients in %q", spec)
	}
	if n := s.InterBrokerListener; n != "" && !slices.ContainsFunc(client, func(l Listener) bool { return l.Name == n }) {
		return nil, Listener{}, fmt.Errorf("inter.broker.listener.name: %s is not one of listeners (%s)", n, spec)
	}
	return client, controller, nil
}

type endpoint struct{ name, addr string }

// parseEndpoints parses NAME://host:port,... (an empty host binds every
// interface; [::1] brackets an IPv6 host).
func parseEndpoints(key, spec string) ([]endpoint, error) {
	var out []endpoint
	for _, item := range splitList(spec) {
		name, addr, ok := strings.Cut(item, "://")
		if !ok || name == "" || strings.ToUpper(name) != name {
			return nil, fmt.Errorf("%s: %q: want NAME://host:port with an upper-case NAME", key, item)
		}
		if _, port, err := net.SplitHostPort(addr); err != nil {
			return nil, fmt.Errorf("%s: %q: %w", key, item, err)
		} else if n, err := strconv.ParseUint(port, 10, 16); err != nil {
			return nil, fmt.Errorf("%s: %q: bad port %q", key, item, port)
		} else if key == "advertised.listeners" && n == 0 {
			return nil, fmt.Errorf("%s: %q: an advertised port cannot be 0", key, item)
		}
		if slices.ContainsFunc(out, func(e endpoint) bool { return e.name == name }) {
			return nil, fmt.Errorf("%s: listener %s given twice", key, name)
		}
		out = append(out, endpoint{name, addr})
	}
	return out, nil
}

func splitList(s string) []string {
	var out []string
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}

// kafkaListener is a bound listener.
type kafkaListener struct {
	Listener
	ln net.Listener
}

// endpoint is what the broker advertises for l: its advertised address,
// or the bound one (a wildcard bind advertises loopback).
func (l *kafkaListener) endpoint() (cluster.Endpoint, error) {
	e := cluster.Endpoint{Name: l.Name}
	if l.Advertised != "" {
		host, port, err := net.SplitHostPort(l.Advertised)
		if err != nil {
			return e, err
		}
		p, err := strconv.Atoi(port)
		e.Host, e.Port = host, int32(p)
		return e, err
	}
	host, port, err := advertised(l.ln.Addr())
	e.Host, e.Port = host, port
	return e, err
}
