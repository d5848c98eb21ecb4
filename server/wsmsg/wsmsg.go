// Package wsmsg is the one way Gregor's websockets (the live trace, the
// classroom) read and write messages: JSON text frames, each an object
// with a "type", bounded in size and rate. A message that breaks a rule
// is a Refusal, and the socket that sent it is closed with the refusal's
// code and reason; nothing else is affected.
//
// # Invariants
//
//   - Reader.Next returns only text frames of at most Limits.MaxBytes that
//     hold a JSON object with a non-empty "type"; anything else is a
//     *Refusal.
//   - A socket sends at most Limits.Burst messages at once and
//     Limits.PerSecond on average (a token bucket); one more is a Refusal.
//   - Decode accepts only the fields of the target type and one value.
package wsmsg

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/coder/websocket"
)

// Limits bound what one socket may send.
type Limits struct {
	MaxBytes  int64   // largest message
	PerSecond float64 // sustained messages per second
	Burst     int     // messages accepted at once
}

// Refusal is why a socket is being closed: a websocket close code and a
// reason the peer reads (RFC 6455 §7.4; at most 123 bytes).
type Refusal struct {
	Code   websocket.StatusCode
	Reason string
}

func (r *Refusal) Error() string { return fmt.Sprintf("%s: %s", r.Code, r.Reason) }

// Refuse builds a Refusal with a policy-violation code (1008).
// The reason is cut to fit a close frame.
func Refuse(format string, args ...any) *Refusal {
	reason := fmt.Sprintf(format, args...)
	if len(reason) > maxReason {
		reason = reason[:maxReason]
	}
	return &Refusal{Code: websocket.StatusPolicyViolation, Reason: reason}
}

// Reader reads typed messages from one socket within its Limits.
type Reader struct {
	c      *websocket.Conn
	lim    Limits
	now    func() time.Time
	tokens float64
	last   time.Time
}

// NewReader sets c's read limit and returns a reader for it. now is the
// clock of the rate limit (time.Now natively; a test may step it).
func NewReader(c *websocket.Conn, lim Limits, now func() time.Time) *Reader {
	c.SetReadLimit(lim.MaxBytes)
	return &Reader{c: c, lim: lim, now: now, tokens: float64(lim.Burst), last: now()}
}

// Next reads the next message and returns its type and its bytes. A
// transport error (the peer left, or an oversized message, which the
// websocket library closes with 1009 itself) is returned as is; a bad
// message is a *Refusal.
func (r *Reader) Next(ctx context.Context) (string, []byte, error) {
	kind, data, err := r.c.Read(ctx)
	if err != nil {
		return "", nil, err
	}
	if !r.take() {
		return "", nil, Refuse("too many messages: at most %g a second", r.lim.PerSecond)
	}
	if kind != websocket.MessageText {
		return "", nil, &Refusal{Code: websocket.StatusUnsupportedData, Reason: "binary frames are not accepted: send JSON text"}
	}
	var head struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return "", nil, Refuse("not a JSON object: %s", err)
	}
	if head.Type == "" {
		return "", nil, Refuse(`a message needs a "type"`)
	}
	return head.Type, data, nil
}

// NextInto reads the next message into v (strictly, as Decode) and
// returns its type.
func (r *Reader) NextInto(ctx context.Context, v any) (string, error) {
	typ, data, err := r.Next(ctx)
	if err != nil {
		return "", err
	}
	return typ, Decode(typ, data, v)
}

// take spends one token of the bucket, refilled at PerSecond up to Burst.
func (r *Reader) take() bool {
	now := r.now()
	r.tokens = min(float64(r.lim.Burst), r.tokens+now.Sub(r.last).Seconds()*r.lim.PerSecond)
	r.last = now
	if r.tokens < 1 {
		return false
	}
	r.tokens--
	return true
}

// Decode reads data into v strictly: unknown fields or trailing data are
// a Refusal naming the message type.
func Decode(typ string, data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return Refuse("bad %q message: %s", typ, err)
	}
	if dec.More() {
		return Refuse("bad %q message: trailing data", typ)
	}
	return nil
}

// writeTimeout bounds one write: a peer that does not read for this long
// is gone.
const writeTimeout = 10 * time.Second

// Write sends v as one JSON text message.
func Write(ctx context.Context, c *websocket.Conn, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return WriteRaw(ctx, c, data)
}

// WriteRaw sends an already encoded JSON message (a broadcast encodes
// once for every receiver).
func WriteRaw(ctx context.Context, c *websocket.Conn, data []byte) error {
	ctx, cancel := context.WithTimeout(ctx, writeTimeout)
	defer cancel()
	return c.Write(ctx, websocket.MessageText, data)
}

// Close ends the socket because of err: with the Refusal's code and reason,
// or as a normal closure when the peer simply left.
func Close(c *websocket.Conn, err error) {
	var ref *Refusal
	if errors.As(err, &ref) {
		c.Close(ref.Code, ref.Reason)
		return
	}
	c.CloseNow()
}

// maxReason keeps a close reason within a control frame (125 bytes less
// the 2-byte code).
const maxReason = 120
