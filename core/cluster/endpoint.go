package cluster

// Endpoint is one listener of a broker as clients reach it: Kafka's
// BrokerEndpoint of RegisterBrokerRecord (KIP-631), a listener name with
// its advertised host and port. A broker registers every listener it has
// (KIP-103: PLAINTEXT for one network, SSL for another), and Metadata
// answers a client with the endpoints of the listener it connected to.
type Endpoint struct {
	Name string `json:"name"`
	Host string `json:"host"`
	Port int32  `json:"port"`
}

// Endpoint is the broker's address on the named listener: the endpoint of
// that name, or Host and Port (its first listener) when it registered
// none of that name (an older registration, or a listener it lacks).
func (b *Broker) Endpoint(listener string) (string, int32) {
	for _, e := range b.Endpoints {
		if e.Name == listener {
			return e.Host, e.Port
		}
	}
	return b.Host, b.Port
}
