package server

// Re-authentication between nodes (KIP-368) on a SASL controller
// listener with connections.max.reauth.ms set. The accepting node gives
// the session's lifetime in its last SaslAuthenticate response and, as
// Kafka's brokers do, closes the connection at the first frame that
// arrives after the session expired, without handing that frame on. The
// dialing node does not re-authenticate in the middle of the stream: at
// renewPercent of the lifetime it ends the connection between two frames
// and dials again, so a fresh SASL exchange (credentials and the
// CLUSTER_ACTION check both) happens on the new one, and no frame is cut.
//
// Invariant: a peer whose credential or permission was revoked keeps its
// links no longer than one session lifetime.

// renewPercent is how far into its session's lifetime a link renews
// (Kafka's clients re-authenticate between 85% and 95%).
const renewPercent = 85
