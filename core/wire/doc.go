// Package wire turns Kafka's request and response frames into kmsg messages
// and back. It does no I/O: the server reads a size-prefixed frame from a
// socket and hands the bytes here; the simulator never frames at all.
//
// # Invariants
//
//   - ParseRequest never panics on any input and never reads past the frame.
//   - A header that parses but names an API key or version kmsg does not know
//     is returned with its Header filled in and a *VersionError, so the
//     caller can still answer UNSUPPORTED_VERSION with the right correlation id.
//   - Response headers follow KIP-482: flexible responses carry an empty tagged
//     field section, except ApiVersions, whose response header is always v0 so
//     that a client can read it before it knows what the broker supports.
//   - ErrorResponse answers any request with one error code; an API whose
//     answer must list every item it asked about says how in its own file
//     (create_topics.go: CreateTopics, key 19) with errorAnswer, once.
package wire
