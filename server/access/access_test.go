package access

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// TestOnly: loopback may do everything; beyond it, only with the
// operator token (cookie or bearer), never from another site's page.
func TestOnly(t *testing.T) {
	g := Guard{Token: "s3cret"}
	h := g.Only(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusTeapot) }))
	for _, tc := range []struct {
		name, method, remote, cookie, auth, origin string
		want                                       int
	}{
		{"loopback v4", "GET", "127.0.0.1:5000", "", "", "", http.StatusTeapot},
		{"loopback v6", "POST", "[::1]:5000", "", "", "", http.StatusTeapot},
		{"LAN, no token", "GET", "192.168.1.20:5000", "", "", "", http.StatusUnauthorized},
		{"LAN, wrong cookie", "GET", "192.168.1.20:5000", "guess", "", "", http.StatusUnauthorized},
		{"LAN, cookie", "GET", "192.168.1.20:5000", "s3cret", "", "", http.StatusTeapot},
		{"LAN, bearer", "POST", "10.0.0.7:5000", "", "Bearer s3cret", "", http.StatusTeapot},
		{"LAN, wrong bearer", "POST", "10.0.0.7:5000", "", "Bearer s3cre", "", http.StatusUnauthorized},
		{"LAN, basic", "POST", "10.0.0.7:5000", "", "Basic s3cret", "", http.StatusUnauthorized},
		{"loopback, same origin", "POST", "127.0.0.1:5000", "", "", "http://gregor.test", http.StatusTeapot},
		{"loopback, other site", "POST", "127.0.0.1:5000", "", "", "https://evil.example", http.StatusForbidden},
		{"token, other site", "POST", "10.0.0.7:5000", "s3cret", "", "https://evil.example", http.StatusForbidden},
		{"unparsable address", "GET", "somewhere", "", "", "", http.StatusUnauthorized},
	} {
		r := httptest.NewRequest(tc.method, "http://gregor.test/live", nil)
		r.RemoteAddr = tc.remote
		if tc.cookie != "" {
			r.AddCookie(&http.Cookie{Name: CookieName, Value: tc.cookie})
		}
		if tc.auth != "" {
			r.Header.Set("Authorization", tc.auth)
		}
		if tc.origin != "" {
			r.Header.Set("Origin", tc.origin)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != tc.want {
			t.Errorf("%s: %d, want %d (%s)", tc.name, w.Code, tc.want, strings.TrimSpace(w.Body.String()))
		}
	}
	// No token configured: nobody beyond loopback, whatever they send.
	r := httptest.NewRequest("GET", "/live", nil)
	r.Header.Set("Authorization", "Bearer ")
	w := httptest.NewRecorder()
	Guard{}.Only(h).ServeHTTP(w, r)
	if w.Code != http.StatusUnauthorized {
		t.Errorf("empty token: %d", w.Code)
	}
}

// TestLogin: the right token becomes an HttpOnly cookie that Only
// accepts; a wrong one sets nothing.
func TestLogin(t *testing.T) {
	g := Guard{Token: NewToken()}
	post := func(token string) *httptest.ResponseRecorder {
		r := httptest.NewRequest("POST", "/login", strings.NewReader(url.Values{"token": {token}}.Encode()))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		w := httptest.NewRecorder()
		g.ServeLogin(w, r)
		return w
	}
	if w := post("wrong"); w.Code != http.StatusUnauthorized || len(w.Result().Cookies()) != 0 {
		t.Errorf("wrong token: %d, cookies %v", w.Code, w.Result().Cookies())
	}
	w := post(g.Token)
	cookies := w.Result().Cookies()
	if w.Code != http.StatusSeeOther || len(cookies) != 1 || !cookies[0].HttpOnly {
		t.Fatalf("right token: %d, cookies %v", w.Code, cookies)
	}
	r := httptest.NewRequest("GET", "/live", nil) // from 192.0.2.1
	r.AddCookie(cookies[0])
	if !g.Allowed(r) {
		t.Error("the log-in cookie is not accepted")
	}
	if NewToken() == NewToken() || len(g.Token) < 26 {
		t.Errorf("tokens are not fresh 128-bit values: %q", g.Token)
	}
}
