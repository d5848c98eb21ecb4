package saved

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// mapKeeper keeps links in a map, or fails as told.
type mapKeeper struct {
	links  map[string]Saved
	putErr error
	getErr error
	gotten int
}

func (k *mapKeeper) Put(id string, s Saved) error {
	if k.putErr != nil {
		return k.putErr
	}
	k.links[id] = s
	return nil
}

func (k *mapKeeper) Get(id string) (Saved, bool, error) {
	k.gotten++
	s, ok := k.links[id]
	return s, ok, k.getErr
}

// TestServer: both routes of saved links on every answer a Keeper and the
// lessons' versions can lead to.
func TestServer(t *testing.T) {
	keeper := &mapKeeper{links: map[string]Saved{}}
	var versionsErr error
	srv := &Server{
		Keeper: keeper,
		Versions: func(*http.Request) (map[string]string, error) {
			return map[string]string{"segments": "v1"}, versionsErr
		},
		NotFound: func(w http.ResponseWriter, r *http.Request) { http.Error(w, "no such saved link", http.StatusNotFound) },
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/saved", srv.ServeSave)
	mux.HandleFunc("GET /s/{id}", srv.ServeOpen)
	do := func(method, path, body string) *httptest.ResponseRecorder {
		w := httptest.NewRecorder()
		mux.ServeHTTP(w, httptest.NewRequest(method, path, strings.NewReader(body)))
		return w
	}
	answer := func(w *httptest.ResponseRecorder) map[string]string {
		t.Helper()
		var m map[string]string
		if err := json.Unmarshal(w.Body.Bytes(), &m); err != nil || w.Header().Get("Content-Type") != "application/json" {
			t.Fatalf("answer %d %q (%s): not JSON: %v", w.Code, w.Body, w.Header().Get("Content-Type"), err)
		}
		return m
	}

	w := do("POST", "/api/saved", `{"link":"en/segments/3/?v=v1&actions=2:crash+b0"}`)
	saved := answer(w)
	if w.Code != http.StatusCreated || !ValidID(saved["id"]) || saved["path"] != "s/"+saved["id"] {
		t.Fatalf("a save: %d %v", w.Code, saved)
	}
	w = do("GET", "/"+saved["path"], "")
	if w.Code != http.StatusFound || w.Header().Get("Location") != "/en/segments/3/?v=v1&actions=2:crash+b0" || w.Header().Get("Cache-Control") != "no-store" {
		t.Errorf("opening it: %d, Location %q, Cache-Control %q", w.Code, w.Header().Get("Location"), w.Header().Get("Cache-Control"))
	}

	for _, tc := range []struct {
		name, body string
		versions   error
		put        error
		want       int
	}{
		{"not JSON", `en/segments/3/`, nil, nil, http.StatusBadRequest},
		{"no such lesson", `{"link":"en/nope/3/?v=v1"}`, nil, nil, http.StatusBadRequest},
		{"an older version", `{"link":"en/segments/3/?v=v0"}`, nil, nil, http.StatusConflict},
		{"versions unavailable", `{"link":"en/segments/3/?v=v1"}`, errors.New("no assets"), nil, http.StatusServiceUnavailable},
		{"the keeper is full", `{"link":"en/segments/3/?v=v1"}`, nil, ErrFull, http.StatusInsufficientStorage},
		{"the keeper fails", `{"link":"en/segments/3/?v=v1"}`, nil, errors.New("disk on fire"), http.StatusInternalServerError},
	} {
		versionsErr, keeper.putErr = tc.versions, tc.put
		w := do("POST", "/api/saved", tc.body)
		if got := answer(w); w.Code != tc.want || got["error"] == "" || got["id"] != "" {
			t.Errorf("%s: %d %v, want %d with an error", tc.name, w.Code, got, tc.want)
		}
	}
	if len(keeper.links) != 1 {
		t.Errorf("%d links kept, want the one saved", len(keeper.links))
	}

	gotten := keeper.gotten
	for _, id := range []string{"not-an-id", "AAAA"} {
		if w := do("GET", "/s/"+id, ""); w.Code != http.StatusNotFound {
			t.Errorf("/s/%s: %d, want the 404 page", id, w.Code)
		}
	}
	if keeper.gotten != gotten {
		t.Errorf("an id NewID could not make reached the Keeper")
	}
	if w := do("GET", "/s/AAAAAAAAAAAAAAAAAAAAAA", ""); w.Code != http.StatusNotFound {
		t.Errorf("an id that names nothing: %d, want the 404 page", w.Code)
	}
	keeper.getErr = errors.New("KV unreachable")
	if w := do("GET", "/"+saved["path"], ""); w.Code != http.StatusNotFound {
		t.Errorf("a Keeper that cannot read: %d, want the 404 page", w.Code)
	}
}
