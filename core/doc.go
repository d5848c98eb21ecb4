// Package core is Gregor's engine: Kafka's broker, log, and protocols as
// pure Go, driven from outside.
//
// The same code runs behind the native server's sockets and files and, in
// the browser, behind a simulated network and memory storage. That works
// only because nothing under core/ does I/O but through injected
// interfaces, reads the wall clock, starts goroutines, or draws from
// global randomness.
//
// # Invariants
//
//   - No package under core/ imports os, net, os/exec, syscall, syscall/js,
//     math/rand (v1), or calls time.Now, time.Sleep, time.After, timers, or
//     math/rand/v2's global functions, and none has a go statement.
//     purity_test.go enforces it by reading every non-test source file.
//   - `GOOS=js GOARCH=wasm go build ./core/...` succeeds (make test runs it).
package core
