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
// Security (listeners.go, tls.go, sasl.go, principal.go): each listener
// has a security protocol; SSL listeners are TLS, SASL listeners
// authenticate a connection in its reader goroutine before any request but
// ApiVersions reaches the engine, and every request carries the
// connection's principal for the ACLs the broker enforces. Metrics
// (metrics.go) count on the engine goroutine and read state there when
// Prometheus scrapes.
//
// # Invariants
//
//   - Only the engine goroutine touches the Broker.
//   - Responses on a connection are written in the order its requests were
//     read; a request that gets no response (acks=0) holds no place.
//   - A bad frame closes only its own connection, with a logged reason.
//   - On a SASL listener, nothing but ApiVersions, SaslHandshake and
//     SaslAuthenticate is read from a connection before it authenticates.
//   - The engine calls Broker.Commit after each batch of requests it drained,
//     so produce requests that need an fsync share one (group commit).
package server
