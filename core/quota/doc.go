// Package quota holds client quotas (KIP-546 entities, KIP-13 byte
// rates) and measures clients against them (KIP-219 throttling).
//
// Quotas are values per entity: an entity is a set of components (user,
// client-id, ip), each naming one client or the default for all. The
// broker keeps them (a single broker in its metadata, a cluster in the
// metadata log) and measures each client's produce and fetch bytes with a
// sampled rate, as Kafka's ClientQuotaManager does.
//
// # Invariants
//
//   - An entity's key (Entity.Key) is canonical: components sorted by
//     type, each type at most once; two equal entities have one key.
//   - Quotas never holds an empty map for an entity: removing its last
//     value removes the entity.
//   - A Meter's rate never divides by less than (samples-1) windows, so a
//     client's first burst is measured against the whole span, as Kafka's
//     Rate does; a throttle is never longer than the span.
//   - Nothing here reads a clock: times come in as milliseconds.
package quota
