package view

// StartTime is the virtual clock's reading when a world begins (Unix ms).
const StartTime = 1_000_000

// Event is one line of what happened in a world, with the message behind
// it if any: what the simulator records (core/sim) and the pages draw as
// exchanges and lines (ui).
type Event struct {
	Step     int    // index of the command that caused it
	Time     int64  // virtual ms since the Unix epoch; StartTime at the start
	Kind     string // send, deliver, drop, duplicate, delay, state, note, error
	From, To string
	Msg      any // the kmsg request or response, or nil
	Text     string
}
