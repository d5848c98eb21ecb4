package ui

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/gregor-kafka/gregor/core/sim"
	"github.com/gregor-kafka/gregor/core/view"
)

func TestDiff(t *testing.T) {
	got := Diff("a\nb\nc", "a\nx\nc")
	var ops []string
	for _, d := range got {
		ops = append(ops, string(d.Op)+d.Text)
	}
	if s := strings.Join(ops, "|"); s != " a|-b|+x| c" {
		t.Fatalf("diff = %q", s)
	}
	if len(Diff("", "")) != 0 {
		t.Fatal("empty diff not empty")
	}
}

// world runs commands and returns it with the index of the last one.
func world(t *testing.T, cmds ...string) (*sim.World, int) {
	t.Helper()
	w := sim.New(1)
	for _, c := range cmds {
		if _, err := w.Exec(c); err != nil {
			t.Fatalf("%s: %v", c, err)
		}
	}
	return w, len(cmds) - 1
}

var setup = []string{"broker", "topic t partitions=1", "producer p1 acks=1"}

func TestExchangesPairRequestAndResponse(t *testing.T) {
	w, step := world(t, append(setup, "produce p1 t partition=0 value=a")...)
	xs := Exchanges(w.Events(), step)
	if len(xs) != 1 || xs[0].Req == nil || xs[0].Resp == nil {
		t.Fatalf("exchanges: %+v", xs)
	}
	if xs[0].Req.Msg.API != "Produce" || !xs[0].Resp.Msg.Response || xs[0].Req.Mark != "" || xs[0].Resp.Mark != "" {
		t.Fatalf("produce exchange: %+v / %+v", xs[0].Req, xs[0].Resp)
	}
	if p := xs[0].Resp.Msg.Parts; len(p) != 1 || p[0].Name != "t-0" || p[0].Error.Name != "" || p[0].Fields[0] != (Field{"base_offset", "0"}) {
		t.Fatalf("produce response parts: %+v", p)
	}
}

func TestExchangesMarkFaults(t *testing.T) {
	w, step := world(t, append(setup, "fault drop response", "produce p1 t partition=0 value=a")...)
	xs := Exchanges(w.Events(), step)
	if len(xs) == 0 || xs[0].Resp == nil || xs[0].Resp.Mark != MarkDropped {
		t.Fatalf("dropped response not marked: %+v", xs)
	}
	w, step = world(t, append(setup, "fault duplicate request", "produce p1 t partition=0 value=a")...)
	xs = Exchanges(w.Events(), step)
	var marks []string
	for _, x := range xs {
		if x.Req != nil {
			marks = append(marks, x.Req.Mark)
		}
	}
	if len(marks) < 2 || marks[0] != MarkDuplicated || marks[1] != MarkCopy {
		t.Fatalf("duplicated request marks: %q", marks)
	}
	w, step = world(t, append(setup, "crash b0", "produce p1 t partition=0 value=a")...)
	xs = Exchanges(w.Events(), step)
	if len(xs) == 0 || xs[0].Req.Mark != MarkBrokerDown || xs[0].Resp != nil {
		t.Fatalf("request to a crashed broker: %+v", xs)
	}
}

// TestExchangesForwardedAnswer: a broker forwards an admin request to
// the controller and hands the controller's answer, the same message, on
// to the admin: that is the admin's answer, not a duplicate copy.
func TestExchangesForwardedAnswer(t *testing.T) {
	w, step := world(t, "cluster 5", "topic t partitions=1 rf=3", "reassign t-0 replicas=b1,b4,b0")
	xs := Exchanges(w.Events(), step)
	forwarded := false
	for _, x := range xs {
		for _, s := range []*Side{x.Req, x.Resp} {
			if s != nil && s.Mark != "" {
				t.Errorf("%s → %s %s is marked %q", s.From, s.To, s.Msg.Describe, s.Mark)
			}
		}
		if x.Req != nil && x.Req.From == "admin" {
			if x.Resp == nil || x.Resp.From != x.Req.To {
				t.Errorf("the admin's request has no answer: %+v", x)
			}
		} else if x.Req != nil && x.Req.Msg.API == "AlterPartitionAssignments" {
			forwarded = true
		}
	}
	if !forwarded {
		t.Fatalf("no forwarded request to the controller: %+v", xs)
	}
	// The diagram numbers the arrows as they happened: the admin's
	// answer last, though its card pairs it with the admin's request.
	var order []string
	for _, a := range arrows(w.View(), xs) {
		order = append(order, a.From+">"+a.To)
	}
	if asked, answered := slices.Index(order, "b2>b0"), slices.Index(order, "b0>admin"); order[0] != "admin>b0" || asked < 0 || answered < asked {
		t.Errorf("arrows in order %v: want admin>b0 first, and b0>admin after the controller's b2>b0", order)
	}
}

func TestSnapshotAndChanges(t *testing.T) {
	w, _ := world(t, setup...)
	before := w.View()
	w.Exec("produce p1 t partition=0 value=a")
	after := w.View()
	view.MarkChanges(&before, &after)
	p := after.Brokers[0].Partitions[0]
	if p.LEO != 1 || !p.Changed["leo"] || p.Changed["start"] || len(p.Segments) != 1 || p.Segments[0].Name != "00000000000000000000.log" {
		t.Fatalf("partition after a produce: %+v", p)
	}
	var sb strings.Builder
	if err := Lesson(Page{Title: "x", Pos: 1, Total: 1, State: after, Step: &StepView{N: 1, Command: "produce"}}).Render(context.Background(), &sb); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(sb.String(), `data-partition="t-0"`) {
		t.Fatalf("rendered page lacks the partition")
	}
}
