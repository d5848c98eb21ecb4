//go:build js && wasm

// Command worker is the playground's Cloudflare Worker (`make worker`):
// the saved links (lessons/saved), which static files cannot keep, in
// Workers KV. Everything else (the lessons' pages, both bundles, the 404
// page, the embeds and their headers) is the static site (`make site`),
// served by Cloudflare's asset handling; the Worker runs first only for
// /s/* and /api/* (wrangler.jsonc).
//
// It is small on purpose: it links neither core/ nor lessons/play and
// never replays a lesson, so a request costs a few milliseconds of CPU
// (the Free plan allows 10). A save is checked against the lessons'
// versions that the site it is deployed with publishes
// (assets/lessons/index.json, read through the ASSETS binding), so the
// Worker never disagrees with the pages it serves.
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/gregor-kafka/gregor/lessons/saved"
	"github.com/syumai/workers"
	"github.com/syumai/workers/cloudflare"
	"github.com/syumai/workers/cloudflare/fetch"
	"github.com/syumai/workers/cloudflare/kv"
)

// The Worker's bindings (wrangler.jsonc).
const (
	kvBinding     = "SAVED"  // Workers KV: one key per saved link
	assetsBinding = "ASSETS" // the static site
)

func main() {
	srv := &saved.Server{Keeper: keeper{}, Versions: versions, NotFound: fromAssets}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/saved", srv.ServeSave)
	mux.HandleFunc("GET /s/{id}", srv.ServeOpen)
	mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		saved.Answer(w, http.StatusNotFound, map[string]string{"error": "no such API: " + r.Method + " " + r.URL.Path})
	})
	mux.HandleFunc("/", fromAssets) // /s/ itself, /s/ID/more: the site's 404 page
	workers.Serve(mux)
}

// keeper keeps saved links in Workers KV, one key per id, the value the
// JSON of saved.Saved.
type keeper struct{}

func (keeper) Put(id string, s saved.Saved) error {
	ns, err := kv.NewNamespace(kvBinding)
	if err != nil {
		return err
	}
	value, _ := json.Marshal(s)
	return ns.PutString(id, string(value), nil)
}

func (keeper) Get(id string) (saved.Saved, bool, error) {
	ns, err := kv.NewNamespace(kvBinding)
	if err != nil {
		return saved.Saved{}, false, err
	}
	value, err := ns.GetString(id, nil)
	if err != nil {
		return saved.Saved{}, false, err
	}
	// A key that is not there reads as JavaScript's null, which the
	// binding hands over as text; what Put keeps is a JSON object.
	if !strings.HasPrefix(value, "{") {
		return saved.Saved{}, false, nil
	}
	var s saved.Saved
	if err := json.Unmarshal([]byte(value), &s); err != nil {
		return saved.Saved{}, false, fmt.Errorf("saved link %s: %w", id, err)
	}
	return s, true, nil
}

// versions reads the lessons' versions from the site deployed beside the
// Worker.
func versions(r *http.Request) (map[string]string, error) {
	req, err := fetch.NewRequest(r.Context(), http.MethodGet, "https://assets.local/assets/lessons/index.json", nil)
	if err != nil {
		return nil, err
	}
	res, err := assets().Do(req, nil)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("assets/lessons/index.json: %s", res.Status)
	}
	var v map[string]string
	if err := json.NewDecoder(res.Body).Decode(&v); err != nil {
		return nil, fmt.Errorf("assets/lessons/index.json: %w", err)
	}
	return v, nil
}

// fromAssets answers with what the static site answers for the request's
// path: for a path it does not hold, its 404 page with status 404 (the
// assets' not_found_handling), which says the link leads nowhere.
func fromAssets(w http.ResponseWriter, r *http.Request) {
	req, err := fetch.NewRequest(r.Context(), http.MethodGet, "https://assets.local"+r.URL.Path, nil)
	if err == nil {
		req.Header = r.Header.Clone()
		var res *http.Response
		if res, err = assets().Do(req, nil); err == nil {
			defer res.Body.Close()
			for k, v := range res.Header {
				w.Header()[k] = v
			}
			w.WriteHeader(res.StatusCode)
			_, _ = io.Copy(w, res.Body)
			return
		}
	}
	http.Error(w, "not found", http.StatusNotFound)
}

func assets() *fetch.Client {
	return fetch.NewClient(fetch.WithBinding(cloudflare.GetBinding(assetsBinding)))
}
