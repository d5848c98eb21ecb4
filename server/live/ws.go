package live

import (
	"context"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"github.com/gregor-kafka/gregor/lessons/play"
	"github.com/gregor-kafka/gregor/server/wsmsg"
)

// BufferSize is each watcher's buffer, in events: about two seconds of a
// busy client's requests and responses at the rate a browser renders.
const BufferSize = 4096

// Limits bound what a watcher may send: small control messages, a few a
// second (a person clicking filters).
var Limits = wsmsg.Limits{MaxBytes: 8 << 10, PerSecond: 10, Burst: 20}

// Control is a watcher's message to the server:
//
//	{"type":"filter","filter":{"clients":["kgo"],"apis":["Produce"],"topics":["orders"]}}
//	{"type":"pause"}   {"type":"resume"}   {"type":"status"}
//	{"type":"diagram"} (from now on, also a "view" of the latest exchanges)
//	{"type":"save"}    (a "trace" of the exchanges since "diagram")
//
// Each is answered with a Status once every event published before it has
// been sent.
type Control struct {
	Type   string  `json:"type"`
	Filter *Filter `json:"filter,omitempty"`
}

// Messages to a watcher. Each has a "type": "event" (an Event's fields),
// "status" (after each Control and first of all), "skipped" (the
// skipped counter, whenever it grew), and, once asked for with
// "diagram", "view": the HTML of the latest exchanges drawn as a
// lesson's step (Recent), at most every ViewEvery while events come;
// "trace" answers "save" with the exchanges kept since (play.Trace), for
// the playground to step through.
type (
	eventMsg struct {
		Type string `json:"type"`
		*Event
	}
	// Status is the watcher's state as the server holds it.
	Status struct {
		Type    string  `json:"type"`
		Paused  bool    `json:"paused"`
		Filter  *Filter `json:"filter"`
		Skipped uint64  `json:"skipped"`
		Buffer  int     `json:"buffer"`
	}
	skippedMsg struct {
		Type    string `json:"type"`
		Skipped uint64 `json:"skipped"`
	}
	viewMsg struct {
		Type string `json:"type"`
		HTML string `json:"html"`
	}
	traceMsg struct {
		Type  string     `json:"type"`
		Trace play.Trace `json:"trace"`
	}
)

// ViewEvery is how often a watcher's view is drawn again while events
// come, and ViewExchanges how many of the latest exchanges it draws.
const (
	ViewEvery     = 400 * time.Millisecond
	ViewExchanges = 6
)

// ServeWS is GET /live/ws: it streams the trace to one watcher until
// either side leaves or the watcher sends a bad message.
func (h *Hub) ServeWS(w http.ResponseWriter, r *http.Request) {
	c, err := websocket.Accept(w, r, nil) // same origin only
	if err != nil {
		return // Accept answered the HTTP request
	}
	wt := h.Watch(BufferSize)
	defer h.Unwatch(wt)
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	rd := wsmsg.NewReader(c, Limits, time.Now)
	status := make(chan struct{}, 1)
	status <- struct{}{} // the first message says where the watcher stands
	readErr := make(chan error, 1)
	var diagram atomic.Bool
	save := make(chan struct{}, 1)
	go func() { readErr <- readControls(ctx, rd, wt, status, &diagram, save) }()
	wsmsg.Close(c, writeLoop(ctx, c, h, wt, status, readErr, &diagram, save))
}

// readControls applies the watcher's controls and asks the writer for a
// Status after each.
func readControls(ctx context.Context, rd *wsmsg.Reader, wt *Watcher, status chan<- struct{}, diagram *atomic.Bool, save chan<- struct{}) error {
	for {
		var ctl Control
		typ, err := rd.NextInto(ctx, &ctl)
		if err != nil {
			return err
		}
		switch typ {
		case "filter":
			if ctl.Filter == nil {
				return wsmsg.Refuse(`a "filter" message needs a filter`)
			}
			if err := ctl.Filter.Validate(); err != nil {
				return wsmsg.Refuse("bad filter: %v", err)
			}
			wt.SetFilter(ctl.Filter)
		case "pause", "resume":
			wt.SetPaused(typ == "pause")
		case "status":
		case "diagram":
			diagram.Store(true)
		case "save":
			select {
			case save <- struct{}{}:
			default: // one is pending already
			}
			continue // the trace is the answer
		default:
			return wsmsg.Refuse("unknown message type %q (want filter, pause, resume, status, diagram or save)", typ)
		}
		select {
		case status <- struct{}{}:
		default: // one is pending already; it will say the same
		}
	}
}

// writeLoop sends events, statuses and the skipped counter in order, until
// the reader fails or the request ends; once the watcher asked for the
// diagram, it also keeps the latest exchanges and sends their view.
func writeLoop(ctx context.Context, c *websocket.Conn, h *Hub, wt *Watcher, status <-chan struct{}, readErr <-chan error, diagram *atomic.Bool, save <-chan struct{}) error {
	var reported uint64
	var recent *Recent
	var redraw <-chan time.Time // nil until the diagram is asked for
	var ticker *time.Ticker
	defer func() {
		if ticker != nil {
			ticker.Stop()
			h.DrawState(false)
		}
	}()
	draw := func() { // once the watcher asked for the diagram
		if recent == nil && diagram.Load() {
			recent = &Recent{Max: ViewExchanges, Peers: h.Peers}
			ticker = time.NewTicker(ViewEvery)
			redraw = ticker.C
			h.DrawState(true)
		}
	}
	send := func(ev *Event) error {
		draw()
		if recent != nil {
			recent.Add(ev)
		}
		if ev.Dir == State {
			return nil // only for the view
		}
		return wsmsg.Write(ctx, c, eventMsg{Type: "event", Event: ev})
	}
	for {
		select {
		case <-save:
			var t play.Trace
			if recent != nil {
				t = recent.Trace("Live trace, saved " + time.Now().Format("2006-01-02 15:04:05"))
			}
			t.Format = play.TraceFormat
			if err := wsmsg.Write(ctx, c, traceMsg{Type: "trace", Trace: t}); err != nil {
				return err
			}
		case <-redraw:
			if recent.Changed() {
				if err := wsmsg.Write(ctx, c, viewMsg{Type: "view", HTML: string(recent.Render())}); err != nil {
					return err
				}
			}
		case ev := <-wt.Events():
			if err := send(ev); err != nil {
				return err
			}
		case <-status:
			draw() // the broker's state comes before any event does
			// Everything published before the control goes out first.
			for n := len(wt.Events()); n > 0; n-- {
				if err := send(<-wt.Events()); err != nil {
					return err
				}
			}
			reported = wt.Skipped()
			st := Status{Type: "status", Paused: wt.Paused(), Filter: wt.Filter(), Skipped: reported, Buffer: cap(wt.Events())}
			if err := wsmsg.Write(ctx, c, st); err != nil {
				return err
			}
		case err := <-readErr:
			return err
		case <-ctx.Done():
			return ctx.Err()
		}
		if s := wt.Skipped(); s != reported {
			reported = s
			if err := wsmsg.Write(ctx, c, skippedMsg{Type: "skipped", Skipped: s}); err != nil {
				return err
			}
		}
	}
}
