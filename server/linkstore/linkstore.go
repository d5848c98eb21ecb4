// Package linkstore keeps the playground's saved links on the native
// server (lessons/saved): POST /api/saved keeps a page's link under
// a fresh id, GET /s/ID redirects to it. They live in a directory of their
// own in the data directory, beside the partitions' logs, one small file
// per link, so that they survive a restart.
//
// # Invariants
//
//   - What is kept passed saved.Check: the path of a lesson or the
//     playground, with the lesson's current version.
//   - At most Config.MaxLinks are kept; past that a save is refused (507)
//     and nothing is removed.
//   - One address saves at most Config.Burst links at once and then one
//     every Config.Every (429 with Retry-After past that).
//   - An id that is not one saved.NewID could have made never touches the
//     disk; an unknown one is a 404 page.
package linkstore

import (
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/gregor-kafka/gregor/lessons/saved"
)

// Dir is the directory under the data directory that holds the links: not
// a partition's name (those end in -N), so the broker leaves it alone.
const Dir = "saved-links"

// Config bounds a Store.
type Config struct {
	MaxLinks int           // how many links are kept, in all
	Burst    int           // saves one address may make at once
	Every    time.Duration // and then one per this long
}

// Defaults are the bounds `gregor serve` keeps: a class of thirty saving
// at once is well inside them, a script saving in a loop is not.
var Defaults = Config{MaxLinks: 100_000, Burst: 20, Every: 3 * time.Second}

// Store keeps saved links in a directory.
type Store struct {
	dir     string
	cfg     Config
	version func(slug string) (string, bool)
	now     func() time.Time
	noPage  http.HandlerFunc // the 404 page for an unknown id

	mu      sync.Mutex
	count   int                // links on disk
	buckets map[string]*bucket // by client address
}

type bucket struct {
	tokens float64
	at     time.Time
}

// Open opens (creating it) the store under dataDir. version names a
// lesson's current version (lessons.Version of its script); noPage
// answers an id that names nothing.
func Open(dataDir string, cfg Config, version func(string) (string, bool), noPage http.HandlerFunc) (*Store, error) {
	dir := filepath.Join(dataDir, Dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("saved links: %w", err)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("saved links: %w", err)
	}
	n := 0
	for _, e := range ents {
		if saved.ValidID(e.Name()) {
			n++
		}
	}
	return &Store{dir: dir, cfg: cfg, version: version, now: time.Now, noPage: noPage, count: n, buckets: map[string]*bucket{}}, nil
}

// ServeSave keeps the link a page sends (POST /api/saved) and answers
// 201 with {"id": ID, "path": "s/ID"}; a link saved.Check refuses is 400
// (409 when the lesson has changed since the page loaded), a client over
// its rate 429, a full store 507. Every answer is JSON with an error
// message where it failed.
func (s *Store) ServeSave(w http.ResponseWriter, r *http.Request) {
	if ok, wait := s.allow(clientAddr(r)); !ok {
		w.Header().Set("Retry-After", strconv.Itoa(int(wait.Seconds())+1))
		answer(w, http.StatusTooManyRequests, map[string]string{"error": "too many saves from this address: try again in a few seconds"})
		return
	}
	kept, err := saved.Check(r.Body, s.version)
	switch {
	case errors.Is(err, saved.ErrChanged):
		answer(w, http.StatusConflict, map[string]string{"error": err.Error()})
		return
	case err != nil:
		answer(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
		return
	}
	id, err := s.put(kept)
	switch {
	case errors.Is(err, errFull):
		answer(w, http.StatusInsufficientStorage, map[string]string{"error": err.Error()})
	case err != nil:
		answer(w, http.StatusInternalServerError, map[string]string{"error": "saving failed: " + err.Error()})
	default:
		answer(w, http.StatusCreated, map[string]string{"id": id, "path": "s/" + id})
	}
}

// ServeOpen redirects a saved link's id (GET /s/{id}) to what it keeps,
// relative to the site's root; an id that names nothing gets the 404 page.
func (s *Store) ServeOpen(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if !saved.ValidID(id) {
		s.noPage(w, r)
		return
	}
	raw, err := os.ReadFile(filepath.Join(s.dir, id))
	var kept saved.Saved
	if err != nil || json.Unmarshal(raw, &kept) != nil || kept.Link == "" {
		s.noPage(w, r)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, "/"+kept.Link, http.StatusFound)
}

var errFull = errors.New("this server keeps no more saved links")

// put writes a link under a fresh id, durably: a temporary file, synced,
// renamed into place.
func (s *Store) put(kept saved.Saved) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.count >= s.cfg.MaxLinks {
		return "", errFull
	}
	id, err := saved.NewID(rand.Reader)
	if err != nil {
		return "", err
	}
	data, _ := json.Marshal(kept)
	tmp, err := os.CreateTemp(s.dir, ".new-*")
	if err != nil {
		return "", err
	}
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), filepath.Join(s.dir, id))
	}
	if err != nil {
		os.Remove(tmp.Name())
		return "", err
	}
	s.count++
	return id, nil
}

// allow takes a token from addr's bucket, or says how long until one.
func (s *Store) allow(addr string) (bool, time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	b := s.buckets[addr]
	if b == nil {
		if len(s.buckets) > 10_000 { // forget the quiet ones rather than grow
			for k, old := range s.buckets {
				if now.Sub(old.at) > time.Duration(s.cfg.Burst)*s.cfg.Every {
					delete(s.buckets, k)
				}
			}
		}
		b = &bucket{tokens: float64(s.cfg.Burst), at: now}
		s.buckets[addr] = b
	}
	b.tokens = min(float64(s.cfg.Burst), b.tokens+now.Sub(b.at).Seconds()/s.cfg.Every.Seconds())
	b.at = now
	if b.tokens < 1 {
		return false, time.Duration((1 - b.tokens) * float64(s.cfg.Every))
	}
	b.tokens--
	return true, 0
}

// clientAddr is the host of the request's peer.
func clientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

func answer(w http.ResponseWriter, status int, body map[string]string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(body)
}
