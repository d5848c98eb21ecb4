package live

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/coder/websocket"
)

type wsMsg struct {
	Type    string  `json:"type"`
	Corr    int32   `json:"corr"`
	API     string  `json:"api"`
	Paused  bool    `json:"paused"`
	Skipped uint64  `json:"skipped"`
	Filter  *Filter `json:"filter"`
}

// TestWatchSocket: the socket starts with a status, streams events, and
// answers each control with a status sent after the events before it.
func TestWatchSocket(t *testing.T) {
	var h Hub
	ctx, c := watch(t, &h)
	read := func() wsMsg {
		t.Helper()
		_, data, err := c.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var m wsMsg
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatalf("%q: %v", data, err)
		}
		return m
	}
	control := func(s string) {
		t.Helper()
		if err := c.Write(ctx, websocket.MessageText, []byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	if m := read(); m.Type != "status" || m.Paused || m.Skipped != 0 {
		t.Fatalf("first message %+v, want a status", m)
	}
	if !h.Watched() {
		t.Fatal("a connected socket does not watch")
	}
	h.Publish(event(1, 0, "app", "Produce", "orders"))
	if m := read(); m.Type != "event" || m.Corr != 0 || m.API != "Produce" {
		t.Errorf("got %+v, want the Produce event", m)
	}
	control(`{"type":"filter","filter":{"apis":["Fetch"]}}`)
	if m := read(); m.Type != "status" || len(m.Filter.APIs) != 1 {
		t.Errorf("after a filter: %+v", m)
	}
	h.Publish(event(1, 1, "app", "Produce"))
	h.Publish(event(1, 2, "app", "Fetch"))
	control(`{"type":"pause"}`)
	if m := read(); m.Type != "event" || m.Corr != 2 {
		t.Errorf("filtered stream: %+v, want the Fetch event (corr 2)", m)
	}
	if m := read(); m.Type != "status" || !m.Paused {
		t.Errorf("after pause: %+v", m)
	}
	h.Publish(event(1, 3, "app", "Fetch"))
	control(`{"type":"resume"}`)
	if m := read(); m.Type != "status" || m.Paused {
		t.Errorf("after resume: %+v", m)
	}
	h.Publish(event(1, 4, "app", "Fetch"))
	if m := read(); m.Type != "event" || m.Corr != 4 {
		t.Errorf("after resume: %+v, want corr 4 (3 came while paused)", m)
	}
	control(`{"type":"filter","filter":{"apis":["Frobnicate"]}}`)
	_, _, err := c.Read(ctx)
	var ce websocket.CloseError
	if !errors.As(err, &ce) || ce.Code != websocket.StatusPolicyViolation || !strings.Contains(ce.Reason, `unknown API "Frobnicate"`) {
		t.Errorf("a bad filter: %v", err)
	}
}
