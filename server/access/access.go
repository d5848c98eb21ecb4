// Package access is the one access model of Gregor's web UI, as one
// middleware:
//
//   - a client of the HTTP port on loopback may do everything (it is the
//     person who started the broker);
//   - beyond loopback, watching the live trace and driving anything (opening
//     a classroom, later anything that acts on the broker) needs the
//     operator token, sent as the gregor_operator cookie (set by POST
//     /login) or as "Authorization: Bearer TOKEN";
//   - students need only a room's join code, which the classroom checks
//     itself; the playground and its assets are open to all.
//
// # Invariants
//
//   - Guard.Only lets a request through only when Allowed says so; an empty
//     token allows nobody beyond loopback.
//   - Tokens are compared in constant time and never read from a URL.
//   - A request that changes state (not GET or HEAD) from a page of another
//     origin is refused even on loopback: a web page the operator visits
//     cannot drive the broker through the operator's browser.
//   - Loopback is judged by the TCP peer (RemoteAddr), never by headers:
//     behind a reverse proxy on the same host every client looks local, so
//     do not put one in front of an HTTP port bound beyond loopback.
package access

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base32"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// CookieName is the cookie that carries the operator token.
const CookieName = "gregor_operator"

// Guard holds the operator token.
type Guard struct {
	Token string
}

// NewToken returns a fresh random token (128 bits, base32, no padding).
func NewToken() string {
	var b [16]byte
	rand.Read(b[:])
	return strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b[:]))
}

// Equal compares a presented token with the expected one in constant
// time; an empty expected token matches nothing.
func Equal(presented, expected string) bool {
	return expected != "" && subtle.ConstantTimeCompare([]byte(presented), []byte(expected)) == 1
}

// Loopback reports whether the request's TCP peer is on this machine.
func Loopback(r *http.Request) bool {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return false
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Allowed reports whether r may watch and drive: from loopback, or with
// the operator token.
func (g Guard) Allowed(r *http.Request) bool {
	if Loopback(r) {
		return true
	}
	if c, err := r.Cookie(CookieName); err == nil && Equal(c.Value, g.Token) {
		return true
	}
	auth := r.Header.Get("Authorization")
	return strings.HasPrefix(auth, "Bearer ") && Equal(strings.TrimPrefix(auth, "Bearer "), g.Token)
}

// Only lets through the requests Allowed allows, and refuses the others:
// 401 without the token, 403 for a cross-origin request that changes
// state.
func (g Guard) Only(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !SameOrigin(r) {
			http.Error(w, "refused: a request from another site may not drive this broker", http.StatusForbidden)
			return
		}
		if !g.Allowed(r) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="gregor"`)
			http.Error(w, "this needs the operator token (printed by gregor serve at startup): "+
				"log in at /login, or send Authorization: Bearer TOKEN", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// SameOrigin reports whether a state-changing request comes from a page of
// this server (or from no page: curl, a test). GET and HEAD always pass;
// websockets check their origin themselves.
func SameOrigin(r *http.Request) bool {
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		return true
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	u, err := url.Parse(origin)
	return err == nil && strings.EqualFold(u.Host, r.Host)
}
