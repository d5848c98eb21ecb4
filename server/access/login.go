package access

import (
	"net/http"
)

const loginPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Operator log-in — Gregor</title>
<style>body{font:15px/1.5 system-ui,sans-serif;margin:2rem}input,button{font:inherit}</style></head>
<body><h1>Operator log-in</h1>
<p>Watching this broker live and running a class from another machine needs the operator token that
<code>gregor serve</code> printed when it started (or the one set with <code>--http.operator.token</code>).</p>
<form method="post" action="/login"><label>Token <input name="token" type="password" autocomplete="off" autofocus></label>
<button>Log in</button></form></body></html>
`

// ServeLogin is GET /login (a form) and POST /login (the token, checked;
// when right, kept in an HttpOnly cookie, and the browser goes to /live).
func (g Guard) ServeLogin(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(loginPage))
		return
	}
	if !SameOrigin(r) {
		http.Error(w, "refused: a log-in from another site", http.StatusForbidden)
		return
	}
	if !Equal(r.PostFormValue("token"), g.Token) {
		http.Error(w, "wrong token", http.StatusUnauthorized)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: CookieName, Value: g.Token, Path: "/", HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
	http.Redirect(w, r, "/live", http.StatusSeeOther)
}
