// Package ui renders Gregor's views: the lesson list, a lesson step with
// its exchanges (request and response, built from the kmsg messages the
// simulator carried) and the state after it, drawn from a view.World:
// each replica's log as cells in segments with its markers (log start,
// LSO, high watermark, LEO), role, epoch and ISR (state_logs.templ),
// consumer groups with their assignment grid (state_groups.templ),
// transactions in the coordinator's state machine and the producers'
// ids and sequences (state_txns.templ), files; above them the cluster
// diagram of the step (diagram.go, dense.go) and the sequence of every
// message so far (sequence.go). A cluster's background traffic (raft,
// broker heartbeats and registrations; in the cards also a follower's
// idle fetches, fold.go) is folded into counts, so that a minute of a
// three-broker cluster reads as a few rows. Components are templ, with
// the generated _templ.go files committed; the Go files turn simulator
// events into plain view structs.
//
// # Invariants
//
//   - Pure: no I/O, no clock, no syscall/js. The same components render in
//     the browser (wasm/) and on the native server's first render of a page.
//   - A view is a function of its inputs: the same events and state give
//     the same markup, byte for byte.
//   - Errors are shown as Kafka spells them (describe.ErrorName).
//   - The page's own words go through T/Tr (i18n.go): a component renders
//     in the language InLang gave it, English by default; protocol words
//     and the simulator's printed lines are never translated.
package ui
