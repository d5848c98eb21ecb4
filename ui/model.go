package ui

import (
	"fmt"
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/view"
)

// Side is one message of an exchange: who sent it to whom, what it said,
// and what the network did to it.
type Side struct {
	From, To string
	Time     int64 // virtual ms since the world began
	Order    int   // its event's place in the step (Exchanges); the diagram numbers arrows by it
	Mark     string
	Msg      MsgView
	// Unprinted: the engine did not print this message (cluster.go's
	// visible: raft, broker heartbeats and registrations, a follower's
	// fetch with nothing new). It was delivered unless Mark says
	// otherwise; its answer, if unprinted too, is not in the step.
	Unprinted bool
}

// Exchange is a request and its response side by side; either may be
// missing (a dropped request, a duplicated response).
type Exchange struct {
	Req, Resp *Side
}

// Marks on a message, as the network treated it.
const (
	MarkDropped    = "dropped"
	MarkBrokerDown = "lost: broker down"
	MarkDuplicated = "duplicated"
	MarkCopy       = "duplicate copy"
	MarkDelayed    = "delayed"
	MarkLate       = "arrived late"
	MarkInFlight   = "in flight"
)

// parenNumber returns the first field of text written "(" + label + " "
// + pre + digits + post + ")", as the group of the regular expression
// \(label (pre\d+post)\) would (model_test.go checks it against regexp,
// which the browser bundle does without).
func parenNumber(text, label, pre, post string) (string, bool) {
	open := "(" + label + " " + pre
	for i := 0; ; i++ {
		j := strings.Index(text[i:], open)
		if j < 0 {
			return "", false
		}
		i += j
		start, d := i+len(open)-len(pre), i+len(open)
		for d < len(text) && '0' <= text[d] && text[d] <= '9' {
			d++
		}
		if d > i+len(open) && strings.HasPrefix(text[d:], post+")") {
			return text[start : d+len(post)], true
		}
	}
}

// Exchanges pairs the messages of one step (events whose Step is step)
// into request/response rows, in the order they happened. A message is
// tracked per route: a broker that forwards the controller's answer to
// its client (KIP-590's envelope, AlterPartitionReassignments) sends the
// same message on a second route, a message of its own, not a copy.
func Exchanges(events []view.Event, step int) []Exchange {
	const (
		sent = iota + 1
		duplicating
		delayed
		done
	)
	type track struct {
		row   int
		resp  bool
		state int
	}
	type route struct {
		msg      any
		from, to string
	}
	var rows []Exchange
	byMsg := map[route]*track{}
	stateOf := func(kind string) int {
		switch kind {
		case "send":
			return sent
		case "duplicate":
			return duplicating
		case "delay":
			return delayed
		}
		return done
	}
	sideOf := func(t *track) **Side {
		if t.resp {
			return &rows[t.row].Resp
		}
		return &rows[t.row].Req
	}
	for i, e := range events {
		if e.Step != step || e.Msg == nil {
			continue
		}
		side := &Side{From: e.From, To: e.To, Time: e.Time - view.StartTime, Order: i, Msg: Message(e.Msg), Unprinted: e.Text == ""}
		switch e.Kind {
		case "send":
			// Only a held message (net hold) is printed with its id; a
			// send without one is followed by its delivery, or is
			// delivered unprinted (a broker's background traffic).
			if id, ok := parenNumber(e.Text, MarkInFlight, "#", ""); ok {
				side.Mark = MarkInFlight + " " + id
			}
		case "deliver":
		case "drop":
			side.Mark = MarkDropped
			if strings.Contains(e.Text, "(broker down)") {
				side.Mark = MarkBrokerDown
			}
		case "duplicate":
			side.Mark = MarkDuplicated
		case "delay":
			side.Mark = MarkDelayed
			if by, ok := parenNumber(e.Text, MarkDelayed, "", "ms"); ok {
				side.Mark += " " + by
			}
		default:
			continue
		}
		t := byMsg[route{e.Msg, e.From, e.To}]
		if t != nil {
			switch {
			case t.state == sent, t.state == duplicating && e.Kind == "deliver":
				// The same copy moves on: update its row in place.
				if t.state == duplicating {
					side.Mark = MarkDuplicated
				}
				*sideOf(t) = side
				t.state = stateOf(e.Kind)
				continue
			case t.state == delayed && e.Kind == "deliver":
				side.Mark = MarkLate
			case e.Kind == "deliver":
				side.Mark = MarkCopy
			}
			if t.resp {
				rows = append(rows, Exchange{Resp: side})
			} else {
				rows = append(rows, Exchange{Req: side})
			}
			t.row, t.state = len(rows)-1, stateOf(e.Kind)
			continue
		}
		t = &track{state: stateOf(e.Kind)}
		byMsg[route{e.Msg, e.From, e.To}] = t
		resp, isResp := e.Msg.(kmsg.Response)
		if !isResp {
			rows = append(rows, Exchange{Req: side})
			t.row = len(rows) - 1
			continue
		}
		t.resp, t.row = true, -1
		// The latest open request it answers, preferring one that names
		// the same partitions: a follower's long polls for several
		// partitions wait side by side, and are answered in any order.
		for _, sameParts := range []bool{true, false} {
			for i := len(rows) - 1; i >= 0 && t.row < 0; i-- {
				r := rows[i]
				if r.Resp == nil && r.Req != nil && r.Req.From == e.To && r.Req.To == e.From &&
					r.Req.Mark != MarkDropped && r.Req.Mark != MarkBrokerDown && apiKey(r.Req) == resp.Key() &&
					(!sameParts || partNames(r.Req.Msg) == partNames(side.Msg)) {
					rows[i].Resp, t.row = side, i
				}
			}
		}
		if t.row < 0 {
			rows = append(rows, Exchange{Resp: side})
			t.row = len(rows) - 1
		}
	}
	return rows
}

func apiKey(s *Side) int16 { return s.Msg.Key }

// partNames lists the partitions (or topics) a message names.
func partNames(m MsgView) string {
	names := make([]string, len(m.Parts))
	for i, p := range m.Parts {
		names[i] = p.Name
	}
	return strings.Join(names, " ")
}

// Line is one printed line of a step, with the kind of event behind it.
type Line struct {
	Kind string // send, deliver, drop, duplicate, delay, state, note, view, error
	Text string
}

// Lines are the printed lines of one step.
func Lines(events []view.Event, step int) []Line {
	var out []Line
	for _, e := range events {
		if e.Step == step && e.Text != "" {
			out = append(out, Line{Kind: e.Kind, Text: e.Text})
		}
	}
	return out
}

// Clock renders virtual ms since the start as seconds.
func Clock(ms int64) string {
	return fmt.Sprintf("%d.%03ds", ms/1000, ms%1000)
}
