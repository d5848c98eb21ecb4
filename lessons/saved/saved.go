// Package saved is what a saved link is, in every home that keeps them
// (the native server, the Worker): checked on the way in, named by an id.
// It is small and links nothing of the engine, so that the Worker can use
// it; the browser build does not need it.
package saved

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/gregor-kafka/gregor/lessons/link"
)

// Save keeps what a page's URL holds (a lesson's step, seed, the learner's
// steps and answers, the language; the playground's commands) and the
// lesson's version, under an id: /s/ID opens it again on the home that
// kept it (the native server in its data directory, the Worker in Workers
// KV), which answers with a redirect to the link. What is kept is the link
// itself, relative to the site's root, checked on the way in (Check);
// replaying it is the page's work. A link whose lesson has changed since
// carries the old version, and the page then says so (lessons/play)
// rather than replay something else.

// MaxSaved bounds the body of a save: a lesson link with a few hundred of
// the learner's steps fits many times over.
const MaxSaved = 64 << 10

// Saved is what a save sends and what is kept: the page's link, relative
// to the site's root (LANG/SLUG/N/?...&v=VERSION, or a playground's).
type Saved struct {
	Link string `json:"link"`
}

// Errors of Check. ErrChanged is the one a page can mend by reloading.
var (
	ErrInvalid = errors.New("saved: not a link to save")
	ErrChanged = errors.New("saved: the lesson has changed since this page loaded: reload it, then save")
)

// savedKeys are the query parameters a saved link may hold.
var savedKeys = map[string]bool{"seed": true, "actions": true, "answers": true, "cmds": true, "step": true, link.VersionParam: true}

// Check reads a body to save (JSON {"link": ...}, at most MaxSaved bytes)
// and returns what to keep. The link must name a lesson's page or the
// playground by its path (FromPath), with nothing in its query but what a
// session holds; a lesson link must name the lesson's version, which must
// be the current one: version says what it is (ok false: no such lesson).
func Check(body io.Reader, version func(slug string) (v string, ok bool)) (Saved, error) {
	raw, err := io.ReadAll(io.LimitReader(body, MaxSaved+1))
	if err != nil {
		return Saved{}, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	if len(raw) > MaxSaved {
		return Saved{}, fmt.Errorf("%w: over %d bytes", ErrInvalid, MaxSaved)
	}
	var s Saved
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil || dec.More() {
		return Saved{}, fmt.Errorf("%w: want JSON {\"link\": \"LANG/SLUG/N/?...\"}", ErrInvalid)
	}
	path, rawQuery, _ := strings.Cut(s.Link, "?")
	q, ok := link.FromPath(path, rawQuery)
	if !ok || path == "" || strings.HasPrefix(path, "/") || strings.HasPrefix(path, "join/") || strings.ContainsAny(s.Link, "#\\ \t\r\n") {
		return Saved{}, fmt.Errorf("%w: %q is not the path of a lesson or the playground", ErrInvalid, s.Link)
	}
	values, err := url.ParseQuery(rawQuery)
	if err != nil {
		return Saved{}, fmt.Errorf("%w: its query: %v", ErrInvalid, err)
	}
	for k := range values {
		if !savedKeys[k] || len(values[k]) != 1 {
			return Saved{}, fmt.Errorf("%w: its query may hold seed, actions, answers, cmds, step and v, once each, not %q", ErrInvalid, k)
		}
	}
	page, _ := url.ParseQuery(q)
	switch slug := page.Get("lesson"); {
	case slug != "":
		have, ok := version(slug)
		switch {
		case !ok:
			return Saved{}, fmt.Errorf("%w: there is no lesson %q", ErrInvalid, slug)
		case values.Get(link.VersionParam) == "":
			return Saved{}, fmt.Errorf("%w: a lesson link names its version (v=)", ErrInvalid)
		case values.Get(link.VersionParam) != have:
			return Saved{}, ErrChanged
		}
	case page.Get("playground") == "":
		return Saved{}, fmt.Errorf("%w: %q is not the path of a lesson or the playground", ErrInvalid, s.Link)
	}
	return s, nil
}

// idBytes is how much randomness names a saved link: 128 bits, far beyond
// guessing.
const idBytes = 16

// NewID is a fresh id for a saved link, from rand (crypto/rand's Reader).
func NewID(rand io.Reader) (string, error) {
	b := make([]byte, idBytes)
	if _, err := io.ReadFull(rand, b); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// ValidID reports whether id could be one NewID made.
func ValidID(id string) bool {
	b, err := base64.RawURLEncoding.DecodeString(id)
	return err == nil && len(b) == idBytes && base64.RawURLEncoding.EncodeToString(b) == id
}
