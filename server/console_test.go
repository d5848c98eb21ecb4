package server

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// TestConsoleAccess: /console is behind the operator's guard as /live
// is (beyond loopback only with the token, never driven from another
// site), and answers bad input with a status and a message that says
// what was wrong, through the engine's own connection for the console.
func TestConsoleAccess(t *testing.T) {
	srv := startInProcess(t, t.TempDir(), nil)
	h := srv.routes()
	do := func(method, target, remote, auth, origin string, form url.Values) *httptest.ResponseRecorder {
		r := httptest.NewRequest(method, "http://gregor.test"+target, strings.NewReader(form.Encode()))
		r.RemoteAddr = remote
		if form != nil {
			r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		if auth != "" {
			r.Header.Set("Authorization", "Bearer "+auth)
		}
		if origin != "" {
			r.Header.Set("Origin", origin)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	const local, lan = "127.0.0.1:5000", "10.0.0.7:5000"
	create := url.Values{"name": {"made"}, "partitions": {"2"}, "replication": {"1"}}
	for _, tc := range []struct {
		name, method, target, remote, auth, origin string
		form                                       url.Values
		want                                       int
		says                                       string
	}{
		{"LAN without the token", "GET", "/console", lan, "", "", nil, http.StatusUnauthorized, "operator token"},
		{"LAN with the token", "GET", "/console", lan, srv.cfg.OperatorToken, "", nil, http.StatusOK, "Cluster"},
		{"another site's form", "POST", "/console/topics", local, "", "https://evil.example", create, http.StatusForbidden, "another site"},
		{"create", "POST", "/console/topics", local, "", "", create, http.StatusSeeOther, ""},
		{"the topic created", "GET", "/console/topics/made", local, "", "", nil, http.StatusOK, `data-partition="1"`},
		{"an unknown topic", "GET", "/console/topics/nope", local, "", "", nil, http.StatusNotFound, "There is no topic &#34;nope&#34;."},
		{"an unknown partition", "GET", "/console/topics/made/7", local, "", "", nil, http.StatusNotFound, "There is no partition 7"},
		{"a malformed offset", "GET", "/console/topics/made/0?from=-3", local, "", "", nil, http.StatusBadRequest, "is not an offset"},
		{"a malformed time", "GET", "/console/topics/made/0?by=time&from=noon", local, "", "", nil, http.StatusBadRequest, "is not a time"},
		{"a page too large", "GET", "/console/topics/made/0?from=0&n=5000", local, "", "", nil, http.StatusBadRequest, "A page holds"},
		{"a bad header line", "POST", "/console/topics/made/0/records", local, "", "", url.Values{"value": {"v"}, "headers": {"oops"}}, http.StatusBadRequest, "is not name=value"},
		{"produce", "POST", "/console/topics/made/0/records", local, "", "", url.Values{"value": {"v"}}, http.StatusSeeOther, ""},
		{"the record produced", "GET", "/console/topics/made/0?from=0", local, "", "", nil, http.StatusOK, `<pre class="value">v</pre>`},
		{"by time", "GET", "/console/topics/made/0?by=time&from=2000-01-01", local, "", "", nil, http.StatusOK, `data-offset="0"`},
		{"past the end", "GET", "/console/topics/made/0?from=9", local, "", "", nil, http.StatusUnprocessableEntity, "outside the log"},
		{"in Chinese", "GET", "/console/topics/made?lang=zh", local, "", "", nil, http.StatusOK, "主题 made"},
	} {
		w := do(tc.method, tc.target, tc.remote, tc.auth, tc.origin, tc.form)
		if w.Code != tc.want || !strings.Contains(w.Body.String(), tc.says) {
			t.Errorf("%s: %d %.300q, want %d saying %q", tc.name, w.Code, w.Body.String(), tc.want, tc.says)
		}
	}
}
