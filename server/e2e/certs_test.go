package e2e

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gregor-kafka/gregor/internal/testca"
)

// testCA is a certificate authority made for one test (internal/testca).
type testCA struct {
	*testca.CA
	pem []byte
}

func newTestCA(t testing.TB, name string) *testCA {
	ca := testca.New(t, name)
	return &testCA{CA: ca, pem: ca.PEM}
}

// issue signs a leaf certificate for cn (testca.CA.Issue).
func (ca *testCA) issue(cn string, notBefore, notAfter time.Time) (tls.Certificate, []byte) {
	return ca.Issue(cn, notBefore, notAfter)
}

// pool is a cert pool of the CA, for clients to verify the broker.
func (ca *testCA) pool() *x509.CertPool { return ca.Pool() }

// writeFile writes data to name in dir and returns its path.
func writeFile(t testing.TB, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// waitForLog waits until the broker's log has said each of wants (its
// output reaches the test through a pipe, a little after the fact).
func waitForLog(t *testing.T, b *Broker, wants ...string) {
	t.Helper()
	for _, want := range wants {
		eventually(t, 30*time.Second, fmt.Sprintf("the broker's log says %q", want), func() error {
			if !strings.Contains(b.Output(), want) {
				return errors.New("not yet")
			}
			return nil
		})
	}
}
