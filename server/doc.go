// Package server is Gregor's native home: it drives the pure core/broker
// engine with real sockets, files, the wall clock and goroutines.
//
// One engine goroutine owns the Broker. Each connection has a reader
// goroutine, which frames and decodes requests in parallel with the engine,
// and a writer goroutine, which encodes responses and writes them in request
// order. Requests may be pipelined: the reader does not wait for a response
// before reading the next request (Kafka's clients keep up to
// max.in.flight.requests.per.connection outstanding).
//
// # Bounds
//
// What a stranger can make the server hold or spend is bounded: a frame's
// buffer grows as its bytes arrive, up to socket.request.max.bytes; a
// connection's outstanding requests, acks=0 produces included, are at most
// 128 and 16 MiB (one larger request passes alone); max.connections and
// max.connections.per.ip close the connections over them; a URL the HTTP
// side prerenders is replayed within play.ServerBudget (422 beyond it),
// a few at a time.
//
// # Panics
//
// A panic where no broker state is touched — decoding a request, encoding
// a response, on the connection's own goroutines — is a bug met on one
// connection: it is logged with its stack and closes that connection
// (Kafka closes a connection whose request it cannot parse). A panic on
// the engine goroutine (Handle, Tick, Commit, the cluster's events) may
// have left a partition half-updated: a record appended without its
// producer state, a high watermark moved without the ack. The engine does
// not carry on with that state: it logs what it was doing and panics
// again, which ends the process, and the restart recovers from the data
// directory as after kill -9 (unacknowledged writes may or may not be
// there; acknowledged ones are).
//
// # Security
//
// Security (listeners.go, security.go, jaas.go, tls.go, sasl.go,
// peer_sasl.go, principal.go): each listener has a security protocol and
// settings resolved per listener (listener.name.<listener>.<setting>);
// SSL listeners are TLS, SASL listeners authenticate a connection in its
// reader goroutine before any request but ApiVersions reaches the engine,
// and every request carries the connection's principal for the ACLs the
// broker enforces. The controller listener secures the links between
// nodes with mutual TLS or SASL. Metrics
// (metrics.go) count on the engine goroutine and read state there when
// Prometheus scrapes.
//
// # Invariants
//
//   - Only the engine goroutine touches the Broker, and every call into it
//     is followed by engine.flush, which carries out the broker's Ready in
//     order; nothing the broker produces is carried out inside its call.
//   - Responses on a connection are written in the order its requests were
//     read, whatever their correlation ids: the engine sees each request
//     under a number of the connection's own. A request that gets no
//     response (acks=0) holds no place.
//   - A bad frame closes only its own connection, with a logged reason.
//   - On a SASL listener, nothing but ApiVersions, SaslHandshake and
//     SaslAuthenticate is read from a connection before it authenticates;
//     on a SASL controller listener, nothing but SASL frames.
//   - The engine calls Broker.Commit after each batch of requests it drained,
//     so produce requests that need an fsync share one (group commit).
//   - No recover() runs on the engine goroutine.
package server
