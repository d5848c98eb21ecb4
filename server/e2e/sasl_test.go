package e2e

import (
	"context"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/oauth"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

// saslBroker starts a broker whose only listeners need SASL: SASL_PLAINTEXT
// and SASL_SSL (its certificate signed by a CA made for the test), with
// the first user, admin, bootstrapped from the command line.
type saslSetup struct {
	b          *Broker
	ca         *testCA
	plain, ssl string
}

const adminPassword = "admin-secret"

func saslBroker(t *testing.T, args ...string) *saslSetup {
	requireBinary(t)
	dir := t.TempDir()
	ca := newTestCA(t, "Gregor test CA")
	_, serverPEM := ca.issue("localhost", time.Now().Add(-time.Hour), time.Now().Add(time.Hour))
	addrs := reserveAddrs(t, 2)
	b := startBroker(t, WithListeners("SASL_PLAINTEXT://"+addrs[0]+",SASL_SSL://"+addrs[1], addrs[0]), WithArgs(append([]string{
		"--ssl.keystore.location", writeFile(t, dir, "server.pem", serverPEM),
		"--add-scram", "SCRAM-SHA-512=[name=admin,password=" + adminPassword + "]"}, args...)...))
	return &saslSetup{b: b, ca: ca, plain: addrs[0], ssl: addrs[1]}
}

func (s *saslSetup) client(t *testing.T, seed string, m sasl.Mechanism, opts ...kgo.Opt) *kgo.Client {
	t.Helper()
	all := append([]kgo.Opt{kgo.SeedBrokers(seed), kgo.SASL(m), kgo.RequestRetries(0), kgo.RetryTimeout(2 * time.Second)}, opts...)
	if seed == s.ssl {
		all = append(all, kgo.DialTLSConfig(&tls.Config{RootCAs: s.ca.pool()}))
	}
	cl, err := kgo.NewClient(all...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl
}

// TestSASL: the bootstrapped admin adds alice's SCRAM-SHA-256 credential
// with kadm; alice produces and consumes with PLAIN, SCRAM-SHA-256 and
// over SASL_SSL; the admin with SCRAM-SHA-512. A wrong password, an
// unknown user, an unknown mechanism and a client that skips the
// handshake are refused, and the broker serves on. The credentials
// survive a restart, stored salted and hashed.
func TestSASL(t *testing.T) {
	t.Parallel()
	s := saslBroker(t)
	ctx := testCtx(t, opTimeout)
	admin := scram.Auth{User: "admin", Pass: adminPassword}.AsSha512Mechanism()
	adm := kadm.NewClient(s.client(t, s.plain, admin))
	altered, err := adm.AlterUserSCRAMs(ctx, nil, []kadm.UpsertSCRAM{
		{User: "alice", Mechanism: kadm.ScramSha256, Iterations: 8192, Password: "alice-secret"},
	})
	if err != nil {
		t.Fatalf("AlterUserSCRAMs as admin: %v", err)
	}
	if e := altered["alice"].Err; e != nil {
		t.Fatalf("adding alice: %v", e)
	}
	// kadm checks iterations itself; the broker must too.
	weak := kmsg.NewPtrAlterUserSCRAMCredentialsRequest()
	up := kmsg.NewAlterUserSCRAMCredentialsRequestUpsertion()
	up.Name, up.Mechanism, up.Iterations, up.Salt, up.SaltedPassword = "weak", 1, 10, []byte("salt"), []byte("salted")
	weak.Upsertions = append(weak.Upsertions, up)
	if resp, err := weak.RequestWith(ctx, s.client(t, s.plain, admin)); err != nil {
		t.Fatal(err)
	} else if len(resp.Results) != 1 || resp.Results[0].ErrorCode != kerr.UnacceptableCredential.Code {
		t.Errorf("10 iterations: %+v, want UNACCEPTABLE_CREDENTIAL", resp.Results)
	}
	described, err := adm.DescribeUserSCRAMs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if a := described["alice"]; len(a.CredInfos) != 1 || a.CredInfos[0].Mechanism != kadm.ScramSha256 || a.CredInfos[0].Iterations != 8192 {
		t.Errorf("alice is described as %+v", a)
	}
	if a := described["admin"]; len(a.CredInfos) != 1 || a.CredInfos[0].Mechanism != kadm.ScramSha512 {
		t.Errorf("admin is described as %+v", a)
	}

	roundTrip := func(label, seed string, m sasl.Mechanism) {
		t.Helper()
		topic := topicName(t, label)
		cl := s.client(t, seed, m, kgo.AllowAutoTopicCreation(), kgo.DefaultProduceTopic(topic), kgo.ConsumeTopics(topic),
			kgo.RetryTimeout(20*time.Second), kgo.RequestRetries(20))
		if err := cl.ProduceSync(ctx, &kgo.Record{Value: []byte(label)}).FirstErr(); err != nil {
			t.Fatalf("%s: produce: %v", label, err)
		}
		fs := cl.PollFetches(ctx)
		if err := fs.Err(); err != nil {
			t.Fatalf("%s: consume: %v", label, err)
		}
		if recs := fs.Records(); len(recs) != 1 || string(recs[0].Value) != label {
			t.Fatalf("%s: consumed %d records, want the one produced", label, len(recs))
		}
	}
	alice := scram.Auth{User: "alice", Pass: "alice-secret"}
	roundTrip("plain", s.plain, plain.Auth{User: "alice", Pass: "alice-secret"}.AsMechanism())
	roundTrip("scram256", s.plain, alice.AsSha256Mechanism())
	roundTrip("scram256-ssl", s.ssl, alice.AsSha256Mechanism())
	roundTrip("scram512-ssl", s.ssl, admin)

	refused := func(label string, m sasl.Mechanism, want *kerr.Error) {
		t.Helper()
		cl := s.client(t, s.plain, m)
		ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		err := cl.Ping(ctx)
		if err == nil {
			t.Errorf("%s: the broker let the client in", label)
			return
		}
		if want != nil && !errors.Is(err, want) {
			t.Errorf("%s: %v, want %s", label, err, want.Message)
		}
		t.Logf("%s: refused: %v", label, err)
	}
	refused("wrong password, SCRAM", scram.Auth{User: "alice", Pass: "nope"}.AsSha256Mechanism(), kerr.SaslAuthenticationFailed)
	refused("wrong password, PLAIN", plain.Auth{User: "alice", Pass: "nope"}.AsMechanism(), kerr.SaslAuthenticationFailed)
	refused("unknown user", scram.Auth{User: "mallory", Pass: "x"}.AsSha256Mechanism(), kerr.SaslAuthenticationFailed)
	refused("SCRAM-SHA-512 for a SHA-256 user", alice.AsSha512Mechanism(), kerr.SaslAuthenticationFailed)
	refused("unknown mechanism", oauth.Auth{Token: "t"}.AsMechanism(), kerr.UnsupportedSaslMechanism)

	// A client that skips the handshake is closed on its first request.
	skip, err := kgo.NewClient(kgo.SeedBrokers(s.plain), kgo.RequestRetries(0), kgo.RetryTimeout(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	if err := skip.Ping(pctx); err == nil {
		t.Error("a client without SASL got an answer on a SASL listener")
	}
	cancel()
	skip.Close()
	roundTrip("after", s.plain, alice.AsSha256Mechanism())
	waitForLog(t, s.b, "unexpected Metadata during SASL authentication", `SASL mechanism "OAUTHBEARER"`, "invalid credentials with SASL mechanism SCRAM-SHA-256")

	if code, err := s.b.Stop(); err != nil || code != 0 {
		t.Fatalf("stopping: exit %d, %v", code, err)
	}
	s.b.Restart()
	roundTrip("restarted", s.plain, alice.AsSha256Mechanism())
	if strings.Contains(s.b.Output(), "added a SCRAM-SHA-512 credential") {
		t.Error("the restarted broker added the bootstrap credential again")
	}
}

// TestSASLKcat: librdkafka (kcat) produces and consumes over SASL_SSL
// with SCRAM-SHA-512.
func TestSASLKcat(t *testing.T) {
	t.Parallel()
	kcat := requireTool(t, "kcat")
	s := saslBroker(t)
	dir := t.TempDir()
	topic := topicName(t, "")
	run := kcatWith(t, kcat, "-b", s.ssl, "-X", "security.protocol=SASL_SSL", "-X", "sasl.mechanisms=SCRAM-SHA-512",
		"-X", "sasl.username=admin", "-X", "sasl.password="+adminPassword,
		"-X", "ssl.ca.location="+writeFile(t, dir, "ca.pem", s.ca.pem))
	run("one\ntwo\n", "-P", "-t", topic)
	if got := run("", "-C", "-t", topic, "-o", "beginning", "-e", "-q"); got != "one\ntwo\n" {
		t.Errorf("kcat consumed %q over SASL_SSL, want %q", got, "one\ntwo\n")
	}
}

// TestSASLOAuthBearer: a listener that names OAUTHBEARER takes unsecured
// tokens as Kafka's default validator does (franz-go's oauth mechanism,
// as its own suite's TestOAuthAuth): a token for alice that has not
// expired authenticates, an expired one fails with
// SASL_AUTHENTICATION_FAILED and the invalid_token challenge.
func TestSASLOAuthBearer(t *testing.T) {
	t.Parallel()
	s := saslBroker(t, "--sasl.enabled.mechanisms", "SCRAM-SHA-512,OAUTHBEARER")
	token := func(exp time.Time) sasl.Mechanism {
		enc := base64.RawURLEncoding.EncodeToString
		claims := fmt.Sprintf(`{"sub":"alice","exp":%d}`, exp.Unix())
		return oauth.Auth{Token: enc([]byte(`{"alg":"none"}`)) + "." + enc([]byte(claims)) + "."}.AsMechanism()
	}
	ctx := testCtx(t, opTimeout)
	for _, seed := range []string{s.plain, s.ssl} {
		if err := s.client(t, seed, token(time.Now().Add(time.Hour))).Ping(ctx); err != nil {
			t.Errorf("a valid token on %s: %v", seed, err)
		}
		err := s.client(t, seed, token(time.Now().Add(-time.Minute))).Ping(ctx)
		if !errors.Is(err, kerr.SaslAuthenticationFailed) || !strings.Contains(err.Error(), "invalid_token") {
			t.Errorf("an expired token on %s: %v, want SASL_AUTHENTICATION_FAILED with invalid_token", seed, err)
		}
	}
}
