package linkstore

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var versions = map[string]string{"segments": "00112233aabbccdd"}

func notFound(w http.ResponseWriter, r *http.Request) {
	http.Error(w, "the 404 page", http.StatusNotFound)
}

// serve is a store's two routes, as `gregor serve` mounts them.
func serve(s *Store) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/saved", s.ServeSave)
	mux.HandleFunc("GET /s/{id}", s.ServeOpen)
	return mux
}

func save(t *testing.T, h http.Handler, addr, body string) (int, map[string]string) {
	t.Helper()
	req := httptest.NewRequest("POST", "/api/saved", strings.NewReader(body))
	req.RemoteAddr = addr
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	var out map[string]string
	if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
		t.Fatalf("%s: the answer is not JSON: %q", body, rec.Body.String())
	}
	return rec.Code, out
}

func open(h http.Handler, path string) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
	return rec
}

// TestSaveAndOpen: a saved link opens as a redirect to what was sent, also
// after the store is opened again (a restart); what is not a link to save
// is refused with its reason, and an id that names nothing is the 404
// page.
func TestSaveAndOpen(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, Defaults, versions, notFound)
	if err != nil {
		t.Fatal(err)
	}
	h := serve(s)
	const want = "zh/segments/12/?actions=4:crash+b0&answers=7:1&v=00112233aabbccdd"
	code, out := save(t, h, "192.0.2.1:1", `{"link":"`+want+`"}`)
	if code != http.StatusCreated || out["path"] != "s/"+out["id"] {
		t.Fatalf("save: %d %v", code, out)
	}
	s2, err := Open(dir, Defaults, versions, notFound) // after a restart
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range []*Store{s, s2} {
		rec := open(serve(st), "/s/"+out["id"])
		if rec.Code != http.StatusFound || rec.Header().Get("Location") != "/"+want {
			t.Errorf("open: %d to %q, want 302 to /%s", rec.Code, rec.Header().Get("Location"), want)
		}
	}
	if s2.count != 1 {
		t.Errorf("the reopened store counts %d links", s2.count)
	}
	for body, status := range map[string]int{
		`{"link":"en/segments/?v=ffffffffffffffff"}`: http.StatusConflict,
		`{"link":"en/segments/"}`:                    http.StatusBadRequest,
		`{"link":"https://evil.example/"}`:           http.StatusBadRequest,
		strings.Repeat("x", 70<<10):                  http.StatusBadRequest,
	} {
		if code, out := save(t, h, "192.0.2.2:1", body); code != status || out["error"] == "" {
			t.Errorf("%.50s: %d %v, want %d with an error", body, code, out, status)
		}
	}
	for _, path := range []string{"/s/AAAAAAAAAAAAAAAAAAAAAA", "/s/not-an-id", "/s/..%2F..%2Fetc%2Fpasswd"} {
		if rec := open(h, path); rec.Code != http.StatusNotFound || !strings.Contains(rec.Body.String(), "the 404 page") {
			t.Errorf("%s: %d %q", path, rec.Code, rec.Body.String())
		}
	}
	os.WriteFile(filepath.Join(dir, Dir, "AAAAAAAAAAAAAAAAAAAAAA"), []byte("torn"), 0o644)
	if rec := open(h, "/s/AAAAAAAAAAAAAAAAAAAAAA"); rec.Code != http.StatusNotFound {
		t.Errorf("a damaged file: %d, want the 404 page", rec.Code)
	}
}

// TestBounds: one address saves Burst links at once, then one per Every;
// another address is not held back; a full store refuses and keeps what
// it has.
func TestBounds(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	s, err := Open(t.TempDir(), Config{MaxLinks: 6, Burst: 3, Every: 10 * time.Second}, versions, notFound)
	if err != nil {
		t.Fatal(err)
	}
	s.now = func() time.Time { return now }
	h := serve(s)
	body := `{"link":"en/playground/?cmds=broker"}`
	for i := range 3 {
		if code, out := save(t, h, "192.0.2.1:1", body); code != http.StatusCreated {
			t.Fatalf("save %d: %d %v", i, code, out)
		}
	}
	if code, _ := save(t, h, "192.0.2.1:2", body); code != http.StatusTooManyRequests {
		t.Errorf("a 4th save at once: %d, want 429", code)
	}
	if code, _ := save(t, h, "192.0.2.9:1", body); code != http.StatusCreated {
		t.Errorf("another address: %d, want 201", code)
	}
	now = now.Add(10 * time.Second)
	if code, _ := save(t, h, "192.0.2.1:1", body); code != http.StatusCreated {
		t.Errorf("after Every: %d, want 201", code)
	}
	now = now.Add(time.Hour)
	save(t, h, "192.0.2.1:1", body) // the 6th
	if code, out := save(t, h, "192.0.2.1:1", body); code != http.StatusInsufficientStorage || out["error"] == "" {
		t.Errorf("past MaxLinks: %d %v, want 507", code, out)
	}
	if s.count != 6 {
		t.Errorf("%d links kept, want 6", s.count)
	}
}
