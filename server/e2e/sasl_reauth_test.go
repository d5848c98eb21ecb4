package e2e

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

// TestSASLReauth: with connections.max.reauth.ms, franz-go re-authenticates
// on its connections (KIP-368) and goes on producing; a client that does
// not is disconnected at its first request after its session expired.
func TestSASLReauth(t *testing.T) {
	t.Parallel()
	s := saslBroker(t, "--connections.max.reauth.ms", "1500")
	topic := topicName(t, "")
	cl := s.client(t, s.plain, scram.Auth{User: "admin", Pass: adminPassword}.AsSha512Mechanism(),
		kgo.DefaultProduceTopic(topic), kgo.AllowAutoTopicCreation(), kgo.RetryTimeout(20*time.Second), kgo.RequestRetries(20))
	ctx := testCtx(t, opTimeout)
	eventually(t, 30*time.Second, "franz-go re-authenticates twice and produces", func() error {
		if err := cl.ProduceSync(ctx, &kgo.Record{Value: []byte("v")}).FirstErr(); err != nil {
			t.Fatalf("produce: %v", err)
		}
		if n := strings.Count(s.b.Output(), "re-authenticated as admin"); n < 2 {
			return fmt.Errorf("%d re-authentications", n)
		}
		return nil
	})

	// By hand: PLAIN over SaslHandshake v1 and SaslAuthenticate v1, then
	// Metadata until the session has expired.
	rc := dialRaw(t, s.plain)
	hs := kmsg.NewPtrSASLHandshakeRequest()
	hs.Version, hs.Mechanism = 1, "PLAIN"
	if r, err := rc.roundTrip(hs); err != nil || r.(*kmsg.SASLHandshakeResponse).ErrorCode != 0 {
		t.Fatalf("SaslHandshake: %+v, %v", r, err)
	}
	au := kmsg.NewPtrSASLAuthenticateRequest()
	au.Version, au.SASLAuthBytes = 1, []byte("\x00admin\x00"+adminPassword)
	r, err := rc.roundTrip(au)
	if err != nil {
		t.Fatal(err)
	}
	if ar := r.(*kmsg.SASLAuthenticateResponse); ar.ErrorCode != 0 || ar.SessionLifetimeMillis != 1500 {
		t.Fatalf("SaslAuthenticate: error %d, session lifetime %d ms, want 0 and 1500", ar.ErrorCode, ar.SessionLifetimeMillis)
	}
	answered := 0
	eventually(t, 30*time.Second, "the expired session is closed", func() error {
		md := kmsg.NewPtrMetadataRequest()
		md.Version = 1
		if _, err := rc.roundTrip(md); err != nil {
			return nil // closed
		}
		answered++
		return errors.New("still answered")
	})
	if answered == 0 {
		t.Error("no Metadata was answered before the session expired")
	}
	waitForLog(t, s.b, "expired (connections.max.reauth.ms)")
}

// roundTrip sends req, of a version whose response header has no tagged
// fields, and reads its response; an error is a closed connection.
func (c *rawConn) roundTrip(req kmsg.Request) (kmsg.Response, error) {
	c.corr++
	f := kmsg.NewRequestFormatter(kmsg.FormatterClientID("e2e"))
	frame := f.AppendRequest(nil, req, c.corr)
	_ = c.conn.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.conn.Write(frame); err != nil {
		return nil, err
	}
	var size [4]byte
	if _, err := io.ReadFull(c.conn, size[:]); err != nil {
		return nil, err
	}
	body := make([]byte, binary.BigEndian.Uint32(size[:]))
	if _, err := io.ReadFull(c.conn, body); err != nil {
		return nil, err
	}
	resp := req.ResponseKind()
	resp.SetVersion(req.GetVersion())
	return resp, resp.ReadFrom(body[4:])
}
