package e2e

import (
	"context"
	"crypto/tls"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// tlsBroker starts a broker with a PLAINTEXT and an SSL listener, its
// certificate signed by a CA made for the test, and client certificates
// required (mutual TLS) when clientAuth is "required".
func tlsBroker(t *testing.T, clientAuth string) (b *Broker, ca *testCA, plain, ssl string) {
	requireBinary(t)
	dir := t.TempDir()
	ca = newTestCA(t, "Gregor test CA")
	_, serverPEM := ca.issue("localhost", time.Now().Add(-time.Hour), time.Now().Add(time.Hour))
	addrs := reserveAddrs(t, 2)
	plain, ssl = addrs[0], addrs[1]
	b = startBroker(t, WithListeners("PLAINTEXT://"+plain+",SSL://"+ssl, plain), WithArgs(
		"--ssl.keystore.location", writeFile(t, dir, "server.pem", serverPEM),
		"--ssl.truststore.location", writeFile(t, dir, "ca.pem", ca.pem),
		"--ssl.client.auth", clientAuth))
	return b, ca, plain, ssl
}

// apiVersions sends one ApiVersions with the given dialer and returns its
// error; the client gives up after a few seconds.
func apiVersions(t *testing.T, seed string, opts ...kgo.Opt) error {
	t.Helper()
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(seed), kgo.RequestRetries(0), kgo.RetryTimeout(time.Second)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err = kmsg.NewPtrApiVersionsRequest().RequestWith(ctx, cl)
	return err
}

// TestTLSMutual: a franz-go client with a certificate of the broker's CA
// produces and consumes on the SSL listener; a client without a
// certificate, with an expired one or with one of another CA is refused
// during the handshake, as are a plaintext client on the SSL port and a
// TLS client on the plaintext port; the broker serves on afterwards.
func TestTLSMutual(t *testing.T) {
	t.Parallel()
	b, ca, plain, ssl := tlsBroker(t, "required")
	now := time.Now()
	good, _ := ca.issue("alice", now.Add(-time.Hour), now.Add(time.Hour))
	expired, _ := ca.issue("alice", now.Add(-2*time.Hour), now.Add(-time.Hour))
	stranger, _ := newTestCA(t, "another CA").issue("mallory", now.Add(-time.Hour), now.Add(time.Hour))
	tlsWith := func(certs ...tls.Certificate) kgo.Opt {
		return kgo.DialTLSConfig(&tls.Config{RootCAs: ca.pool(), Certificates: certs, MinVersion: tls.VersionTLS12})
	}

	produceConsume := func(label string) {
		t.Helper()
		topic := topicName(t, label)
		cl := b.Client(t, kgo.SeedBrokers(ssl), tlsWith(good), kgo.AllowAutoTopicCreation(),
			kgo.DefaultProduceTopic(topic), kgo.ConsumeTopics(topic))
		ctx := testCtx(t, opTimeout)
		if err := cl.ProduceSync(ctx, &kgo.Record{Value: []byte(label)}).FirstErr(); err != nil {
			t.Fatalf("%s: produce over TLS: %v", label, err)
		}
		fs := cl.PollFetches(ctx)
		if err := fs.Err(); err != nil {
			t.Fatalf("%s: consume over TLS: %v", label, err)
		}
		if recs := fs.Records(); len(recs) != 1 || string(recs[0].Value) != label {
			t.Fatalf("%s: consumed %d records, want the one produced", label, len(recs))
		}
	}
	produceConsume("before")

	for _, tc := range []struct {
		name string
		seed string
		opts []kgo.Opt
	}{
		{"no client certificate", ssl, []kgo.Opt{tlsWith()}},
		{"expired client certificate", ssl, []kgo.Opt{tlsWith(expired)}},
		{"certificate of another CA", ssl, []kgo.Opt{kgo.DialTLSConfig(&tls.Config{RootCAs: ca.pool(),
			GetClientCertificate: func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return &stranger, nil }})}},
		{"plaintext client on the SSL port", ssl, nil},
		{"TLS client on the plaintext port", plain, []kgo.Opt{tlsWith(good)}},
	} {
		if err := apiVersions(t, tc.seed, tc.opts...); err == nil {
			t.Errorf("%s: ApiVersions succeeded, want a refusal", tc.name)
		} else {
			t.Logf("%s: refused: %v", tc.name, err)
		}
	}
	if err := apiVersions(t, plain); err != nil {
		t.Errorf("plaintext client on the plaintext port: %v", err)
	}
	produceConsume("after")
	waitForLog(t, b, "expired", "certificate signed by unknown authority", "client didn't provide a certificate", "TLS handshake on the PLAINTEXT listener")
}

// TestTLSServerOnly: with ssl.client.auth unset, a client needs no
// certificate, but must trust the broker's: a client that verifies
// against other roots refuses the broker.
func TestTLSServerOnly(t *testing.T) {
	t.Parallel()
	_, ca, _, ssl := tlsBroker(t, "none")
	if err := apiVersions(t, ssl, kgo.DialTLSConfig(&tls.Config{RootCAs: ca.pool()})); err != nil {
		t.Fatalf("TLS without a client certificate: %v", err)
	}
	other := newTestCA(t, "another CA")
	err := apiVersions(t, ssl, kgo.DialTLSConfig(&tls.Config{RootCAs: other.pool()}))
	if err == nil {
		t.Fatal("a client trusting another CA accepted the broker")
	}
}

// TestTLSKcat: librdkafka (kcat) produces and consumes on the SSL
// listener with a client certificate, verifying the broker's.
func TestTLSKcat(t *testing.T) {
	t.Parallel()
	kcat := requireTool(t, "kcat")
	_, ca, _, ssl := tlsBroker(t, "required")
	dir := t.TempDir()
	_, clientPEM := ca.issue("kcat", time.Now().Add(-time.Hour), time.Now().Add(time.Hour))
	client := writeFile(t, dir, "client.pem", clientPEM)
	topic := topicName(t, "")
	run := kcatWith(t, kcat, "-b", ssl, "-X", "security.protocol=SSL",
		"-X", "ssl.ca.location="+writeFile(t, dir, "ca.pem", ca.pem),
		"-X", "ssl.certificate.location="+client, "-X", "ssl.key.location="+client)
	run("one\ntwo\n", "-P", "-t", topic)
	if got := run("", "-C", "-t", topic, "-o", "beginning", "-e", "-q"); got != "one\ntwo\n" {
		t.Errorf("kcat consumed %q over TLS, want %q", got, "one\ntwo\n")
	}
}

// kcatWith runs kcat with the given connection arguments and more, failing
// the test when it fails; it returns what kcat printed.
func kcatWith(t *testing.T, kcat string, conn ...string) func(stdin string, args ...string) string {
	return func(stdin string, args ...string) string {
		t.Helper()
		all := append(append([]string(nil), conn...), args...)
		cmd := exec.CommandContext(testCtx(t, 30*time.Second), kcat, all...)
		cmd.Stdin = strings.NewReader(stdin)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("kcat %s: %v\n%s", strings.Join(all, " "), err, out)
		}
		return string(out)
	}
}
