package e2e

import (
	"net"
	"strings"
	"testing"
)

// TestCLITimeout: a broker that takes the connection and never answers
// is a timeout (exit 4, the request and the broker named, --timeout
// suggested); a port nothing listens on is no broker reachable (exit 3).
func TestCLITimeout(t *testing.T) {
	t.Parallel()
	requireBinary(t)
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	go func() {
		var held []net.Conn // open and unanswered until the listener closes
		defer func() {
			for _, c := range held {
				c.Close()
			}
		}()
		for {
			c, err := silent.Accept()
			if err != nil {
				return
			}
			held = append(held, c)
		}
	}()
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedAddr := closed.Addr().String()
	closed.Close()

	code, out, errOut := gregorCLI(t, silent.Addr().String(), "", "topic", "create", "t", "--timeout", "2s")
	if code != 4 || out != "" || !strings.HasPrefix(errOut, "gregor: ") ||
		!strings.Contains(errOut, "timed out after 2s waiting for "+silent.Addr().String()) || !strings.Contains(errOut, "--timeout") {
		t.Errorf("a broker that never answers: exit %d, stdout %q, stderr %q; want 4 and \"gregor: ... timed out after 2s waiting for %s; raise --timeout\"",
			code, out, errOut, silent.Addr())
	}
	code, out, errOut = gregorCLI(t, closedAddr, "", "topic", "create", "t", "--timeout", "2s")
	if code != 3 || out != "" || !strings.HasPrefix(errOut, "gregor: no broker reachable at "+closedAddr) || strings.Contains(errOut, "timed out") {
		t.Errorf("a closed port: exit %d, stdout %q, stderr %q; want 3 and \"gregor: no broker reachable at %s: ...\"", code, out, errOut, closedAddr)
	}
}
