package classroom

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"github.com/gregor-kafka/gregor/lessons/classroom/protocol"
	"math/big"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/gregor-kafka/gregor/server/access"
	"github.com/gregor-kafka/gregor/server/wsmsg"
)

// Config bounds a Hub. Zero fields take the defaults of Defaults.
type Config struct {
	MaxRooms    int
	MaxStudents int           // per room
	IdleTTL     time.Duration // a room with nothing happening this long expires
	Teacher     wsmsg.Limits  // what the teacher's socket may send
	Student     wsmsg.Limits  // what a student's socket may send
	// Now is the clock of expiry and rate limits (time.Now natively).
	Now func() time.Time
	// Page renders the playground page for a query string; /join/CODE
	// serves it marked with the room (see joinMark).
	Page func(query string) []byte
}

// Defaults: a few classes at once, a large lecture each; a teacher may
// step as fast as a held arrow key, a student only reports.
var Defaults = Config{
	MaxRooms:    32,
	MaxStudents: 200,
	IdleTTL:     2 * time.Hour,
	Teacher:     wsmsg.Limits{MaxBytes: 8 << 10, PerSecond: 30, Burst: 60},
	Student:     wsmsg.Limits{MaxBytes: 1 << 10, PerSecond: 5, Burst: 20},
}

// Hub holds the rooms.
type Hub struct {
	cfg   Config
	mu    sync.Mutex
	rooms map[string]*Room
}

