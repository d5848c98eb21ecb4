package live

import "net/http"

// httpHandler routes a hub as server/http.go does.
func httpHandler(h *Hub) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /live", ServePage)
	mux.HandleFunc("GET /live/ws", h.ServeWS)
	return mux
}
