package e2e

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

// TestClusterSASL runs three brokers, each with an INTERNAL plaintext
// listener and an EXTERNAL SASL_SSL one. A SCRAM credential added through
// broker 1 reaches every broker through the metadata log; a client that
// knows only broker 3's EXTERNAL address authenticates, is told every
// broker's EXTERNAL endpoint, and produces to and consumes from a topic
// replicated on all three.
func TestClusterSASL(t *testing.T) {
	dir := t.TempDir()
	ca := newTestCA(t, "Gregor test CA")
	_, serverPEM := ca.issue("localhost", time.Now().Add(-time.Hour), time.Now().Add(time.Hour))
	external := map[*Broker]string{}
	bs := startCluster(t, 3, WithListenersFor(func(b *Broker) string {
		if external[b] == "" {
			external[b] = freeAddrs(t, 1)[0]
		}
		return "INTERNAL://" + b.Addr + ",EXTERNAL://" + external[b]
	}), WithArgs("--listener.security.protocol.map", "INTERNAL:PLAINTEXT,EXTERNAL:SASL_SSL",
		"--ssl.keystore.location", writeFile(t, dir, "server.pem", serverPEM)))
	ctx := testCtx(t, opTimeout)

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
	cl := alice(kgo.DefaultProduceTopic(topic), kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	for i := range 3 {
		r := &kgo.Record{Partition: int32(i), Value: []byte(strconv.Itoa(i))}
		if err := cl.ProduceSync(ctx, r).FirstErr(); err != nil {
			t.Fatalf("produce to partition %d as alice: %v", i, err)
		}
	}
	for n := 0; n < 3; {
		fs := cl.PollFetches(ctx)
		if err := fs.Err(); err != nil {
			t.Fatalf("consume as alice: %v", err)
		}
		n += fs.NumRecords()
	}
}
