package e2e

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

// TestClusterSecure runs three brokers (the first user bootstrapped with
// --add-scram), each with an INTERNAL plaintext
// listener, an EXTERNAL SASL_SSL one, and an SSL CONTROLLER listener
// between the nodes (mutual TLS), with ACLs enforced. A SCRAM credential
// and an ACL added through broker 1 reach every broker through the
// metadata log; a client that knows only broker 3's EXTERNAL address
// authenticates, is told every broker's EXTERNAL endpoint, is refused
// until its ACL exists, and then produces to and consumes from a topic
// replicated on all three; its DeleteTopics of that topic and one it may
// delete, forwarded to the controller, deletes only the latter. A
// plaintext peer is refused on the controller
// listener, and a node whose certificate's subject is not a super user
// is refused by its peers.
func TestClusterSecure(t *testing.T) {
	t.Parallel()
	const nodePrincipal = "User:CN=localhost,O=Gregor tests" // every node's certificate
	dir := t.TempDir()
	ca := newTestCA(t, "Gregor test CA")
	_, serverPEM := ca.issue("localhost", time.Now().Add(-time.Hour), time.Now().Add(time.Hour))
	external := map[*Broker]string{}
	bs := startCluster(t, 3, withExternal(t, external), WithArgs("--listener.security.protocol.map", "INTERNAL:PLAINTEXT,EXTERNAL:SASL_SSL,CONTROLLER:SSL",
		"--controller.listener.names", "CONTROLLER",
		"--ssl.keystore.location", writeFile(t, dir, "server.pem", serverPEM),
		"--ssl.truststore.location", writeFile(t, dir, "ca.pem", ca.pem),
		"--authorizer.class.name", "StandardAuthorizer", "--super.users", "User:ANONYMOUS;"+nodePrincipal,
		"--add-scram", "SCRAM-SHA-512=[name=boot,password=boot-secret]"))
	ctx := testCtx(t, opTimeout)

	// The controller wrote the bootstrap credential into the metadata log.
	eventually(t, 20*time.Second, "boot authenticates on broker 2", func() error {
		ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		return clusterClient(t, nil, kgo.SeedBrokers(external[bs[1]]), kgo.DialTLSConfig(&tls.Config{RootCAs: ca.pool()}),
			kgo.SASL(scram.Auth{User: "boot", Pass: "boot-secret"}.AsSha512Mechanism())).Ping(ctx)
	})
	adm := kadm.NewClient(clusterClient(t, bs[:1]))
	if _, err := adm.AlterUserSCRAMs(ctx, nil, []kadm.UpsertSCRAM{{User: "alice", Mechanism: kadm.ScramSha256, Iterations: 4096, Password: "alice-secret"}}); err != nil {
		t.Fatalf("adding alice through broker 1: %v", err)
	}
	eventually(t, 20*time.Second, "broker 2 knows alice", func() error {
		d, err := kadm.NewClient(clusterClient(t, bs[1:2])).DescribeUserSCRAMs(ctx, "alice")
		if err != nil {
			return err
		}
		if len(d["alice"].CredInfos) != 1 {
			return fmt.Errorf("broker 2 describes alice as %+v", d["alice"])
		}
		return nil
	})

	topic := topicName(t, "")
	if _, err := adm.CreateTopic(ctx, 3, 3, nil, topic); err != nil {
		t.Fatal(err)
	}
	alice := func(opts ...kgo.Opt) *kgo.Client {
		return clusterClient(t, nil, append([]kgo.Opt{kgo.SeedBrokers(external[bs[2]]),
			kgo.SASL(scram.Auth{User: "alice", Pass: "alice-secret"}.AsSha256Mechanism()),
			kgo.DialTLSConfig(&tls.Config{RootCAs: ca.pool()})}, opts...)...)
	}
	var md kadm.BrokerDetails
	eventually(t, 20*time.Second, "alice authenticates on broker 3", func() error {
		ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		m, err := kadm.NewClient(alice()).BrokerMetadata(ctx)
		md = m.Brokers
		return err
	})
	want := map[string]bool{}
	for _, b := range bs {
		want[external[b]] = true
	}
	for _, b := range md {
		addr := net.JoinHostPort(b.Host, strconv.Itoa(int(b.Port)))
		if !want[addr] {
			t.Errorf("broker %d is advertised at %s on EXTERNAL, want one of %v", b.NodeID, addr, want)
		}
		delete(want, addr)
	}
	if len(want) != 0 {
		t.Errorf("EXTERNAL endpoints not advertised: %v", want)
	}
	short, cancel := context.WithTimeout(ctx, 5*time.Second)
	err := alice(kgo.DefaultProduceTopic(topic)).ProduceSync(short, &kgo.Record{Value: []byte("x")}).FirstErr()
	cancel()
	if !errors.Is(err, kerr.TopicAuthorizationFailed) {
		t.Fatalf("alice produces before her ACL exists: %v, want TOPIC_AUTHORIZATION_FAILED", err)
	}
	if _, err := adm.CreateACLs(ctx, kadm.NewACLs().Allow("User:alice").Topics(topic).Operations(kadm.OpRead, kadm.OpWrite)); err != nil {
		t.Fatal(err)
	}
	cl := alice(kgo.DefaultProduceTopic(topic), kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	for i := range 3 {
		r := &kgo.Record{Partition: int32(i), Value: []byte(strconv.Itoa(i))}
		eventually(t, 20*time.Second, "alice's ACL reaches the leader", func() error { return cl.ProduceSync(ctx, r).FirstErr() })
	}
	for n := 0; n < 3; {
		fs := cl.PollFetches(ctx)
		if err := fs.Err(); err != nil {
			t.Fatalf("consume as alice: %v", err)
		}
		n += fs.NumRecords()
	}

	// A DeleteTopics of two topics through broker 3 reaches the controller
	// without the one alice may not delete, which is answered refused.
	gone := topicName(t, "gone")
	if _, err := adm.CreateTopic(ctx, 1, 3, nil, gone); err != nil {
		t.Fatal(err)
	}
	if _, err := adm.CreateACLs(ctx, kadm.NewACLs().Allow("User:alice").Topics(gone).Operations(kadm.OpDelete)); err != nil {
		t.Fatal(err)
	}
	eventually(t, 20*time.Second, "alice deletes "+gone+" and not "+topic, func() error {
		resps, err := kadm.NewClient(alice()).DeleteTopics(ctx, gone, topic)
		if err != nil {
			return err
		}
		if err := resps[topic].Err; !errors.Is(err, kerr.TopicAuthorizationFailed) {
			t.Fatalf("alice deletes %s: %v, want TOPIC_AUTHORIZATION_FAILED", topic, err)
		}
		return resps[gone].Err
	})
	eventually(t, 20*time.Second, "broker 1 lists "+topic+" and not "+gone, func() error {
		td, err := adm.ListTopics(ctx)
		if err == nil && (!td.Has(topic) || td.Has(gone)) {
			err = fmt.Errorf("%s listed %v, %s listed %v", topic, td.Has(topic), gone, td.Has(gone))
		}
		return err
	})

	// A peer without TLS is refused on the controller listener.
	nc, err := net.DialTimeout("tcp", controllerAddr(bs[0]), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = nc.Write([]byte{0, 0, 0, 9, 1, 0, 0, 0, 2, 0, 0, 0, 0})
	_ = nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := nc.Read(make([]byte, 1)); err == nil {
		t.Error("a plaintext peer got an answer from the SSL controller listener")
	}
	nc.Close()
	waitForLog(t, bs[0], "does not look like a TLS handshake")

	// On an SSL controller listener a node is its certificate's subject,
	// which must be a super user: broker 3, restarted without it in
	// super.users, refuses its peers and says whom to name.
	bad := bs[2]
	bad.Kill()
	bad.extra = append(bad.extra, "--super.users", "User:ANONYMOUS")
	bad.Restart()
	// Its peers redial it once raft has a leader among them, which may
	// take an election: longer than waitForLog's few seconds.
	refusal := nodePrincipal + " may not CLUSTER_ACTION on the cluster: name it in super.users"
	eventually(t, 30*time.Second, "broker 3 refuses its peers", func() error {
		if !strings.Contains(bad.Output(), refusal) {
			return errors.New("not yet")
		}
		return nil
	})
}

// controllerAddr is the --controller-addr startCluster gave b.
func controllerAddr(b *Broker) string {
	for i, a := range b.extra {
		if a == "--controller-addr" && i+1 < len(b.extra) {
			return b.extra[i+1]
		}
	}
	return ""
}
