package server

import (
	"cmp"
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/gregor-kafka/gregor/core/cluster"
	"github.com/gregor-kafka/gregor/core/config"
	"github.com/gregor-kafka/gregor/ui"
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

// TestConsoleReadCommitted: the record browser reads as a consumer at
// the isolation level asked. A transaction left open shows its record at
// read_uncommitted but not at read_committed, which stops at the last
// stable offset, and the transactions view shows it Ongoing; once it
// commits, its record shows at both and the view says CompleteCommit. An
// aborted transaction's record shows at read_uncommitted only, and
// read_committed goes on past it.
func TestConsoleReadCommitted(t *testing.T) {
	srv := startInProcess(t, t.TempDir(), nil)
	h := srv.routes()
	get := func(target string) string {
		t.Helper()
		r := httptest.NewRequest("GET", "http://gregor.test"+target, nil)
		r.RemoteAddr = "127.0.0.1:5000"
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != http.StatusOK {
			t.Fatalf("GET %s: %d %.300q", target, w.Code, w.Body.String())
		}
		return w.Body.String()
	}
	values := regexp.MustCompile(`<pre class="value">([^<]*)</pre>`)
	records := func(isolation string) string {
		t.Helper()
		var vs []string
		for _, m := range values.FindAllStringSubmatch(get("/console/topics/txns/0?from=0&n=10&isolation="+isolation), -1) {
			vs = append(vs, m[1])
		}
		return strings.Join(vs, " ")
	}
	// marks is each record's transaction as the browser marks it, in
	// offset order: "-" for a record of no transaction.
	mark := regexp.MustCompile(`^(\d+)"><div class="rhead">(?:[^<]|<b>[^<]*</b>|<small>[^<]*</small>)*(?:<small class="badge"(?: data-txn-state="(\w+)")?)?`)
	marks := func() string {
		t.Helper()
		var ms []string
		for _, li := range strings.Split(get("/console/topics/txns/0?from=0&n=10"), `<li class="record" data-offset="`)[1:] {
			m := mark.FindStringSubmatch(li)
			if m == nil {
				t.Fatalf("a record's head does not parse: %.200q", li)
			}
			ms = append(ms, m[1]+":"+cmp.Or(m[2], "-"))
		}
		return strings.Join(ms, " ")
	}
	txnState := regexp.MustCompile(`data-txn="console-txn" data-state="([^"]*)"`)
	stateOnHome := func() string {
		t.Helper()
		m := txnState.FindStringSubmatch(get("/console"))
		if m == nil {
			t.Fatal("the console's home shows no transaction console-txn")
		}
		return m[1]
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	kafka := srv.KafkaAddr().String()
	cl, err := kgo.NewClient(kgo.SeedBrokers(kafka), kgo.DefaultProduceTopic("txns"), kgo.AllowAutoTopicCreation())
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	txc, err := kgo.NewClient(kgo.SeedBrokers(kafka), kgo.DefaultProduceTopic("txns"), kgo.TransactionalID("console-txn"))
	if err != nil {
		t.Fatal(err)
	}
	defer txc.Close()
	// committed reads the topic at read_committed up to the record want:
	// the consumer's wait on the broker, not a timer, says the transaction
	// before it has ended.
	committed := func(want string) {
		t.Helper()
		cc, err := kgo.NewClient(kgo.SeedBrokers(kafka), kgo.ConsumeTopics("txns"), kgo.FetchIsolationLevel(kgo.ReadCommitted()),
			kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
		if err != nil {
			t.Fatal(err)
		}
		defer cc.Close()
		for {
			fs := cc.PollFetches(ctx)
			if err := fs.Err0(); err != nil {
				t.Fatalf("reading up to %q at read_committed: %v", want, err)
			}
			for _, r := range fs.Records() {
				if string(r.Value) == want {
					return
				}
			}
		}
	}
	produce := func(c *kgo.Client, value string) {
		t.Helper()
		if err := c.ProduceSync(ctx, &kgo.Record{Value: []byte(value)}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}

	produce(cl, "before")
	if err := txc.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	produce(txc, "pending")
	if got := records(ui.ReadUncommitted); got != "before pending" {
		t.Errorf("open: read_uncommitted shows %q, want the open transaction's record too", got)
	}
	if got := records(ui.ReadCommitted); got != "before" {
		t.Errorf("open: read_committed shows %q, want only what is before the open transaction", got)
	}
	if page := get("/console/topics/txns/0?from=0&isolation=read_committed"); !strings.Contains(page, `data-stable-end="1"`) {
		t.Errorf("open: read_committed does not say it stops at the last stable offset, 1")
	}
	if got := marks(); got != "0:- 1:open" {
		t.Errorf("open: the browser marks the records %q, want 0:- 1:open", got)
	}
	if got := stateOnHome(); got != "Ongoing" {
		t.Errorf("open: the transaction shows as %s, want Ongoing", got)
	}
	if err := txc.EndTransaction(ctx, kgo.TryCommit); err != nil {
		t.Fatal(err)
	}
	committed("pending")
	for _, isolation := range []string{ui.ReadUncommitted, ui.ReadCommitted} {
		if got := records(isolation); got != "before pending" {
			t.Errorf("committed: %s shows %q, want before pending", isolation, got)
		}
	}
	if got := marks(); got != "0:- 1:committed" {
		t.Errorf("committed: the browser marks the records %q, want 0:- 1:committed", got)
	}
	if got := stateOnHome(); got != "CompleteCommit" {
		t.Errorf("committed: the transaction shows as %s, want CompleteCommit", got)
	}

	if err := txc.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	produce(txc, "gone")
	if err := txc.EndTransaction(ctx, kgo.TryAbort); err != nil {
		t.Fatal(err)
	}
	produce(cl, "after")
	committed("after")
	if got := records(ui.ReadUncommitted); got != "before pending gone after" {
		t.Errorf("aborted: read_uncommitted shows %q, want the aborted record too", got)
	}
	if got := records(ui.ReadCommitted); got != "before pending after" {
		t.Errorf("aborted: read_committed shows %q, want all but the aborted record", got)
	}
	if got := marks(); got != "0:- 1:committed 3:aborted 5:-" {
		t.Errorf("aborted: the browser marks the records %q, want 0:- 1:committed 3:aborted 5:-", got)
	}
}

// TestConsoleDescribeFilter: with an authorizer on, the pages built from
// the broker's snapshots show only what the console's principal may
// DESCRIBE, as Metadata, ListGroups and ListTransactions list: a topic,
// group and transactional id it may describe are shown, on the home
// page, a partition's page and a group's (its lag only on the topics it
// may describe); one of each it may not is left out, and its page is
// refused, whether or not it exists.
func TestConsoleDescribeFilter(t *testing.T) {
	const alice = "User:alice"
	srv := run(t, Config{KafkaAddr: "127.0.0.1:0", HTTPAddr: "127.0.0.1:0", DataDir: t.TempDir(), Settings: config.NewBroker(), Logf: t.Logf,
		Authorizer: &cluster.Authorizer{SuperUsers: []string{"User:ANONYMOUS"}}, ConsolePrincipal: alice})
	h := srv.routes()
	get := func(target string, want int) string {
		t.Helper()
		r := httptest.NewRequest("GET", "http://gregor.test"+target, nil)
		r.RemoteAddr = "127.0.0.1:5000"
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != want {
			t.Errorf("GET %s: %d, want %d: %.300q", target, w.Code, want, w.Body.String())
		}
		return w.Body.String()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	kafka := srv.KafkaAddr().String()
	cl, err := kgo.NewClient(kgo.SeedBrokers(kafka))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	if _, err := adm.CreateACLs(ctx, kadm.NewACLs().Allow(alice).AllowHosts().
		Topics("seen").Groups("g-seen").TransactionalIDs("t-seen").Operations(kadm.OpDescribe)); err != nil {
		t.Fatal(err)
	}
	if _, err := adm.CreateTopics(ctx, 1, 1, nil, "seen", "hidden"); err != nil {
		t.Fatal(err)
	}
	offsets := kadm.Offsets{}
	offsets.Add(kadm.Offset{Topic: "seen", Partition: 0, At: 0, LeaderEpoch: -1})
	offsets.Add(kadm.Offset{Topic: "hidden", Partition: 0, At: 0, LeaderEpoch: -1})
	for _, g := range []string{"g-seen", "g-hidden"} {
		if err := adm.CommitAllOffsets(ctx, g, offsets); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range []string{"t-seen", "t-hidden"} { // each left open on seen-0
		txc, err := kgo.NewClient(kgo.SeedBrokers(kafka), kgo.TransactionalID(id), kgo.DefaultProduceTopic("seen"))
		if err != nil {
			t.Fatal(err)
		}
		defer txc.Close()
		if err := txc.BeginTransaction(); err != nil {
			t.Fatal(err)
		}
		if err := txc.ProduceSync(ctx, &kgo.Record{Value: []byte(id)}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	shows := func(page, where, attr string, want, not string) {
		t.Helper()
		if !strings.Contains(page, attr+`="`+want+`"`) || strings.Contains(page, attr+`="`+not+`"`) {
			t.Errorf("%s: want %s=%q shown and %s=%q not", where, attr, want, attr, not)
		}
	}
	home := get("/console", http.StatusOK)
	shows(home, "home", "data-topic", "seen", "hidden")
	shows(home, "home", "data-group", "g-seen", "g-hidden")
	shows(home, "home", "data-txn", "t-seen", "t-hidden")
	shows(get("/console/topics/seen/0", http.StatusOK), "seen-0", "data-txn", "t-seen", "t-hidden")
	shows(get("/console/groups/g-seen", http.StatusOK), "group g-seen's lag", "data-partition", "seen-0", "hidden-0")
	for _, target := range []string{"/console/topics/hidden/0", "/console/topics/none/0"} {
		if page := get(target, http.StatusForbidden); !strings.Contains(page, "may not describe topic") {
			t.Errorf("%s does not say the topic may not be described", target)
		}
	}
	for _, target := range []string{"/console/groups/g-hidden", "/console/groups/none"} {
		if page := get(target, http.StatusForbidden); !strings.Contains(page, "may not describe group") || strings.Contains(page, "data-partition") {
			t.Errorf("%s does not refuse the group, or shows its lag", target)
		}
	}
}
