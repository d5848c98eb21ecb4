// Package quota holds client quotas (KIP-546 entities; KIP-13 byte rates,
// KIP-124 request time, KIP-599 controller mutations, KIP-612 connection
// creation) and measures clients against them (KIP-219 throttling).
//
// Quotas are values per entity: an entity is a set of components (user,
// client-id, ip), each naming one client or the default for all. The
// broker keeps them (a single broker in its metadata, a cluster in the
// metadata log) and measures each client with a sampled rate (Meter),
// as Kafka's ClientQuotaManager does, or, for controller mutations, with
// a token bucket (Bucket), as its ControllerMutationQuotaManager does.
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
//   - A Bucket holds at most quota × Samples × WindowMs of tokens and may
//     go into debt; its throttle is the time to repay the debt.
//   - Nothing here reads a clock: times come in as milliseconds.
package quota
