package classroom

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/gregor-kafka/gregor/lessons/classroom/protocol"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/gregor-kafka/gregor/server/wsmsg"
)

// class is a classroom hub behind a real HTTP server.
type class struct {
	t   *testing.T
	hub *Hub
	srv *httptest.Server
}

func newClass(t *testing.T, cfg Config) *class {
	t.Helper()
	h := NewHub(cfg)
	mux := http.NewServeMux()
	mux.HandleFunc("POST /rooms", h.ServeOpen)
	mux.HandleFunc("GET /join/{code}", h.ServeJoin)
	mux.HandleFunc("GET /rooms/{code}/ws", h.ServeWS)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return &class{t: t, hub: h, srv: srv}
}

// open opens a room and returns its code and the teacher's cookie.
func (c *class) open() (string, *http.Cookie) {
	c.t.Helper()
	resp, err := http.Post(c.srv.URL+"/rooms", "application/json", nil)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	var o Opened
	if err := json.NewDecoder(resp.Body).Decode(&o); err != nil || resp.StatusCode != http.StatusCreated {
		c.t.Fatalf("POST /rooms: %d, %v", resp.StatusCode, err)
	}
	for _, ck := range resp.Cookies() {
		if ck.Name == TeacherCookie {
			if !ck.HttpOnly || ck.Path != "/rooms/"+o.Code || strings.Contains(o.Join+o.WS, ck.Value) {
				c.t.Fatalf("teacher cookie %+v: want HttpOnly, scoped to the room, and in no URL", ck)
			}
			return o.Code, ck
		}
	}
	c.t.Fatalf("POST /rooms set no %s cookie", TeacherCookie)
	return "", nil
}

// sock is one websocket client of a room.
type sock struct {
	t *testing.T
	c *websocket.Conn
}

func (c *class) dial(ctx context.Context, code string, cookie *http.Cookie) *sock {
	c.t.Helper()
	opts := &websocket.DialOptions{HTTPHeader: http.Header{}}
	if cookie != nil {
		opts.HTTPHeader.Set("Cookie", cookie.String())
	}
	ws, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(c.srv.URL, "http")+"/rooms/"+code+"/ws", opts)
	if err != nil {
		c.t.Fatalf("dial room %s: %v", code, err)
	}
	ws.SetReadLimit(1 << 20)
	c.t.Cleanup(func() { ws.CloseNow() })
	return &sock{t: c.t, c: ws}
}

func (s *sock) send(ctx context.Context, v any) error {
	var data []byte
	if raw, ok := v.(string); ok {
		data = []byte(raw)
	} else {
		data, _ = json.Marshal(v)
	}
	return s.c.Write(ctx, websocket.MessageText, data)
}

// msg is any server message, decoded loosely.
type msg struct {
	Type      string             `json:"type"`
	Role      string             `json:"role"`
	Seq       uint64             `json:"seq"`
	Position  *protocol.Position `json:"position"`
	Question  *protocol.Question `json:"question"`
	ID        string             `json:"id"`
	Counts    []int              `json:"counts"`
	Answered  int                `json:"answered"`
	Connected int                `json:"connected"`
	Following int                `json:"following"`
}

func (s *sock) next(ctx context.Context) (msg, error) {
	_, data, err := s.c.Read(ctx)
	if err != nil {
		return msg{}, err
	}
	var m msg
	if err := json.Unmarshal(data, &m); err != nil {
		s.t.Errorf("the server sent %q: %v", data, err)
	}
	return m, nil
}

// expect reads until a message of type typ that satisfies ok.
func (s *sock) expect(ctx context.Context, typ string, ok func(msg) bool) msg {
	s.t.Helper()
	for {
		m, err := s.next(ctx)
		if err != nil {
			s.t.Fatalf("waiting for %s: %v", typ, err)
		}
		if m.Type == typ && (ok == nil || ok(m)) {
			return m
		}
	}
}

