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
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
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

// Store keeps saved links in a directory (a saved.Keeper), and serves
// them with saved.Server behind a per-address rate limit.
type Store struct {
	dir    string
	cfg    Config
	now    func() time.Time
	server saved.Server

	mu      sync.Mutex
	count   int                // links on disk
	buckets map[string]*bucket // by client address
}

type bucket struct {
	tokens float64
	at     time.Time
}

// Open opens (creating it) the store under dataDir. versions are the
// lessons' current versions by slug (lessons.Version of each script);
// noPage answers an id that names nothing.
func Open(dataDir string, cfg Config, versions map[string]string, noPage http.HandlerFunc) (*Store, error) {
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
	s := &Store{dir: dir, cfg: cfg, now: time.Now, count: n, buckets: map[string]*bucket{}}
	s.server = saved.Server{
		Keeper:   s,
		Versions: func(*http.Request) (map[string]string, error) { return versions, nil },
		NotFound: noPage,
	}
	return s, nil
}

// ServeSave is saved.Server's, for at most Config.Burst saves at once from
// one address and then one every Config.Every (429 with Retry-After past
// that).
func (s *Store) ServeSave(w http.ResponseWriter, r *http.Request) {
	if ok, wait := s.allow(clientAddr(r)); !ok {
		w.Header().Set("Retry-After", strconv.Itoa(int(wait.Seconds())+1))
		saved.Answer(w, http.StatusTooManyRequests, map[string]string{"error": "too many saves from this address: try again in a few seconds"})
		return
	}
	s.server.ServeSave(w, r)
}

// ServeOpen is saved.Server's: GET /s/{id}.
func (s *Store) ServeOpen(w http.ResponseWriter, r *http.Request) { s.server.ServeOpen(w, r) }

// Get reads the link id names (saved.Keeper).
func (s *Store) Get(id string) (saved.Saved, bool, error) {
	raw, err := os.ReadFile(filepath.Join(s.dir, id))
	if errors.Is(err, fs.ErrNotExist) {
		return saved.Saved{}, false, nil
	}
	if err != nil {
		return saved.Saved{}, false, err
	}
	var kept saved.Saved
	if err := json.Unmarshal(raw, &kept); err != nil {
		return saved.Saved{}, false, fmt.Errorf("saved link %s: %w", id, err)
	}
	return kept, true, nil
}

// Put writes a link under id, durably: a temporary file, synced, renamed
// into place (saved.Keeper).
func (s *Store) Put(id string, kept saved.Saved) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.count >= s.cfg.MaxLinks {
		return saved.ErrFull
	}
	data, _ := json.Marshal(kept)
	tmp, err := os.CreateTemp(s.dir, ".new-*")
	if err != nil {
		return err
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
		return err
	}
	s.count++
	return nil
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
