// Package ui renders Gregor's views: the lesson list, a lesson step with
// its exchanges (request and response, built from the kmsg messages the
// simulator carried) and the state after it (brokers, partitions with
// their log start, LEO, high watermark and LSO, segments with their index
// entries, files). Components are templ (page.templ, with the generated
// page_templ.go committed); the Go files turn simulator events and broker
// state into plain view structs.
//
// # Invariants
//
//   - Pure: no I/O, no clock, no syscall/js. The same components render in
//     the browser (wasm/) and on the native server's first render of a page.
//   - A view is a function of its inputs: the same events and state give
//     the same markup, byte for byte.
//   - Errors are shown as Kafka spells them (describe.ErrorName).
package ui