// closed reads until the server closes the socket and returns the close.
func (s *sock) closed(ctx context.Context) websocket.CloseError {
	s.t.Helper()
	for {
		if _, err := s.next(ctx); err != nil {
			var ce websocket.CloseError
			if !errors.As(err, &ce) {
				s.t.Fatalf("the socket ended without a close frame: %v", err)
			}
			return ce
		}
	}
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// TestFiftyStudents: a teacher steps through a lesson in front of 50
// students; each receives every step, in order, and a latecomer starts
// at the teacher's current step.
func TestFiftyStudents(t *testing.T) {
	const students, steps = 50, 200
	c := newClass(t, Config{Teacher: wsmsg.Limits{MaxBytes: 8 << 10, PerSecond: 1e6, Burst: steps}})
	ctx := testCtx(t)
	code, cookie := c.open()
	teacher := c.dial(ctx, code, cookie)
	teacher.expect(ctx, protocol.TypeWelcome, func(m msg) bool { return m.Role == "teacher" })
	socks := make([]*sock, students)
	for i := range socks {
		socks[i] = c.dial(ctx, code, nil)
		socks[i].expect(ctx, protocol.TypeWelcome, func(m msg) bool { return m.Role == "student" })
	}
	teacher.expect(ctx, protocol.TypeRoster, func(m msg) bool { return m.Connected == students && m.Following == students })

	// The teacher steps once every student has the previous step (a class
	// steps far slower than this), so each delay is one step's trip, not
	// a backlog.
	var sent [steps + 1]atomic.Int64 // unix ns at which step i was sent
	received := make(chan struct{}, students)
	var wg sync.WaitGroup
	delays := make([][]time.Duration, students)
	for i, s := range socks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for want := uint64(1); want <= steps; want++ {
				m, err := s.next(ctx)
				if err != nil {
					t.Errorf("student %d, step %d: %v", i, want, err)
					return
				}
				got := time.Now()
				if m.Type != protocol.TypePosition || m.Seq != want || m.Position.Step != int(want) || m.Position.Lesson != "segments" {
					t.Errorf("student %d: got %+v, want position %d", i, m, want)
					return
				}
				delays[i] = append(delays[i], got.Sub(time.Unix(0, sent[want].Load())))
				received <- struct{}{}
			}
		}()
	}
	for step := 1; step <= steps; step++ {
		sent[step].Store(time.Now().UnixNano())
		if err := teacher.send(ctx, protocol.In{Type: protocol.TypePosition, Position: &protocol.Position{Lesson: "segments", Seed: 7, Step: step, Lang: "en"}}); err != nil {
			t.Fatal(err)
		}
		for range students {
			select {
			case <-received:
			case <-ctx.Done():
				t.Fatalf("step %d did not reach every student: %v", step, ctx.Err())
			}
		}
	}
	wg.Wait()
	var all []time.Duration
	for _, d := range delays {
		all = append(all, d...)
	}
	if len(all) != students*steps {
		t.Fatalf("%d deliveries, want %d", len(all), students*steps)
	}
	slices.Sort(all)
	t.Logf("%d students x %d steps: teacher-to-student delay p50 %v, p99 %v, max %v",
		students, steps, all[len(all)/2], all[len(all)*99/100], all[len(all)-1])

	late := c.dial(ctx, code, nil)
	late.expect(ctx, protocol.TypeWelcome, nil)
	if m, err := late.next(ctx); err != nil || m.Type != protocol.TypePosition || m.Seq != steps || m.Position.Step != steps {
		t.Errorf("a latecomer's first message after welcome: %+v, %v; want position %d", m, err, steps)
	}
}

