package server

import "os"

// Fatal faults end the process at once with status 1, as Kafka's do
// (ProcessTerminatingFaultHandler and LogManager's "Shutdown broker because
// all log dirs ... have failed", both Exit.halt(1)): no controlled
// shutdown, no closing of the logs, so that a supervisor restarts the
// node and its recovery starts from what reached the disk. Two faults are
// fatal:
//
//   - the metadata log could not be written (quorum.ErrHalted): the node
//     can take no further part in the quorum, and its broker would apply
//     no more metadata;
//   - a clustered broker's log dir failed (core/broker/log_dir_failure.go):
//     once the controller has moved its leaderships away, or could not be
//     told in time.

// halt logs a fatal fault and ends the process with status 1 (e.exit,
// os.Exit outside tests).
func (e *engine) halt(format string, args ...any) {
	e.logf("FATAL: "+format+"; halting with exit status 1: restart the node, its recovery starts from the data directory", args...)
	e.exit(1)
}

// checkHalt halts a broker whose log dir failed. It runs on the engine
// goroutine after every tick.
func (e *engine) checkHalt() {
	if e.b.Halted() {
		e.halt("Shutdown broker because all log dirs have failed (the controller was told: other replicas lead its partitions)")
	}
}

// exitProcess is os.Exit; tests replace engine.exit.
var exitProcess = os.Exit
