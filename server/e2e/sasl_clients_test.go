package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/IBM/sarama"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

// addAlice gives alice a SCRAM-SHA-256 credential through the admin.
func (s *saslSetup) addAlice(t *testing.T) {
	t.Helper()
	adm := kadm.NewClient(s.client(t, s.plain, scram.Auth{User: "admin", Pass: adminPassword}.AsSha512Mechanism()))
	altered, err := adm.AlterUserSCRAMs(testCtx(t, opTimeout), nil, []kadm.UpsertSCRAM{
		{User: "alice", Mechanism: kadm.ScramSha256, Iterations: 4096, Password: "alice-secret"}})
	if err == nil {
		err = altered["alice"].Err
	}
	if err != nil {
		t.Fatalf("adding alice: %v", err)
	}
	if _, err := adm.CreateTopic(testCtx(t, opTimeout), 1, 1, nil, topicName(t, "")); err != nil {
		t.Fatal(err)
	}
}

// TestSASLKafkajs: kafkajs produces with PLAIN and SCRAM-SHA-256 and is
// refused with a wrong password.
func TestSASLKafkajs(t *testing.T) {
	t.Parallel()
	node := requireTool(t, "node")
	dir := filepath.Join(repoRoot, "server", "e2e", "kafkajs")
	requireNpmPackage(t, dir, "kafkajs")
	s := saslBroker(t)
	s.addAlice(t)
	cmd := exec.CommandContext(testCtx(t, time.Minute), node, "sasl.js", s.plain, topicName(t, ""), "alice", "alice-secret")
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node sasl.js: %v\n%s%s", err, stdout.String(), stderr.String())
	}
	var res map[string]struct {
		OK      bool   `json:"ok"`
		Offset  string `json:"offset"`
		High    string `json:"high"`
		Error   string `json:"error"`
		Message string `json:"message"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		t.Fatalf("sasl.js printed %q: %v", stdout.String(), err)
	}
	if r := res["plain"]; !r.OK || r.Offset != "0" {
		t.Errorf("kafkajs PLAIN: %+v, want the record at offset 0", r)
	}
	if r := res["scram-sha-256"]; !r.OK || r.Offset != "1" || r.High != "2" {
		t.Errorf("kafkajs SCRAM-SHA-256: %+v, want the record at offset 1 and high watermark 2", r)
	}
	if r := res["wrong"]; r.OK || r.Error != "KafkaJSSASLAuthenticationError" || !strings.Contains(r.Message, "invalid credentials") {
		t.Errorf("kafkajs with a wrong password: %+v, want an authentication error for invalid credentials", r)
	}
}

// TestSASLSarama: sarama authenticates with SCRAM-SHA-256 (handshake v1)
// and PLAIN (handshake v0, then bare tokens), and produces.
func TestSASLSarama(t *testing.T) {
	t.Parallel()
	s := saslBroker(t)
	s.addAlice(t)
	topic := topicName(t, "sarama")
	for _, tc := range []struct {
		name    string
		mech    sarama.SASLMechanism
		version int16
	}{
		{"scram-v1", sarama.SASLTypeSCRAMSHA256, sarama.SASLHandshakeV1},
		{"plain-v0", sarama.SASLTypePlaintext, sarama.SASLHandshakeV0},
		{"plain-v1", sarama.SASLTypePlaintext, sarama.SASLHandshakeV1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := sarama.NewConfig()
			cfg.Producer.Return.Successes = true
			cfg.Metadata.AllowAutoTopicCreation = true
			cfg.Net.SASL.Enable = true
			cfg.Net.SASL.Mechanism = tc.mech
			cfg.Net.SASL.Version = tc.version
			cfg.ApiVersionsRequest = tc.version != sarama.SASLHandshakeV0 // sarama's rule
			cfg.Net.SASL.User, cfg.Net.SASL.Password = "alice", "alice-secret"
			if tc.mech == sarama.SASLTypeSCRAMSHA256 {
				cfg.Net.SASL.SCRAMClientGeneratorFunc = func() sarama.SCRAMClient { return &saramaSCRAM{} }
			}
			p, err := sarama.NewSyncProducer([]string{s.plain}, cfg)
			if err != nil {
				t.Fatalf("sarama producer: %v", err)
			}
			defer p.Close()
			if _, _, err := p.SendMessage(&sarama.ProducerMessage{Topic: topic, Value: sarama.StringEncoder(tc.name)}); err != nil {
				t.Fatalf("sarama produce: %v", err)
			}
		})
	}
}

// saramaSCRAM is sarama's SCRAMClient on franz-go's SCRAM-SHA-256 client
// (sarama ships none of its own).
type saramaSCRAM struct {
	sess  sasl.Session
	first []byte
	done  bool
}

func (c *saramaSCRAM) Begin(user, pass, _ string) error {
	sess, first, err := scram.Auth{User: user, Pass: pass}.AsSha256Mechanism().Authenticate(context.Background(), "")
	c.sess, c.first = sess, first
	return err
}

func (c *saramaSCRAM) Step(challenge string) (string, error) {
	if c.first != nil {
		first := c.first
		c.first = nil
		return string(first), nil
	}
	done, msg, err := c.sess.Challenge([]byte(challenge))
	c.done = done
	return string(msg), err
}

func (c *saramaSCRAM) Done() bool { return c.done }
