package server

import (
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
	"time"
)

func unsecuredJWS(header, claims string) string {
	enc := base64.RawURLEncoding.EncodeToString
	return enc([]byte(header)) + "." + enc([]byte(claims)) + "."
}

// TestOAuthUnsecuredValidator: the tokens Kafka's unsecured validator
// takes and refuses, and the client messages OAUTHBEARER reads.
func TestOAuthUnsecuredValidator(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	none := `{"alg":"none"}`
	for _, c := range []struct {
		name, token string
		ok          bool
	}{
		{"valid", unsecuredJWS(none, `{"sub":"alice","exp":1800000060}`), true},
		{"fractional exp", unsecuredJWS(none, `{"sub":"alice","exp":1800000000.5}`), true},
		{"expired", unsecuredJWS(none, `{"sub":"alice","exp":1799999940}`), false},
		{"expires now", unsecuredJWS(none, `{"sub":"alice","exp":1800000000}`), false},
		{"no exp", unsecuredJWS(none, `{"sub":"alice"}`), false},
		{"no sub", unsecuredJWS(none, `{"exp":1800000060}`), false},
		{"issued in the future", unsecuredJWS(none, `{"sub":"alice","exp":1800000060,"iat":1800000030}`), false},
		{"signed", unsecuredJWS(`{"alg":"HS256"}`, `{"sub":"alice","exp":1800000060}`), false},
		{"a signature", unsecuredJWS(none, `{"sub":"alice","exp":1800000060}`) + "c2ln", false},
		{"not JSON", "bm9wZQ.bm9wZQ.", false},
	} {
		sub, ok := validateUnsecuredJWS(c.token, now)
		if ok != c.ok || ok && sub != "alice" {
			t.Errorf("%s: %q %v, want ok=%v", c.name, sub, ok, c.ok)
		}
	}

	good := unsecuredJWS(none, fmt.Sprintf(`{"sub":"alice","exp":%d}`, time.Now().Add(time.Hour).Unix()))
	s := &saslConn{mech: oauthMechanism}
	if out, err := s.step([]byte("n,,\x01auth=Bearer " + good + "\x01\x01")); err != nil || out != nil || s.user != "alice" {
		t.Fatalf("a valid token: %q %v, user %q", out, err, s.user)
	}
	s = &saslConn{mech: oauthMechanism}
	if _, err := s.step([]byte("n,a=bob,\x01auth=Bearer " + good + "\x01\x01")); err == nil || !strings.Contains(err.Error(), "different from the token's principal") {
		t.Errorf("authzid bob for alice's token: %v", err)
	}
	// A refused token: an error challenge, then the failure carrying it.
	s = &saslConn{mech: oauthMechanism}
	out, err := s.step([]byte("n,,\x01auth=Bearer " + unsecuredJWS(none, `{"sub":"alice","exp":1}`) + "\x01\x01"))
	if err != nil || string(out) != invalidToken || s.user != "" {
		t.Fatalf("an expired token: %q %v", out, err)
	}
	if _, err := s.step([]byte{1}); err == nil || err.Error() != invalidToken {
		t.Errorf("after the challenge: %v, want the challenge as the failure", err)
	}
	for _, bad := range []string{"y,,\x01auth=Bearer x\x01\x01", "n,,auth=Bearer x\x01\x01", "n,,\x01auth=Basic x\x01\x01", "n,,\x01auth=Bearer x\x01", "n,,\x01\x01"} {
		s = &saslConn{mech: oauthMechanism}
		if _, err := s.step([]byte(bad)); err == nil {
			t.Errorf("%q: accepted", bad)
		}
	}
}
