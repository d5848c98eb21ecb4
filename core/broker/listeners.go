package broker

import (
	"reflect"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/cluster"
)

// Listeners (KIP-103). A broker may listen on several named listeners
// (PLAINTEXT for one network, SSL or SASL_SSL for another), each with its
// own advertised host and port. A client is told the addresses of the
// listener it connected through: Metadata, DescribeCluster and
// FindCoordinator name every broker by its endpoint of Request.Listener.
//
// Invariants:
//   - Config.Host and Config.Port are the first listener's endpoint; a
//     request with no listener (the simulator, a peer) or with one a
//     broker lacks is answered with those, as before listeners existed.
//   - A clustered broker registers all its listeners with the controller
//     (BrokerRegistration), so every broker can answer for every other.

// DefaultListener is the name of the one listener of a broker configured
// with Host and Port alone.
const DefaultListener = "PLAINTEXT"

// listeners are the broker's own endpoints, the first at Host and Port.
func (b *Broker) listeners() []cluster.Endpoint {
	if len(b.cfg.Listeners) > 0 {
		return b.cfg.Listeners
	}
	return []cluster.Endpoint{{Name: DefaultListener, Host: b.cfg.Host, Port: b.cfg.Port}}
}

// endpointOf is broker id's address on the listener, and false for a
// broker the metadata does not know.
func (b *Broker) endpointOf(id int32, listener string) (string, int32, bool) {
	if id == b.cfg.NodeID {
		for _, e := range b.listeners() {
			if e.Name == listener {
				return e.Host, e.Port, true
			}
		}
		return b.cfg.Host, b.cfg.Port, true
	}
	return b.image.endpoint(id, listener)
}

// advertise rewrites the broker addresses of a response, where its API
// says they are (api.addresses), for the listener the request came
// through. Handlers fill in the first listener's addresses; only a
// request on another listener needs this.
func (b *Broker) advertise(a api, listener string, resp kmsg.Response) {
	if a.addresses == nil || listener == "" || listener == b.listeners()[0].Name {
		return
	}
	a.addresses(resp, func(id int32, host *string, port *int32) {
		if h, p, ok := b.endpointOf(id, listener); ok {
			*host, *port = h, p
		}
	})
}

// listedBrokers are the addresses of an answer's Brokers, each by its
// NodeID (Metadata, DescribeCluster).
func listedBrokers(resp kmsg.Response, set func(id int32, host *string, port *int32)) {
	bs := reflect.ValueOf(resp).Elem().FieldByName("Brokers")
	for i := range bs.Len() {
		br := bs.Index(i)
		set(int32(br.FieldByName("NodeID").Int()), br.FieldByName("Host").Addr().Interface().(*string), br.FieldByName("Port").Addr().Interface().(*int32))
	}
}
