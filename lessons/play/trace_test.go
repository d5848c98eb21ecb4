package play

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/view"
	"github.com/gregor-kafka/gregor/ui"
)

// TestTracePage: a saved trace reads back as it was written, and each of
// its steps is a page: that step's exchange, the world it happened in,
// the sequence so far, links to its neighbours.
func TestTracePage(t *testing.T) {
	world := view.World{Actors: []view.Actor{{Name: "kcat", Kind: view.KindClient, Up: true}, {Name: "broker", Kind: view.KindBroker, Up: true}}}
	var tr Trace
	tr.Format, tr.Title = TraceFormat, "a test trace"
	for i, api := range []kmsg.Request{kmsg.NewPtrApiVersionsRequest(), kmsg.NewPtrMetadataRequest(), kmsg.NewPtrProduceRequest()} {
		req := &ui.Side{From: "kcat", To: "broker", Time: int64(i), Msg: ui.Message(api)}
		resp := &ui.Side{From: "broker", To: "kcat", Time: int64(i), Msg: ui.Message(api.ResponseKind())}
		tr.Steps = append(tr.Steps, TraceStep{World: world, Exchange: ui.Exchange{Req: req, Resp: resp}})
	}
	data, err := json.Marshal(tr)
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParseTrace(data)
	if err != nil {
		t.Fatal(err)
	}
	for pos, want := range map[int]string{0: "ApiVersions", 1: "ApiVersions", 2: "Metadata", 3: "Produce", 9: "Produce"} {
		p := back.Page(pos)
		n := min(max(pos, 1), 3)
		if p.Pos != n || p.Total != 3 || p.Step == nil || p.Step.Exchanges[0].Req.Msg.API != want || !strings.HasPrefix(p.Step.Command, "kcat: "+want) {
			t.Errorf("step %d: pos %d of %d, step %+v", pos, p.Pos, p.Total, p.Step)
			continue
		}
		if len(p.Sequence) != 2*n || (n > 1) != (p.PrevHref == TraceHref(n-1)) || (n < 3) != (p.NextHref == TraceHref(n+1)) || !p.Steps[n-1].Current {
			t.Errorf("step %d: %d sequence arrows, prev %q, next %q", n, len(p.Sequence), p.PrevHref, p.NextHref)
		}
		if len(p.State.Actors) != 2 {
			t.Errorf("step %d: the world has %d actors", n, len(p.State.Actors))
		}
	}
	if _, err := ParseTrace([]byte(`{"format":"something else"}`)); err == nil {
		t.Errorf("a file of another format is read as a trace")
	}
	if p := (*Trace)(nil).Page(1); p.Step != nil || p.Total != 0 {
		t.Errorf("no trace is a page with steps")
	}
	if !IsTrace("trace=1&step=2") || IsTrace("lesson=segments") || TraceStepOf("trace=1&step=2") != 2 || TraceStepOf("trace=1") != 1 {
		t.Errorf("trace URLs are not read as such")
	}
}
