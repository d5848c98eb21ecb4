package e2e

import (
	"crypto/tls"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

// peerSASLProps is a properties file of a node whose links to its peers
// run SASL_SSL with SCRAM-SHA-512 as broker/password (mutual TLS too,
// by a per-listener override), and whose EXTERNAL listener serves
// clients SASL_SSL with SCRAM-SHA-256.
func peerSASLProps(keystore, truststore, password string) string {
	return fmt.Sprintf(`listener.security.protocol.map=INTERNAL:PLAINTEXT,EXTERNAL:SASL_SSL,CONTROLLER:SASL_SSL
controller.listener.names=CONTROLLER
ssl.keystore.location=%s
ssl.truststore.location=%s
sasl.enabled.mechanisms=SCRAM-SHA-256
listener.name.controller.ssl.client.auth=required
listener.name.controller.sasl.enabled.mechanisms=SCRAM-SHA-512
sasl.mechanism.controller.protocol=SCRAM-SHA-512
sasl.mechanism.inter.broker.protocol=SCRAM-SHA-512
listener.name.controller.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required \
    username="broker" password="%s";
add-scram=SCRAM-SHA-512=[name=broker,password=broker-secret];SCRAM-SHA-256=[name=alice,password=alice-secret]
authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer
super.users=User:ANONYMOUS;User:broker
connections.max.reauth.ms=10000
`, keystore, truststore, password)
}

// TestClusterSecurePeersSASL: three nodes authenticate each other with
// SCRAM over mutual TLS on their controller listener (raft, controller
// requests, follower fetches), from the credential each was started
// with; a client produces acks=all and consumes over SASL_SSL across the
// kill of a leader, whose restart rejoins; a node given a wrong
// inter-broker password cannot join, says why, and the two others keep
// serving. Sessions between nodes last 10 s: links renew them in time.
func TestClusterSecurePeersSASL(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ca := newTestCA(t, "Gregor test CA")
	_, serverPEM := ca.issue("localhost", time.Now().Add(-time.Hour), time.Now().Add(time.Hour))
	keystore, truststore := writeFile(t, dir, "server.pem", serverPEM), writeFile(t, dir, "ca.pem", ca.pem)
	external := map[*Broker]string{}
	configs := make([]string, 3)
	bs := startClusterEach(t, 3, func(i int) []BrokerOpt {
		configs[i] = writeFile(t, dir, fmt.Sprintf("node%d.properties", i+1), []byte(peerSASLProps(keystore, truststore, "broker-secret")))
		return []BrokerOpt{WithArgs("--config", configs[i])}
	}, WithListenersFor(func(b *Broker) string {
		if external[b] == "" {
			external[b] = reserveAddrs(t, 1)[0]
		}
		return "INTERNAL://" + b.Addr + ",EXTERNAL://" + external[b] + ",CONTROLLER://" + controllerAddr(b)
	}))
	ctx := testCtx(t, 3*opTimeout)

	topic := topicName(t, "")
	adm, p := createReplicated(t, bs, topic) // a full ISR: follower fetches pass
	if _, err := kadm.NewClient(adm).CreateACLs(ctx, kadm.NewACLs().Allow("User:alice").Topics(topic).
		Operations(kadm.OpRead, kadm.OpWrite, kadm.OpDescribe)); err != nil {
		t.Fatal(err)
	}
	alice := func(on []*Broker, opts ...kgo.Opt) *kgo.Client {
		var seeds []string
		for _, b := range on {
			seeds = append(seeds, external[b])
		}
		return clusterClient(t, nil, append([]kgo.Opt{kgo.SeedBrokers(seeds...),
			kgo.SASL(scram.Auth{User: "alice", Pass: "alice-secret"}.AsSha256Mechanism()),
			kgo.DialTLSConfig(&tls.Config{RootCAs: ca.pool()}), kgo.RequiredAcks(kgo.AllISRAcks()),
			kgo.DefaultProduceTopic(topic), kgo.RetryTimeout(30 * time.Second)}, opts...)...)
	}
	prod := alice(bs)
	produce := func(from, to int) {
		t.Helper()
		for i := from; i < to; i++ {
			eventually(t, 30*time.Second, "alice's record acknowledged by every in-sync replica", func() error {
				return prod.ProduceSync(ctx, &kgo.Record{Value: []byte(strconv.Itoa(i))}).FirstErr()
			})
		}
	}
	consume := func(on []*Broker, n int) {
		t.Helper()
		cl := alice(on, kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
		var got []string
		for len(got) < n {
			fs := cl.PollFetches(ctx)
			if err := fs.Err(); err != nil {
				t.Fatalf("consuming as alice after %d records: %v", len(got), err)
			}
			fs.EachRecord(func(r *kgo.Record) { got = append(got, string(r.Value)) })
		}
		for i, v := range got {
			if v != strconv.Itoa(i) {
				t.Fatalf("record %d is %q: want %d (in order, once each): %v", i, v, i, got)
			}
		}
	}
	produce(0, 10)

	leader := bs[p.Leader-1]
	t.Logf("killing the leader, broker %d", p.Leader)
	leader.Kill()
	waitPartition(t, adm, topic, "a new leader", func(p partition) bool { return p.Leader >= 0 && p.Leader != leader.NodeID })
	var rest []*Broker
	for _, b := range bs {
		if b != leader {
			rest = append(rest, b)
		}
	}
	produce(10, 20)
	consume(rest, 20)
	leader.Restart()
	waitPartition(t, adm, topic, "the restarted broker back in the ISR over SASL", func(p partition) bool {
		return slices.Contains(p.ISR, leader.NodeID)
	})
	for _, b := range bs {
		if out := b.Output(); strings.Contains(out, "refused node") || strings.Contains(out, "refused this node") {
			t.Fatalf("a SASL refusal between nodes with the right password, in broker %d's log:\n%s", b.NodeID, out)
		}
	}

	// A node with a wrong inter-broker password.
	bad := bs[2]
	bad.Kill()
	if err := os.WriteFile(configs[2], []byte(peerSASLProps(keystore, truststore, "wrong-secret")), 0o600); err != nil {
		t.Fatal(err)
	}
	bad.Restart()
	waitForLog(t, bad, "refused this node's SASL authentication as broker with SCRAM-SHA-512",
		"check listener.name.controller.scram-sha-512.sasl.jaas.config")
	// Node 3 dials only the peers it has something for (the raft leader,
	// the leaders it follows): at least one of them says why it refused.
	eventually(t, 30*time.Second, "a good node logs the refusal", func() error {
		for _, b := range bs[:2] {
			if strings.Contains(b.Output(), "controller listener CONTROLLER: refused node 3") {
				return nil
			}
		}
		return errors.New("no good node has logged refusing node 3")
	})
	produce(20, 30)
	consume(bs[:2], 30)
	// acks=all went through, so the ISR left the node out: it never
	// fetched. The broker adm asks may learn that ISR a moment after the
	// leader acknowledged (metadata reaches each broker in its own time).
	waitPartition(t, adm, topic, fmt.Sprintf("node %d, refused by its peers, out of the ISR", bad.NodeID),
		func(p partition) bool { return !slices.Contains(p.ISR, bad.NodeID) })
	// Sessions last 10 s (connections.max.reauth.ms) and raft's messages
	// never stop: every link renewed its session in time, over the
	// test's half a minute, or its peer would have closed it.
	for _, b := range bs {
		if out := b.log.String(); strings.Contains(out, "expired (connections.max.reauth.ms)") {
			t.Errorf("a SASL session between nodes expired, in broker %d's log:\n%s", b.NodeID, out)
		}
	}
}
