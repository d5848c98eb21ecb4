package e2e

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestBadFrames sends the broker malformed, truncated, oversized and
// unsupported requests over raw TCP. A frame it cannot read, or a request
// for an API or version it does not serve, closes only that connection.
func TestBadFrames(t *testing.T) {
	t.Parallel()
	b := startBroker(t)

	// Every case ends by checking the broker still serves a new connection.
	stillServes := func(t *testing.T) {
		t.Helper()
		if !b.Running() {
			t.Fatalf("the broker process exited")
		}
		c := dialRaw(t, b.Addr)
		resp := c.apiVersions(t, 3)
		if resp.ErrorCode != 0 || len(resp.ApiKeys) == 0 {
			t.Fatalf("ApiVersions v3 on a fresh connection: error %d, %d keys", resp.ErrorCode, len(resp.ApiKeys))
		}
	}

	t.Run("ApiVersions", func(t *testing.T) {
		c := dialRaw(t, b.Addr)
		for _, v := range []int16{0, 1, 2, 3, 4} {
			resp := c.apiVersions(t, v)
			if resp.ErrorCode != 0 {
				t.Errorf("ApiVersions v%d: error %d", v, resp.ErrorCode)
			}
			// What the clients in these tests need, from kafkajs's old
			// versions to the newest kmsg knows.
			need := map[int16]int16{ // key -> lowest max version we require
				0: 7, 1: 11, 2: 1, 3: 6, 18: 2, 19: 3, 20: 1, 21: 0, 32: 0, 37: 0, 44: 0, 60: 0,
			}
			have := map[int16]kmsg.ApiVersionsResponseApiKey{}
			for _, k := range resp.ApiKeys {
				have[k.ApiKey] = k
				if k.MinVersion > k.MaxVersion || k.MinVersion < 0 {
					t.Errorf("ApiVersions v%d: key %d has versions %d..%d", v, k.ApiKey, k.MinVersion, k.MaxVersion)
				}
			}
			for key, max := range need {
				k, ok := have[key]
				if !ok || k.MaxVersion < max {
					t.Errorf("ApiVersions v%d: key %d (%s) max %d (listed %v), want at least %d",
						v, key, kmsg.NameForKey(key), k.MaxVersion, ok, max)
				}
			}
		}
	})

	t.Run("OversizedFrame", func(t *testing.T) {
		requireBinary(t) // kfake would allocate and wait
		c := dialRaw(t, b.Addr)
		before := len(b.Output())
		// 200 MB > socket.request.max.bytes (default 104857600), then a few
		// bytes: the broker must not wait for (or allocate) the rest.
		var hdr [4]byte
		binary.BigEndian.PutUint32(hdr[:], 200_000_000)
		c.write(t, append(hdr[:], 0, 18, 0, 3))
		c.expectClosed(t)
		eventually(t, 30*time.Second, "the broker logs why it closed the connection", func() error {
			out := b.Output()[before:]
			if mentionsAny(out, "size", "large", "exceed", "max", "104857600", "socket.request.max.bytes") {
				t.Logf("broker said: %s", strings.TrimSpace(out))
				return nil
			}
			return fmt.Errorf("no log line about the oversized frame; output since: %q", out)
		})
		stillServes(t)
	})

	t.Run("NegativeSize", func(t *testing.T) {
		requireBinary(t)
		c := dialRaw(t, b.Addr)
		c.write(t, []byte{0xff, 0xff, 0xff, 0xf0, 0, 18, 0, 3})
		c.expectClosed(t)
		stillServes(t)
	})

	t.Run("TruncatedFrameThenClose", func(t *testing.T) {
		c := dialRaw(t, b.Addr)
		var hdr [4]byte
		binary.BigEndian.PutUint32(hdr[:], 100)
		c.write(t, append(hdr[:], 0, 18, 0, 3, 0, 0, 0, 1)) // 8 of 100 bytes
		c.conn.Close()
		stillServes(t)
	})

	t.Run("HeaderShorterThanFixedFields", func(t *testing.T) {
		requireBinary(t) // kfake reads past the end and panics
		c := dialRaw(t, b.Addr)
		c.write(t, []byte{0, 0, 0, 3, 0, 18, 0}) // 3-byte frame: key + half a version
		c.expectClosed(t)
		stillServes(t)
	})

	t.Run("GarbageClientID", func(t *testing.T) {
		requireBinary(t)
		c := dialRaw(t, b.Addr)
		// ApiVersions v0 header whose client id claims 500 bytes of a
		// 10-byte frame.
		frame := []byte{0, 0, 0, 10, 0, 18, 0, 0, 0, 0, 0, 9, 0x01, 0xf4}
		c.write(t, frame)
		c.expectClosed(t)
		stillServes(t)
	})

	t.Run("GarbageBody", func(t *testing.T) {
		requireBinary(t)
		c := dialRaw(t, b.Addr)
		// A Metadata v9 (flexible) header followed by bytes that do not
		// decode as a Metadata request: a topics array claiming 2^31
		// entries.
		body := []byte{0xff, 0xff, 0xff, 0xff, 0x0f}
		c.writeRequest(t, 3, 9, 11, true, body)
		c.expectClosed(t)
		stillServes(t)
	})

	// An API or version the broker does not serve closes the connection,
	// as Kafka does (ApiVersions excepted): an error answer could read as
	// success where a response has no per-item fields to carry the code.
	for _, c := range []struct {
		name         string
		key, version int16
	}{
		{"UnknownApiKey", 9999, 0},
		{"UnsupportedVersionOfKnownAPI", 3, 999}, // Metadata v999
		{"UnservedApi", 38, 0},                   // CreateDelegationToken
	} {
		t.Run(c.name, func(t *testing.T) {
			requireBinary(t) // kfake panics on an unknown key
			raw := dialRaw(t, b.Addr)
			if resp := raw.apiVersions(t, 3); resp.ErrorCode != 0 {
				t.Fatalf("ApiVersions: error %d", resp.ErrorCode)
			}
			raw.writeRequest(t, c.key, c.version, 4242, false, nil)
			raw.expectClosed(t)
			stillServes(t)
		})
	}

	t.Run("ApiVersionsTooNew", func(t *testing.T) {
		requireBinary(t)
		c := dialRaw(t, b.Addr)
		// KIP-511: a too-new ApiVersions gets a v0 response with
		// UNSUPPORTED_VERSION and the supported versions, so the client
		// can retry with one of them. The body may be anything.
		c.writeRequest(t, 18, 99, 5, true, []byte{0, 0, 0})
		corr, body := c.readFrame(t)
		if corr != 5 {
			t.Fatalf("answer has correlation id %d, want 5", corr)
		}
		resp := kmsg.NewApiVersionsResponse()
		resp.Version = 0
		if err := resp.ReadFrom(body); err != nil {
			t.Fatalf("answer to ApiVersions v99 is not a v0 ApiVersions response: %v (%x)", err, body)
		}
		if resp.ErrorCode != kerr.UnsupportedVersion.Code {
			t.Errorf("ApiVersions v99: error %d, want 35", resp.ErrorCode)
		}
		found := false
		for _, k := range resp.ApiKeys {
			if k.ApiKey == 18 {
				found = k.MaxVersion >= 3
			}
		}
		if !found {
			t.Errorf("ApiVersions v99 answer does not list ApiVersions up to v3+: %+v", resp.ApiKeys)
		}
		if resp := c.apiVersions(t, 3); resp.ErrorCode != 0 {
			t.Errorf("ApiVersions v3 after v99: error %d", resp.ErrorCode)
		}
	})

	t.Run("ManyBadConnectionsThenGood", func(t *testing.T) {
		requireBinary(t)
		for i := range 50 {
			c := dialRaw(t, b.Addr)
			c.write(t, []byte{0, 0, 0, 2, byte(i), 0xff})
			c.conn.Close()
		}
		stillServes(t)
	})
}

