package console

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/a-h/templ"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/broker"
	"github.com/gregor-kafka/gregor/core/cluster"
	"github.com/gregor-kafka/gregor/ui"
)

// Engine is the broker as the console reaches it.
type Engine interface {
	// Ask serves req as a client's request of the console's principal
	// and returns the broker's answer.
	Ask(ctx context.Context, req kmsg.Request) (kmsg.Response, error)
	// Snapshot runs fn on the engine goroutine; fn reads a bounded part
	// of the broker and changes nothing.
	Snapshot(fn func(b *broker.Broker)) error
	// Node is the broker's node.id.
	Node() int32
}

// Console serves /console.
type Console struct {
	Engine Engine
	// Principal is who the console acts as when an authorizer is on, ""
	// when none is (then it is not shown).
	Principal string
	// Peers is every node's HTTP address (--http-peers), for links to
	// each partition's leader.
	Peers map[int32]string
}

// Host is the address the console's requests come from, as ACLs match
// a client's host.
const Host = "127.0.0.1"

// describable is what a snapshot of rtype's resources may show: those
// the console's principal may DESCRIBE, as Metadata lists only such
// topics, ListGroups such groups (all of them with DESCRIBE on the
// cluster) and ListTransactions such transactional ids. Nil, every one,
// when no authorizer is on. It runs on the engine goroutine, with b.
func (c *Console) describable(b *broker.Broker, rtype kmsg.ACLResourceType) func(name string) bool {
	if c.Principal == "" || rtype == kmsg.ACLResourceTypeGroup && c.may(b, kmsg.ACLResourceTypeCluster, cluster.ClusterResource) {
		return nil
	}
	return func(name string) bool { return c.may(b, rtype, name) }
}

// may reports whether the console's principal may DESCRIBE the resource.
func (c *Console) may(b *broker.Broker, rtype kmsg.ACLResourceType, name string) bool {
	return b.Allows(c.Principal, Host, rtype, name, kmsg.ACLOperationDescribe)
}

// Page sizes: what one snapshot reads at most.
const (
	TopicsPerPage = 50
	GroupsPerPage = 50
	// MaxFetchBytes bounds the bytes one record page fetches.
	MaxFetchBytes = 1 << 20
)

// askTimeout bounds how long a page waits for the broker.
const askTimeout = 10 * time.Second

//go:embed console.css
var style []byte

//go:embed console.js
var script []byte

// Handler serves /console and everything under it.
func (c *Console) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /console", c.home)
	mux.HandleFunc("GET /console/console.css", static("text/css; charset=utf-8", style))
	mux.HandleFunc("GET /console/console.js", static("text/javascript; charset=utf-8", script))
	mux.HandleFunc("POST /console/topics", c.createTopic)
	mux.HandleFunc("GET /console/topics/{topic}", c.topic)
	mux.HandleFunc("GET /console/topics/{topic}/{partition}", c.partition)
	mux.HandleFunc("POST /console/topics/{topic}/{partition}/records", c.produce)
	mux.HandleFunc("GET /console/groups/{group}", c.group)
	mux.HandleFunc("/console/", func(w http.ResponseWriter, r *http.Request) {
		f := c.frame(r, ui.Tr(lang(r), "No such page"))
		f.Problem = ui.Trf(f.Lang, "The console has no page at %s.", r.URL.Path)
		render(w, r, http.StatusNotFound, f, ui.ConsoleNoPage(f))
	})
	return mux
}

func static(ctype string, body []byte) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", ctype)
		w.Header().Set("Cache-Control", "no-cache")
		w.Write(body)
	}
}

// lang is the page's language: ?lang=, else the browser's.
func lang(r *http.Request) string {
	if l := r.URL.Query().Get("lang"); l != "" {
		return ui.Lang(l)
	}
	return ui.PickLang(r.Header.Get("Accept-Language"))
}

// frame is what every page of r has.
func (c *Console) frame(r *http.Request, title string) ui.ConsoleFrame {
	q := r.URL.Query()
	q.Del("lang")
	return ui.ConsoleFrame{Lang: lang(r), Title: title, Path: r.URL.Path, Query: q.Encode(),
		Principal: c.Principal, Node: c.Engine.Node(), Peers: c.Peers}
}

// render writes a page in its frame's language.
func render(w http.ResponseWriter, r *http.Request, status int, f ui.ConsoleFrame, page templ.Component) {
	var b bytes.Buffer
	if err := ui.InLang(f.Lang, page).Render(r.Context(), &b); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Security-Policy", "default-src 'self'; frame-ancestors 'none'")
	w.WriteHeader(status)
	w.Write(b.Bytes())
}

// ask sends req and returns the answer as the type the caller expects.
func ask[T kmsg.Response](ctx context.Context, c *Console, req kmsg.Request) (T, error) {
	var zero T
	ctx, cancel := context.WithTimeout(ctx, askTimeout)
	defer cancel()
	resp, err := c.Engine.Ask(ctx, req)
	if err != nil {
		return zero, err
	}
	t, ok := resp.(T)
	if !ok {
		return zero, fmt.Errorf("the broker answered %T to %T", resp, req)
	}
	return t, nil
}

// kafkaError is a Kafka error code as an error (nil for NONE), with the
// broker's message when it sent one.
func kafkaError(code int16, msg *string) error {
	err := kerr.ErrorForCode(code)
	if err == nil || msg == nil || *msg == "" {
		return err
	}
	return fmt.Errorf("%w: %s", err, *msg)
}

// status is the HTTP status of a failure: the client's mistake or
// refusal (4xx), or the broker's (502).
func status(err error) int {
	var ke *kerr.Error
	switch {
	case errors.As(err, new(badInput)):
		return http.StatusBadRequest
	case errors.As(err, new(misdirected)):
		return http.StatusMisdirectedRequest
	case errors.Is(err, kerr.UnknownTopicOrPartition), errors.Is(err, kerr.GroupIDNotFound):
		return http.StatusNotFound
	case isRefusal(err):
		return http.StatusForbidden
	case errors.As(err, &ke):
		return http.StatusUnprocessableEntity
	}
	return http.StatusBadGateway
}

// isRefusal reports an ACL's refusal.
func isRefusal(err error) bool {
	return errors.Is(err, kerr.TopicAuthorizationFailed) || errors.Is(err, kerr.ClusterAuthorizationFailed) ||
		errors.Is(err, kerr.GroupAuthorizationFailed) || errors.Is(err, kerr.TransactionalIDAuthorizationFailed)
}

// badInput is input that does not parse, said in the page's language.
type badInput string

func (b badInput) Error() string { return string(b) }

// said is err as the page says it, in its language; its status is err's.
type said struct {
	text string
	err  error
}

func (s said) Error() string { return s.text }
func (s said) Unwrap() error { return s.err }

// misdirected is a request for another broker: the partition's leader.
type misdirected string

func (m misdirected) Error() string { return string(m) }
