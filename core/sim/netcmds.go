package sim

import (
	"fmt"
	"strconv"
)

func init() {
	commands[netActor] = cmdNet
	commands["deliver"] = cmdDeliver
	commands["drop"] = cmdMessageFault
	commands["duplicate"] = cmdMessageFault
	commands["delay"] = cmdMessageFault
	commands["swap"] = cmdSwap
	commands["fault"] = cmdFault
	commands["partition"] = cmdPartition
	commands["heal"] = cmdHeal
}

// cmdPartition: partition B [B...] cuts the network between the brokers
// named and the others: every message between the two sides is lost,
// raft messages, controller requests and follower fetches alike, while
// clients still reach both sides (a leader cut off from its followers and
// the controller keeps taking produce requests).
func cmdPartition(w *World, c command) error {
	if len(c.args) == 0 {
		return fmt.Errorf("partition: name the brokers of one side, e.g. partition b1")
	}
	cut := map[string]bool{}
	for _, name := range c.args {
		if _, err := w.node(name); err != nil {
			return fmt.Errorf("partition: %w", err)
		}
		cut[name] = true
	}
	var others []string
	for _, n := range w.nodes {
		if !cut[n.Name] {
			others = append(others, n.Name)
		}
	}
	if len(others) == 0 {
		return fmt.Errorf("partition: leave at least one broker on the other side")
	}
	w.net.cut = cut
	w.notef(netActor, "note", "partitioned: %v | %v (clients reach both sides)", c.args, others)
	return nil
}

// Cut lists the brokers a network partition cuts off, sorted; nil while
// the network is whole.
func (w *World) Cut() []string {
	var out []string
	for _, n := range w.nodes {
		if w.net.cut[n.Name] {
			out = append(out, n.Name)
		}
	}
	return out
}

// cmdHeal: heal ends a network partition.
func cmdHeal(w *World, c command) error {
	if len(w.net.cut) == 0 {
		return fmt.Errorf("heal: the network is not partitioned")
	}
	w.net.cut = nil
	w.notef(netActor, "note", "healed: every broker reaches every other again")
	return nil
}

// cmdNet: net [hold|auto] switches delivery mode, then lists what is in
// flight.
func cmdNet(w *World, c command) error {
	switch {
	case c.has("hold"):
		w.net.auto = false
		w.notef(netActor, "note", "holding messages: deliver them one at a time")
	case c.has("auto"):
		w.net.auto = true
		w.notef(netActor, "note", "delivering messages as they are sent")
	}
	if len(w.net.queue) == 0 {
		w.notef(netActor, "note", "nothing in flight")
	}
	for _, m := range w.net.queue {
		due := ""
		if m.Due > w.now {
			due = fmt.Sprintf(" (due in %dms)", m.Due-w.now)
		}
		w.notef(netActor, "note", "%s%s", m, due)
	}
	for _, f := range w.net.faults {
		w.notef(netActor, "note", "armed: %s", f)
	}
	return nil
}

func (w *World) messageArg(c command, i int) (int, error) {
	s, err := c.arg(i, "message id (see: net)")
	if err != nil {
		return 0, err
	}
	id, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("%s: %q is not a message id", c.name, s)
	}
	idx := w.net.find(id)
	if idx < 0 {
		return 0, fmt.Errorf("%s: no message #%d in flight", c.name, id)
	}
	return idx, nil
}

// cmdDeliver: deliver [ID|all] hands one held message (the oldest due one
// by default) or all of them to their recipients.
func cmdDeliver(w *World, c command) error {
	if c.has("all") {
		for len(w.net.queue) > 0 {
			w.deliverAt(0)
		}
		return nil
	}
	if len(c.args) == 0 {
		if len(w.net.queue) == 0 {
			return fmt.Errorf("deliver: nothing in flight")
		}
		w.deliverAt(0)
		return nil
	}
	i, err := w.messageArg(c, 0)
	if err != nil {
		return err
	}
	w.deliverAt(i)
	return nil
}

// cmdMessageFault: drop ID | duplicate ID | delay ID DURATION acts on one
// held message now.
func cmdMessageFault(w *World, c command) error {
	i, err := w.messageArg(c, 0)
	if err != nil {
		return err
	}
	f := &fault{action: c.name}
	if c.name == "delay" {
		d, err := c.arg(1, "duration")
		if err != nil {
			return err
		}
		if f.delay, err = duration(d); err != nil {
			return err
		}
	}
	w.net.faults = append([]*fault{f}, w.net.faults...)
	w.deliverAt(i)
	return nil
}

// cmdSwap: swap ID ID exchanges two held messages' places (reordering).
func cmdSwap(w *World, c command) error {
	i, err := w.messageArg(c, 0)
	if err != nil {
		return err
	}
	j, err := w.messageArg(c, 1)
	if err != nil {
		return err
	}
	q := w.net.queue
	q[i], q[j] = q[j], q[i]
	w.notef(netActor, "note", "reordered: #%d now goes before #%d", q[min(i, j)].ID, q[max(i, j)].ID)
	return nil
}

// cmdFault: fault drop|duplicate|delay=DURATION [request|response]
// [from=X] [to=Y] arms a fault against the next matching message.
func cmdFault(w *World, c command) error {
	f := &fault{from: c.kv["from"], to: c.kv["to"]}
	switch {
	case c.has("drop"):
		f.action = "drop"
	case c.has("duplicate"):
		f.action = "duplicate"
	case c.kv["delay"] != "":
		f.action = "delay"
		var err error
		if f.delay, err = duration(c.kv["delay"]); err != nil {
			return err
		}
	default:
		return fmt.Errorf("fault: say drop, duplicate or delay=DURATION")
	}
	if c.has("request") || c.has("response") {
		resp := c.has("response")
		f.response = &resp
	}
	w.net.faults = append(w.net.faults, f)
	w.notef(netActor, "note", "armed: %s", f)
	return nil
}
