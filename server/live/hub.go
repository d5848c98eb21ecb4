package live

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// Hub fans events out from the engine to the watchers. The zero Hub has
// no watchers and is ready to use.
type Hub struct {
	mu       sync.Mutex // serialises Watch and Unwatch
	watchers atomic.Pointer[[]*Watcher]
	count    atomic.Int32
	drawing  atomic.Int32 // watchers that draw the broker's state (DrawState)
	newDraw  atomic.Bool  // one started drawing since the last NewDrawer
	// Peers is every node's HTTP address (node id -> host:port), for the
	// views' links to the other replicas' /live pages; set before the
	// hub serves, read only after.
	Peers map[int32]string
}

// WantsState reports whether a watcher draws the broker's state: then a
// response's Event may carry it (Event.State).
func (h *Hub) WantsState() bool { return h.drawing.Load() > 0 }

// NewDrawer reports, once, that a watcher started drawing the broker's
// state since the last call: it needs the state before any response.
func (h *Hub) NewDrawer() bool { return h.newDraw.Swap(false) }

// DrawState counts a watcher that draws the broker's state in or out.
func (h *Hub) DrawState(on bool) {
	if on {
		h.drawing.Add(1)
		h.newDraw.Store(true)
	} else {
		h.drawing.Add(-1)
	}
}

// Watched reports whether anyone watches: the one atomic load a hook
// makes before building an Event.
func (h *Hub) Watched() bool { return h.count.Load() > 0 }

// Publish offers ev to every watcher without blocking. ev must not be
// modified afterwards: watchers share it.
func (h *Hub) Publish(ev *Event) {
	ws := h.watchers.Load()
	if ws == nil {
		return
	}
	for _, w := range *ws {
		w.offer(ev)
	}
}

// Watch adds a watcher with a buffer of size events.
func (h *Hub) Watch(size int) *Watcher {
	w := &Watcher{events: make(chan *Event, size)}
	w.filter.Store(&Filter{})
	h.mu.Lock()
	defer h.mu.Unlock()
	var next []*Watcher
	if old := h.watchers.Load(); old != nil {
		next = slices.Clone(*old)
	}
	next = append(next, w)
	h.watchers.Store(&next)
	h.count.Store(int32(len(next)))
	return w
}

// Unwatch removes a watcher; it receives nothing more.
func (h *Hub) Unwatch(w *Watcher) {
	h.mu.Lock()
	defer h.mu.Unlock()
	old := h.watchers.Load()
	if old == nil {
		return
	}
	next := slices.DeleteFunc(slices.Clone(*old), func(x *Watcher) bool { return x == w })
	h.watchers.Store(&next)
	h.count.Store(int32(len(next)))
}

// Watcher is one subscriber: a bounded buffer of events, its filter, and
// what it lost.
type Watcher struct {
	events  chan *Event
	filter  atomic.Pointer[Filter]
	paused  atomic.Bool
	skipped atomic.Uint64
}

// Events is the watcher's buffer, in publication order.
func (w *Watcher) Events() <-chan *Event { return w.events }

// Skipped is how many selected events were dropped because the buffer
// was full.
func (w *Watcher) Skipped() uint64 { return w.skipped.Load() }

// SetFilter selects the events the watcher receives from now on.
func (w *Watcher) SetFilter(f *Filter) { w.filter.Store(f) }

// Filter is the current selection.
func (w *Watcher) Filter() *Filter { return w.filter.Load() }

// SetPaused stops (true) or restarts (false) delivery. Events published
// while paused are not selected, so they do not count as skipped.
func (w *Watcher) SetPaused(p bool) { w.paused.Store(p) }

// Paused reports whether delivery is paused.
func (w *Watcher) Paused() bool { return w.paused.Load() }

func (w *Watcher) offer(ev *Event) {
	if w.paused.Load() || !w.filter.Load().Match(ev) {
		return
	}
	select {
	case w.events <- ev:
	default:
		w.skipped.Add(1)
	}
}

// Filter selects events. An empty list selects everything on that axis;
// the axes combine with AND, the entries of one list with OR.
type Filter struct {
	Clients []string `json:"clients"` // client.id, exactly
	APIs    []string `json:"apis"`    // API names as Kafka spells them: Produce, Fetch
	Topics  []string `json:"topics"`  // an event matches if it names one
}

// Filter bounds: a watcher's filter is small.
const (
	maxFilterEntries = 32
	maxFilterEntry   = 249 // Kafka's longest topic name
)

// Validate checks the bounds and that each API is one Kafka has.
func (f *Filter) Validate() error {
	for _, list := range [][]string{f.Clients, f.APIs, f.Topics} {
		if len(list) > maxFilterEntries {
			return fmt.Errorf("a filter list holds at most %d entries", maxFilterEntries)
		}
		for _, s := range list {
			if len(s) > maxFilterEntry {
				return fmt.Errorf("a filter entry is at most %d bytes", maxFilterEntry)
			}
		}
	}
	for _, api := range f.APIs {
		if _, ok := apiKey(api); !ok {
			return fmt.Errorf("unknown API %q", api)
		}
	}
	return nil
}

// Match reports whether ev is selected.
func (f *Filter) Match(ev *Event) bool {
	if ev.Dir == State {
		return true // not a message: the state the view draws
	}
	if len(f.Clients) > 0 && !slices.Contains(f.Clients, ev.Client) {
		return false
	}
	if len(f.APIs) > 0 && !slices.ContainsFunc(f.APIs, func(a string) bool { return strings.EqualFold(a, ev.API) }) {
		return false
	}
	if len(f.Topics) > 0 && !slices.ContainsFunc(ev.Topics, func(t string) bool { return slices.Contains(f.Topics, t) }) {
		return false
	}
	return true
}

// apiKey finds an API by its name, ignoring case.
func apiKey(name string) (int16, bool) {
	for k := range int16(kmsg.MaxKey + 1) {
		if strings.EqualFold(kmsg.NameForKey(k), name) {
			return k, true
		}
	}
	return 0, false
}
