package server

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadTLSRefuses: settings that cannot make a TLS listener are refused
// at startup with the setting's name (valid files: server/e2e tls_test.go).
func TestLoadTLSRefuses(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.pem")
	if err := os.WriteFile(garbage, []byte("not PEM"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		s    TLSSettings
		want string
	}{
		{TLSSettings{Keystore: filepath.Join(dir, "missing.pem")}, "ssl.keystore.location: open"},
		{TLSSettings{Keystore: garbage}, "want the certificate chain and an unencrypted private key"},
		{TLSSettings{Truststore: garbage}, "need ssl.keystore.location"},
	} {
		if _, err := LoadTLS(tc.s); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("LoadTLS(%+v) = %v, want an error saying %q", tc.s, err, tc.want)
		}
	}
	if cfg, err := LoadTLS(TLSSettings{}); cfg != nil || err != nil {
		t.Errorf("LoadTLS of nothing = %v, %v; want no TLS and no error", cfg, err)
	}
}
