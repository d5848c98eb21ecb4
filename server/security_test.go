package server

import (
	"crypto/tls"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gregor-kafka/gregor/internal/testca"
)

// keyAndCA writes a keystore (a certificate for localhost and its key)
// and the truststore of its CA, as PEM files.
func keyAndCA(t *testing.T) (keystore, truststore string) {
	t.Helper()
	ca := testca.New(t, "Gregor test CA")
	_, pemBytes := ca.Issue("localhost", time.Now().Add(-time.Hour), time.Now().Add(time.Hour))
	dir := t.TempDir()
	keystore, truststore = filepath.Join(dir, "server.pem"), filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(keystore, pemBytes, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(truststore, ca.PEM, 0o600); err != nil {
		t.Fatal(err)
	}
	return keystore, truststore
}

const plainJAAS = `org.apache.kafka.common.security.plain.PlainLoginModule required username="broker" password="b-secret" user_broker="b-secret" user_alice="a \"quoted\" secret";`

// TestResolveSecurity: listener.name.<listener>.<setting> wins over the
// broker-wide setting, for the listener it names only.
func TestResolveSecurity(t *testing.T) {
	keystore, truststore := keyAndCA(t)
	client := []Listener{{Name: "INTERNAL", Protocol: SASLSSL, Addr: ":1"}, {Name: "EXTERNAL", Protocol: SASLSSL, Addr: ":2"}}
	ctl := Listener{Name: "CONTROLLER", Protocol: SASLSSL, Addr: ":3"}
	props := map[string]string{
		"ssl.keystore.location": keystore, "ssl.truststore.location": truststore, "ssl.client.auth": "none",
		"listener.name.internal.ssl.client.auth":           "required",
		"sasl.enabled.mechanisms":                          "SCRAM-SHA-512",
		"listener.name.internal.sasl.enabled.mechanisms":   "PLAIN,SCRAM-SHA-256",
		"listener.name.internal.plain.sasl.jaas.config":    plainJAAS,
		"controller.listener.names":                        "CONTROLLER",
		"listener.name.controller.sasl.enabled.mechanisms": "SCRAM-SHA-256",
		"sasl.mechanism.inter.broker.protocol":             "SCRAM-SHA-256",
		"listener.name.controller.scram-sha-256.sasl.jaas.config": `org.apache.kafka.common.security.scram.ScramLoginModule required
			username="broker" password="pw=1";`,
	}
	sec, peer, err := ResolveSecurity(props, client, ctl)
	if err != nil {
		t.Fatal(err)
	}
	in, ex := sec["INTERNAL"], sec["EXTERNAL"]
	if in.TLS.ClientAuth != tls.RequireAndVerifyClientCert || ex.TLS.ClientAuth != tls.NoClientCert {
		t.Errorf("client auth INTERNAL %v EXTERNAL %v, want required (override) and none (broker-wide)", in.TLS.ClientAuth, ex.TLS.ClientAuth)
	}
	if !reflect.DeepEqual(in.Mechanisms, []string{"PLAIN", "SCRAM-SHA-256"}) || !reflect.DeepEqual(ex.Mechanisms, []string{"SCRAM-SHA-512"}) {
		t.Errorf("mechanisms INTERNAL %v EXTERNAL %v", in.Mechanisms, ex.Mechanisms)
	}
	if want := map[string]string{"broker": "b-secret", "alice": `a "quoted" secret`}; !reflect.DeepEqual(in.PlainUsers, want) || ex.PlainUsers != nil {
		t.Errorf("PLAIN users INTERNAL %v EXTERNAL %v, want %v and none", in.PlainUsers, ex.PlainUsers, want)
	}
	if _, ok := sec["CONTROLLER"]; ok {
		t.Error("the controller listener is among the client listeners' security")
	}
	if peer == nil || peer.Listener != "CONTROLLER" || peer.Mechanism != "SCRAM-SHA-256" || peer.User != "broker" || peer.Password != "pw=1" ||
		!reflect.DeepEqual(peer.Accept.Mechanisms, []string{"SCRAM-SHA-256"}) || peer.Accept.TLS.ClientAuth != tls.NoClientCert ||
		peer.DialTLS == nil || peer.DialTLS.RootCAs == nil || len(peer.DialTLS.Certificates) != 1 {
		t.Errorf("peer security %+v", peer)
	}

	// An SSL controller listener requires its peers' certificates even
	// when the broker-wide ssl.client.auth says none.
	ctl.Protocol = SSL
	if _, peer, err = ResolveSecurity(props, client, ctl); err != nil {
		t.Fatal(err)
	}
	if peer.Mechanism != "" || peer.Accept.TLS.ClientAuth != tls.RequireAndVerifyClientCert || peer.DialTLS == nil {
		t.Errorf("SSL peer security %+v", peer)
	}
	// A PLAINTEXT one is not secured.
	ctl.Protocol = Plaintext
	if _, peer, err = ResolveSecurity(map[string]string{}, []Listener{{Name: "PLAINTEXT", Protocol: Plaintext, Addr: ":1"}}, ctl); err != nil || peer != nil {
		t.Errorf("PLAINTEXT peer: %+v, %v; want none", peer, err)
	}
}

// TestResolveSecurityRefuses: a setting that cannot work is refused at
// startup, naming its key.
func TestResolveSecurityRefuses(t *testing.T) {
	keystore, _ := keyAndCA(t)
	client := []Listener{{Name: "CLIENT", Protocol: SASLPlaintext, Addr: ":1"}}
	ctl := Listener{Name: "CONTROLLER", Protocol: SASLPlaintext, Addr: ":2"}
	base := map[string]string{"sasl.mechanism.controller.protocol": "PLAIN", "listener.name.controller.plain.sasl.jaas.config": plainJAAS}
	for _, tc := range []struct {
		name  string
		props map[string]string // over base; "" deletes
		proto Protocol          // of the controller listener, SASL_PLAINTEXT if empty
		want  string
	}{
		{name: "no mechanism", props: map[string]string{"sasl.mechanism.controller.protocol": ""}, want: "set sasl.mechanism.controller.protocol"},
		{name: "no JAAS line", props: map[string]string{"listener.name.controller.plain.sasl.jaas.config": ""}, want: "set listener.name.controller.plain.sasl.jaas.config"},
		{name: "JAAS line of another mechanism", props: map[string]string{"sasl.mechanism.controller.protocol": "SCRAM-SHA-512",
			"listener.name.controller.scram-sha-512.sasl.jaas.config": plainJAAS}, want: "listener.name.controller.scram-sha-512.sasl.jaas.config: login module"},
		{name: "no password", props: map[string]string{"listener.name.controller.plain.sasl.jaas.config": `org.apache.kafka.common.security.plain.PlainLoginModule required username="b" user_b="x";`},
			want: `want username="..." and password="..."`},
		{name: "PLAIN without users", props: map[string]string{"listener.name.controller.plain.sasl.jaas.config": `org.apache.kafka.common.security.plain.PlainLoginModule required username="b" password="x";`},
			want: "want user_<name>"},
		{name: "no semicolon", props: map[string]string{"listener.name.controller.plain.sasl.jaas.config": strings.TrimSuffix(plainJAAS, ";")}, want: "ending in ;"},
		{name: "unterminated quote", props: map[string]string{"listener.name.controller.plain.sasl.jaas.config": `org.apache.kafka.common.security.plain.PlainLoginModule required username="b;`},
			want: "unterminated"},
		{name: "mechanisms disagree", props: map[string]string{"sasl.mechanism.inter.broker.protocol": "SCRAM-SHA-256"}, want: "differ"},
		{name: "mechanism not enabled", props: map[string]string{"listener.name.controller.sasl.enabled.mechanisms": "SCRAM-SHA-256"},
			want: "sasl.mechanism.controller.protocol=PLAIN: not among the mechanisms of listener CONTROLLER"},
		{name: "unknown mechanism", props: map[string]string{"listener.name.client.sasl.enabled.mechanisms": "GSSAPI"}, want: "listener.name.client.sasl.enabled.mechanisms: GSSAPI is not served"},
		{name: "unknown listener", props: map[string]string{"listener.name.external.ssl.client.auth": "required"}, want: "listener.name.external.ssl.client.auth: external is not one of the listeners"},
		{name: "SASL_SSL without truststore", proto: SASLSSL, props: map[string]string{"ssl.keystore.location": keystore}, want: "set ssl.keystore.location and ssl.truststore.location"},
		{name: "SSL without keystore", proto: SSL, want: "controller listener CONTROLLER is SSL"},
		{name: "not PEM", proto: SASLSSL, props: map[string]string{"ssl.keystore.location": keystore, "listener.name.controller.ssl.keystore.type": "JKS"},
			want: "listener.name.controller.ssl.keystore.type=JKS"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			props := map[string]string{}
			for k, v := range base {
				props[k] = v
			}
			for k, v := range tc.props {
				if props[k] = v; v == "" {
					delete(props, k)
				}
			}
			c := ctl
			if tc.proto != "" {
				c.Protocol = tc.proto
			}
			if _, _, err := ResolveSecurity(props, client, c); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
}

func TestListenerKey(t *testing.T) {
	for key, want := range map[string]bool{
		"listener.name.client.ssl.client.auth":                    true,
		"listener.name.controller.scram-sha-512.sasl.jaas.config": true,
		"listener.name.client.sasl.enabled.mechanisms":            true,
		"listener.name.client.gssapi.sasl.jaas.config":            false,
		"listener.name.client.ssl.keystore.password":              false,
		"ssl.client.auth":               false,
		"listener.name.ssl.client.auth": false,
	} {
		if got := ListenerKey(key); got != want {
			t.Errorf("ListenerKey(%s) = %v, want %v", key, got, want)
		}
	}
}