// TestRefusals: each bad input closes its own socket with a code and a
// reason; the teacher and another student carry on.
func TestRefusals(t *testing.T) {
	c := newClass(t, Config{})
	ctx := testCtx(t)
	code, cookie := c.open()
	teacher := c.dial(ctx, code, cookie)
	bystander := c.dial(ctx, code, nil)
	bystander.expect(ctx, protocol.TypeWelcome, nil)
	step := 0
	stillWorks := func(after string) {
		t.Helper()
		step++
		if err := teacher.send(ctx, protocol.In{Type: protocol.TypePosition, Position: &protocol.Position{Lesson: "segments", Step: step}}); err != nil {
			t.Fatalf("after %s, the teacher cannot send: %v", after, err)
		}
		bystander.expect(ctx, protocol.TypePosition, func(m msg) bool { return m.Position.Step == step })
	}

	for _, tc := range []struct {
		name   string
		code   string
		frames []any // strings are sent raw; []byte as a binary frame
		status websocket.StatusCode
		reason string
	}{
		{"unknown room", "ZZZZZ", nil, websocket.StatusPolicyViolation, "no class with this code"},
		{"student drives", code, []any{protocol.In{Type: protocol.TypePosition, Position: &protocol.Position{Step: 99}}}, websocket.StatusPolicyViolation, "only the teacher drives this room"},
		{"student asks", code, []any{protocol.In{Type: protocol.TypeAsk, Question: &protocol.Question{ID: "q", Choices: []string{"a", "b"}}}}, websocket.StatusPolicyViolation, "only the teacher"},
		{"malformed", code, []any{`{"type":"follow",`}, websocket.StatusPolicyViolation, "not a JSON object"},
		{"no type", code, []any{`{"following":true}`}, websocket.StatusPolicyViolation, `needs a "type"`},
		{"unknown type", code, []any{`{"type":"dance"}`}, websocket.StatusPolicyViolation, `unknown message type "dance"`},
		{"unknown field", code, []any{`{"type":"follow","following":true,"admin":1}`}, websocket.StatusPolicyViolation, `unknown field "admin"`},
		{"binary", code, []any{[]byte{1, 2, 3}}, websocket.StatusUnsupportedData, "binary frames"},
		{"oversized", code, []any{`{"type":"follow","x":"` + strings.Repeat("x", 2000) + `"}`}, websocket.StatusMessageTooBig, "read limited at"},
		{"flood", code, slices.Repeat([]any{protocol.In{Type: protocol.TypeFollow, Following: new(bool)}}, 200), websocket.StatusPolicyViolation, "too many messages"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := c.dial(ctx, tc.code, nil)
			for _, f := range tc.frames {
				var err error
				if b, ok := f.([]byte); ok {
					err = s.c.Write(ctx, websocket.MessageBinary, b)
				} else {
					err = s.send(ctx, f)
				}
				if err != nil {
					break // closed already: the close below says why
				}
			}
			ce := s.closed(ctx)
			if ce.Code != tc.status || !strings.Contains(ce.Reason, tc.reason) {
				t.Errorf("closed with %d %q, want %d with %q", ce.Code, ce.Reason, tc.status, tc.reason)
			}
			stillWorks(tc.name)
		})
	}
	if ctx.Err() != nil {
		t.Fatal(ctx.Err())
	}
}

// TestQuestions: an asked question reaches the students (a latecomer
// too), answers are tallied for the teacher once per student, and the
// reveal reaches everyone.
func TestQuestions(t *testing.T) {
	c := newClass(t, Config{})
	ctx := testCtx(t)
	code, cookie := c.open()
	teacher := c.dial(ctx, code, cookie)
	var students []*sock
	for range 3 {
		s := c.dial(ctx, code, nil)
		s.expect(ctx, protocol.TypeWelcome, nil)
		students = append(students, s)
	}
	teacher.expect(ctx, protocol.TypeRoster, func(m msg) bool { return m.Connected == 3 })
	q := &protocol.Question{ID: "q1", Prompt: "Which offset does the retry get?", Choices: []string{"0", "1", "2"}}
	if err := teacher.send(ctx, protocol.In{Type: protocol.TypeAsk, Question: q}); err != nil {
		t.Fatal(err)
	}
	teacher.expect(ctx, protocol.TypeTally, func(m msg) bool { return m.Answered == 0 })
	for i, s := range students {
		s.expect(ctx, protocol.TypeAsk, func(m msg) bool { return m.Question.ID == "q1" && len(m.Question.Choices) == 3 })
		choice := 1
		if i == 2 {
			choice = 2
		}
		s.send(ctx, protocol.In{Type: protocol.TypeAnswer, ID: "q1", Choice: &choice})
	}
	// Student 2 changes its mind: its answer counts once.
	zero := 0
	students[2].send(ctx, protocol.In{Type: protocol.TypeAnswer, ID: "q1", Choice: &zero})
	teacher.expect(ctx, protocol.TypeTally, func(m msg) bool { return fmt.Sprint(m.Counts) == "[1 2 0]" && m.Answered == 3 })

	late := c.dial(ctx, code, nil)
	late.expect(ctx, protocol.TypeWelcome, nil)
	late.expect(ctx, protocol.TypeAsk, func(m msg) bool { return m.Question.ID == "q1" })

	correct := 1
	teacher.send(ctx, protocol.In{Type: protocol.TypeReveal, ID: "q1", Correct: &correct})
	for _, s := range append(students, late, teacher) {
		s.expect(ctx, protocol.TypeReveal, func(m msg) bool { return fmt.Sprint(m.Counts) == "[1 2 0]" })
	}
	// Following: one student detaches to explore.
	students[0].send(ctx, protocol.In{Type: protocol.TypeFollow, Following: new(bool)})
	teacher.expect(ctx, protocol.TypeRoster, func(m msg) bool { return m.Connected == 4 && m.Following == 3 })
}