// ---------------------------------------------------------------------------
// A raw Kafka connection.

type rawConn struct {
	conn net.Conn
	corr int32
}

func dialRaw(t testing.TB, addr string) *rawConn {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatalf("dial %s: %v", addr, err)
	}
	t.Cleanup(func() { conn.Close() })
	return &rawConn{conn: conn, corr: 1000}
}

func (c *rawConn) write(t testing.TB, p []byte) {
	t.Helper()
	c.conn.SetWriteDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.conn.Write(p); err != nil {
		t.Fatalf("write: %v", err)
	}
}

// writeRequest frames a request: header v1 (v2 if flexible) + body.
func (c *rawConn) writeRequest(t testing.TB, key, version int16, corr int32, flexible bool, body []byte) {
	t.Helper()
	b := make([]byte, 4, 64+len(body))
	b = binary.BigEndian.AppendUint16(b, uint16(key))
	b = binary.BigEndian.AppendUint16(b, uint16(version))
	b = binary.BigEndian.AppendUint32(b, uint32(corr))
	b = binary.BigEndian.AppendUint16(b, 3)
	b = append(b, "e2e"...)
	if flexible {
		b = append(b, 0) // no tagged fields
	}
	b = append(b, body...)
	binary.BigEndian.PutUint32(b, uint32(len(b)-4))
	c.write(t, b)
}

