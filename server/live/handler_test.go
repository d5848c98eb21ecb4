package live

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// httpHandler routes a hub as server/http.go does.
func httpHandler(h *Hub) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /live", ServePage)
	mux.HandleFunc("GET /live/ws", h.ServeWS)
	return mux
}

// watch connects a watcher's socket to h, for the test's duration.
func watch(t *testing.T, h *Hub) (context.Context, *websocket.Conn) {
	t.Helper()
	srv := httptest.NewServer(httpHandler(h))
	t.Cleanup(srv.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(srv.URL, "http")+"/live/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.CloseNow() })
	return ctx, c
}