// NewHub returns a hub with cfg's bounds (Defaults where zero).
func NewHub(cfg Config) *Hub {
	d := Defaults
	if cfg.MaxRooms == 0 {
		cfg.MaxRooms = d.MaxRooms
	}
	if cfg.MaxStudents == 0 {
		cfg.MaxStudents = d.MaxStudents
	}
	if cfg.IdleTTL == 0 {
		cfg.IdleTTL = d.IdleTTL
	}
	if cfg.Teacher == (wsmsg.Limits{}) {
		cfg.Teacher = d.Teacher
	}
	if cfg.Student == (wsmsg.Limits{}) {
		cfg.Student = d.Student
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Hub{cfg: cfg, rooms: map[string]*Room{}}
}

// ErrFull is returned by Open when MaxRooms rooms are open.
var ErrFull = errors.New("classroom: too many rooms are open")

// codeLetters are the letters of a join code: no I, L or O, which read as
// 1 and 0 on a projector.
const (
	codeLetters = "ABCDEFGHJKMNPQRSTUVWXYZ"
	codeLen     = 5
)

// Open creates a room with a fresh code and teacher token.
func (h *Hub) Open() (*Room, error) {
	now := h.cfg.Now()
	h.mu.Lock()
	defer h.mu.Unlock()
	h.sweepLocked(now)
	if len(h.rooms) >= h.cfg.MaxRooms {
		return nil, ErrFull
	}
	code := newCode()
	for h.rooms[code] != nil {
		code = newCode()
	}
	r := &Room{Code: code, token: access.NewToken(), students: map[*member]bool{}, lastActive: now}
	h.rooms[code] = r
	return r, nil
}

func newCode() string {
	var b strings.Builder
	for range codeLen {
		n, _ := rand.Int(rand.Reader, big.NewInt(int64(len(codeLetters))))
		b.WriteByte(codeLetters[n.Int64()])
	}
	return b.String()
}

// Room finds an open room by its code (any case), or nil.
func (h *Hub) Room(code string) *Room {
	now := h.cfg.Now()
	h.mu.Lock()
	defer h.mu.Unlock()
	h.sweepLocked(now)
	return h.rooms[strings.ToUpper(code)]
}

// sweepLocked closes the rooms idle for longer than IdleTTL.
func (h *Hub) sweepLocked(now time.Time) {
	for code, r := range h.rooms {
		if now.Sub(r.idleSince()) > h.cfg.IdleTTL {
			r.close(&wsmsg.Refusal{Code: websocket.StatusGoingAway, Reason: "the room expired"})
			delete(h.rooms, code)
		}
	}
}

// TeacherCookie is the cookie holding a room's teacher token; its path is
// the room's, so it goes only to that room's socket.
const TeacherCookie = "gregor_teacher"

// Opened is POST /rooms's answer.
type Opened struct {
	Code string `json:"code"`
	Join string `json:"join"` // the students' page
	WS   string `json:"ws"`   // the socket, for the teacher and the students
}

// ServeOpen is POST /rooms: it opens a room and sets the teacher token as
// an HttpOnly cookie. Who may call it is access's business.
func (h *Hub) ServeOpen(w http.ResponseWriter, r *http.Request) {
	room, err := h.Open()
	if err != nil {
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: TeacherCookie, Value: room.token, Path: "/rooms/" + room.Code,
		HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	w.Write(encode(Opened{Code: room.Code, Join: "/join/" + room.Code, WS: "/rooms/" + room.Code + "/ws"}))
}

// joinMark is the attribute the join page carries on <html>, which the
// wasm reads to connect to the room.
func joinMark(code string) string { return `data-room="` + code + `"` }

// ServeJoin is GET /join/{code}: the playground page for the URL's query
// (a student's page records the teacher's position there, so a reload
// shows it at once), marked with the room, or 404 for a code that names
// no open room. The page's relative asset paths (assets/…, right for a
// static copy of the page) are made absolute: from /join/ they would name
// /join/assets/.
func (h *Hub) ServeJoin(w http.ResponseWriter, r *http.Request) {
	room := h.Room(r.PathValue("code"))
	if room == nil {
		http.Error(w, "no class with this code: check it with your teacher (codes expire)", http.StatusNotFound)
		return
	}
	var page []byte
	if h.cfg.Page != nil {
		page = h.cfg.Page(r.URL.RawQuery)
	}
	page = bytes.Replace(page, []byte("<html "), []byte("<html "+joinMark(room.Code)+" "), 1)
	page = bytes.ReplaceAll(page, []byte(`"assets/`), []byte(`"/assets/`))
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.Write(page)
}

// ServeWS is GET /rooms/{code}/ws: the teacher's socket when the request
// carries the room's teacher cookie, a student's otherwise.
func (h *Hub) ServeWS(w http.ResponseWriter, r *http.Request) {
	c, err := websocket.Accept(w, r, nil) // same origin only
	if err != nil {
		return
	}
	room := h.Room(r.PathValue("code"))
	if room == nil {
		c.Close(websocket.StatusPolicyViolation, "no class with this code (codes expire)")
		return
	}
	teacher := false
	if ck, err := r.Cookie(TeacherCookie); err == nil && access.Equal(ck.Value, room.token) {
		teacher = true
	}
	lim := h.cfg.Student
	if teacher {
		lim = h.cfg.Teacher
	}
	m := newMember(teacher)
	if err := room.join(m, h.cfg.MaxStudents, h.cfg.Now()); err != nil {
		wsmsg.Close(c, err)
		return
	}
	defer room.leave(m)
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	rd := wsmsg.NewReader(c, lim, h.cfg.Now)
	readErr := make(chan error, 1)
	go func() { readErr <- h.read(ctx, rd, room, m) }()
	wsmsg.Close(c, writeLoop(ctx, c, m, readErr))
}

// read applies the socket's messages until one is bad or it ends.
func (h *Hub) read(ctx context.Context, rd *wsmsg.Reader, room *Room, m *member) error {
	for {
		var in protocol.In
		if _, err := rd.NextInto(ctx, &in); err != nil {
			return err
		}
		if err := room.handle(m, &in, h.cfg.Now()); err != nil {
			return err
		}
	}
}

// writeLoop sends the member's queued messages in order until it is
// kicked, its reader fails, or the request ends.
func writeLoop(ctx context.Context, c *websocket.Conn, m *member, readErr <-chan error) error {
	for {
		select {
		case msg := <-m.out:
			if err := wsmsg.WriteRaw(ctx, c, msg); err != nil {
				return err
			}
		case <-m.stop:
			return m.why
		case err := <-readErr:
			return err
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