// readFrame reads one response and splits off the correlation id.
func (c *rawConn) readFrame(t testing.TB) (int32, []byte) {
	t.Helper()
	c.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	var size [4]byte
	if _, err := io.ReadFull(c.conn, size[:]); err != nil {
		t.Fatalf("reading a response: %v (the broker dropped the connection instead of answering?)", err)
	}
	n := binary.BigEndian.Uint32(size[:])
	if n < 4 || n > 16<<20 {
		t.Fatalf("response frame size %d", n)
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(c.conn, body); err != nil {
		t.Fatalf("reading a %d-byte response: %v", n, err)
	}
	return int32(binary.BigEndian.Uint32(body)), body[4:]
}

// apiVersions sends an ApiVersions request and decodes the answer.
func (c *rawConn) apiVersions(t testing.TB, version int16) *kmsg.ApiVersionsResponse {
	t.Helper()
	req := kmsg.NewPtrApiVersionsRequest()
	req.Version = version
	req.ClientSoftwareName = "gregor-e2e"
	req.ClientSoftwareVersion = "1.0"
	c.corr++
	c.writeRequest(t, req.Key(), version, c.corr, req.IsFlexible(), req.AppendTo(nil))
	corr, body := c.readFrame(t)
	if corr != c.corr {
		t.Fatalf("ApiVersions v%d: correlation id %d, want %d", version, corr, c.corr)
	}
	// The ApiVersions response header is always v0 (no tagged fields).
	resp := kmsg.NewPtrApiVersionsResponse()
	resp.Version = version
	if err := resp.ReadFrom(body); err != nil {
		t.Fatalf("ApiVersions v%d response does not decode: %v", version, err)
	}
	return resp
}

// expectClosed waits for the broker to close the connection: EOF or reset,
// not a timeout and not data.
func (c *rawConn) expectClosed(t testing.TB) {
	t.Helper()
	c.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	buf := make([]byte, 512)
	n, err := c.conn.Read(buf)
	switch {
	case err == nil:
		t.Fatalf("the broker answered %d bytes (%x) instead of closing the connection", n, buf[:n])
	case errors.Is(err, os.ErrDeadlineExceeded):
		t.Fatalf("the broker kept the connection open for 10s; it should close it")
	case errors.Is(err, io.EOF), isConnReset(err):
	default:
		t.Fatalf("reading after a bad frame: %v", err)
	}
}

func isConnReset(err error) bool {
	return strings.Contains(err.Error(), "connection reset")
}

func mentionsAny(out string, words ...string) bool {
	lo := strings.ToLower(out)
	for _, w := range words {
		if strings.Contains(lo, strings.ToLower(w)) {
			return true
		}
	}
	return false
}

// TestSocketRequestMaxBytesFlag checks that --socket.request.max.bytes is
// the limit: a frame just over it closes the connection, one under it is
// served.
func TestSocketRequestMaxBytesFlag(t *testing.T) {
	t.Parallel()
	requireBinary(t)
	b := startBroker(t, WithConfig("socket.request.max.bytes", "2048"))

	// Under the limit: an ApiVersions request padded with a long client
	// software name (about 1500 bytes) is answered.
	c := dialRaw(t, b.Addr)
	req := kmsg.NewPtrApiVersionsRequest()
	req.Version = 3
	req.ClientSoftwareName = "e2e" + strings.Repeat("a", 1500)
	req.ClientSoftwareVersion = "1"
	c.writeRequest(t, 18, 3, 1, true, req.AppendTo(nil))
	if corr, _ := c.readFrame(t); corr != 1 {
		t.Fatalf("correlation id %d, want 1", corr)
	}

	// Over the limit: closed, without the broker reading the body.
	c = dialRaw(t, b.Addr)
	var hdr [4]byte
	binary.BigEndian.PutUint32(hdr[:], 4096)
	c.write(t, append(hdr[:], 0, 18, 0, 3, 0, 0, 0, 2))
	c.expectClosed(t)
}
