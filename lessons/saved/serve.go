package saved

import (
	"crypto/rand"
	"encoding/json"
	"errors"
	"io"
	"net/http"
)

// Keeper keeps saved links by id: a directory in the native server's data
// directory (server/linkstore), Workers KV on the Worker (wasm/worker).
type Keeper interface {
	// Put keeps s under id, a fresh NewID; ErrFull when no more are kept.
	Put(id string, s Saved) error
	// Get is what id keeps; found is false for an id never put.
	Get(id string) (s Saved, found bool, err error)
}

// ErrFull is a Keeper's answer when it keeps no more links.
var ErrFull = errors.New("saved: this home keeps no more saved links")

// Server answers the two routes of saved links over a Keeper, the same on
// every home:
//
//	POST /api/saved   {"link": ...}  201 {"id": ID, "path": "s/ID"}
//	GET  /s/{id}                     302 to /LINK, or the 404 page
//
// The page that saved goes on from what it sent: nothing here needs a
// Keeper to read back what it has just put (Workers KV may take a minute
// to show a new key everywhere).
type Server struct {
	Keeper Keeper
	// Versions are the lessons' current versions by slug (lessons.Version
	// of each script), asked once per save.
	Versions func(r *http.Request) (map[string]string, error)
	// NotFound answers an id that names nothing: the site's 404 page.
	NotFound http.HandlerFunc
	// Rand names new links; nil is crypto/rand.
	Rand io.Reader
}

// ServeSave keeps the link a page sends and answers 201 with its id; a
// link Check refuses is 400 (409 when the lesson has changed since the page
// loaded), a full Keeper 507. Every answer is JSON, with an "error" where
// it failed, for the page to show.
func (s *Server) ServeSave(w http.ResponseWriter, r *http.Request) {
	versions, err := s.Versions(r)
	if err != nil {
		Answer(w, http.StatusServiceUnavailable, map[string]string{"error": "the lessons' versions are not to be had: " + err.Error()})
		return
	}
	kept, err := Check(r.Body, func(slug string) (string, bool) { v, ok := versions[slug]; return v, ok })
	switch {
	case errors.Is(err, ErrChanged):
		Answer(w, http.StatusConflict, map[string]string{"error": err.Error()})
		return
	case err != nil:
		Answer(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
		return
	}
	random := s.Rand
	if random == nil {
		random = rand.Reader
	}
	id, err := NewID(random)
	if err == nil {
		err = s.Keeper.Put(id, kept)
	}
	switch {
	case errors.Is(err, ErrFull):
		Answer(w, http.StatusInsufficientStorage, map[string]string{"error": err.Error()})
	case err != nil:
		Answer(w, http.StatusInternalServerError, map[string]string{"error": "saving failed: " + err.Error()})
	default:
		Answer(w, http.StatusCreated, map[string]string{"id": id, "path": "s/" + id})
	}
}

// ServeOpen redirects a saved link's id (the {id} of the route) to what it
// keeps, relative to the site's root. An id that NewID could not have made
// never reaches the Keeper; one that names nothing, or that the Keeper
// cannot read, gets the 404 page (never a 500: the learner holds a link
// that leads nowhere, and the page says so).
func (s *Server) ServeOpen(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if !ValidID(id) {
		s.NotFound(w, r)
		return
	}
	kept, found, err := s.Keeper.Get(id)
	if err != nil || !found || kept.Link == "" {
		s.NotFound(w, r)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, "/"+kept.Link, http.StatusFound)
}

// Answer writes a JSON answer that no cache keeps.
func Answer(w http.ResponseWriter, status int, body map[string]string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(body)
}