// TestTeacherReconnects: a new teacher socket takes over; the old one is
// closed with a reason; a wrong cookie is a student.
func TestTeacherReconnects(t *testing.T) {
	c := newClass(t, Config{})
	ctx := testCtx(t)
	code, cookie := c.open()
	first := c.dial(ctx, code, cookie)
	first.expect(ctx, protocol.TypeWelcome, func(m msg) bool { return m.Role == "teacher" })
	second := c.dial(ctx, code, cookie)
	second.expect(ctx, protocol.TypeWelcome, func(m msg) bool { return m.Role == "teacher" })
	if ce := first.closed(ctx); !strings.Contains(ce.Reason, "connected again") {
		t.Errorf("the replaced teacher socket closed with %q", ce.Reason)
	}
	forged := &http.Cookie{Name: TeacherCookie, Value: "guess"}
	s := c.dial(ctx, code, forged)
	s.expect(ctx, protocol.TypeWelcome, func(m msg) bool { return m.Role == "student" })
}

// TestBounds: rooms are bounded, full rooms refuse students, and idle
// rooms expire, closing their sockets.
func TestBounds(t *testing.T) {
	var now atomic.Int64
	now.Store(time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC).UnixNano())
	clock := func() time.Time { return time.Unix(0, now.Load()) }
	c := newClass(t, Config{MaxRooms: 2, MaxStudents: 1, IdleTTL: time.Hour, Now: clock})
	ctx := testCtx(t)
	code, _ := c.open()
	c.open()
	if resp, err := http.Post(c.srv.URL+"/rooms", "", nil); err != nil || resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("a third room with MaxRooms 2: %v %v", resp.Status, err)
	}
	s := c.dial(ctx, code, nil)
	s.expect(ctx, protocol.TypeWelcome, nil)
	if ce := c.dial(ctx, code, nil).closed(ctx); !strings.Contains(ce.Reason, "is full") {
		t.Errorf("a second student with MaxStudents 1 closed with %q", ce.Reason)
	}
	if resp, _ := http.Get(c.srv.URL + "/join/" + strings.ToLower(code)); resp.StatusCode != 200 {
		t.Errorf("/join/%s: %s", code, resp.Status)
	}
	now.Add(int64(time.Hour + time.Second))
	if c.hub.Room(code) != nil {
		t.Errorf("room %s outlived its idle TTL", code)
	}
	if ce := s.closed(ctx); ce.Code != websocket.StatusGoingAway || ce.Reason != "the room expired" {
		t.Errorf("the student of an expired room closed with %d %q", ce.Code, ce.Reason)
	}
	if resp, _ := http.Get(c.srv.URL + "/join/" + code); resp.StatusCode != 404 {
		t.Errorf("/join of an expired room: %s", resp.Status)
	}
	c.open() // the expired rooms made space
}
