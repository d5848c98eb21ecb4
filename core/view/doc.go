// Package view is the snapshot a learner sees: what the world looks like
// after one step (brokers, their partitions' logs down to each batch, and
// files; consumer groups; transactions, coordinator and client side; the
// step's lookup; the network's cuts), as plain data. The simulator builds it after every
// step (sim.World.View), the native server builds the same from a real
// broker (Tail, Coordinated: the same builders, GroupOf and TxnOf), and
// so does the operator's console (server/console), a page at a time
// (TopicPage, TailOf, GroupsAfter, TxnsAfter, LagOf; RecordsOf decodes what its
// Fetch read); package ui draws only from it: no view reads the engine's
// internals.
//
// # Invariants
//
//   - A snapshot shares nothing with the engine: later steps never change
//     a snapshot already taken.
//   - The same world gives the same snapshot, field for field, so a step
//     drawn from a kept snapshot is the step drawn from a fresh replay.
//   - Taking a snapshot changes nothing in the world: it reads logs and
//     asks the coordinators what a client's Describe would (at time 0,
//     so their clocks do not move).
//   - A partition keeps at most MaxBatches batches, the newest; Earlier
//     counts the rest.
package view
