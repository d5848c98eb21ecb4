package broker

import "github.com/twmb/franz-go/pkg/kmsg"

// A broker's output is data, in the shape of etcd raft's RawNode.Ready:
// the calls that move it (New, Handle, HandleEnvelope, Tick, Commit,
// Receive, ApplyMetadata, ControllerMoved, BeginControlledShutdown,
// DropConnection, ...) call nothing back. They append what the driver
// must do to the broker's outbox, and after each call the driver takes
// it with Ready and carries it out in order: each Response to its
// connection, each Send to its node.
//
//   - Effects are handed over in the order they were produced, answers
//     and requests interleaved; the simulator's network queue, and so
//     every lesson's output, depends on that order.
//   - Ready hands each effect over once: it clears the outbox, and the
//     slice it returns is the driver's.
//   - Carrying out an effect may call into the broker again (a request
//     for this node's own controller, answered at once); what that call
//     appends waits for the next Ready.
//
// There is no Advance as in raft: what a Ready holds needs nothing more
// made durable. An answer that waits for a sync stays in the broker until
// Commit has synced (storage_failure.go), one that waits for the ISR until
// the high watermark covers it (acks.go); raft's "persist, then send" is
// the driver's Commit, then Ready. The next deadline is not in Ready
// either: it is state, not an effect handed over once, and NextDeadline
// walks every partition, which a driver does only when it chooses how
// long to sleep, not after every request.

// Send is a request for another node: broker To, or the active controller
// when To is ToController. The driver puts it on the wire and hands the
// answer back through Receive with ID; a request that is lost is never
// answered, and the broker gives up on it after its timeout (cluster.go).
type Send struct {
	To  int32
	ID  uint64
	Req kmsg.Request
}

// Effect is one thing for the driver to do: answer a connection
// (Response, when Send.Req is nil) or send a request (Send).
type Effect struct {
	Response Response
	Send     Send
}

// Ready is what the broker produced since the last Ready.
type Ready struct {
	// Effects are in the order they were produced, to be carried out in
	// that order.
	Effects []Effect
}

// Ready hands the driver the effects produced since the last call, and
// forgets them.
func (b *Broker) Ready() Ready {
	rd := Ready{Effects: b.outbox}
	b.outbox = nil
	return rd
}

// respond queues an answer for the driver.
func (b *Broker) respond(r Response) { b.outbox = append(b.outbox, Effect{Response: r}) }

// request queues a request for another node.
func (b *Broker) request(to int32, id uint64, req kmsg.Request) {
	b.outbox = append(b.outbox, Effect{Send: Send{To: to, ID: id, Req: req}})
}
