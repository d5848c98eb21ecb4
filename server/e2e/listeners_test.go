package e2e

import (
	"net"
	"strconv"
	"testing"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestListenersAdvertise runs one broker with two listeners (KIP-103), an
// internal one advertised as 127.0.0.1 and an external one advertised
// under a host name, and checks that each client is told the addresses
// of the listener it came through (Metadata, DescribeCluster,
// FindCoordinator), and that a client reaching the broker only through
// the advertised name can produce and consume.
func TestListenersAdvertise(t *testing.T) {
	t.Parallel()
	requireBinary(t)
	addrs := reserveAddrs(t, 2)
	in, ext := addrs[0], addrs[1]
	_, extPort, _ := net.SplitHostPort(ext)
	startBroker(t,
		WithListeners("INTERNAL://"+in+",EXTERNAL://"+ext, in),
		WithArgs("--listener.security.protocol.map", "INTERNAL:PLAINTEXT,EXTERNAL:PLAINTEXT",
			"--advertised.listeners", "EXTERNAL://localhost:"+extPort))
	ctx := testCtx(t, opTimeout)

	for _, tc := range []struct{ seed, want string }{{in, in}, {ext, "localhost:" + extPort}} {
		cl, err := kgo.NewClient(kgo.SeedBrokers(tc.seed))
		if err != nil {
			t.Fatal(err)
		}
		adm := kadm.NewClient(cl)
		md, err := adm.BrokerMetadata(ctx)
		if err != nil {
			t.Fatalf("metadata via %s: %v", tc.seed, err)
		}
		if len(md.Brokers) != 1 || net.JoinHostPort(md.Brokers[0].Host, strconv.Itoa(int(md.Brokers[0].Port))) != tc.want {
			t.Errorf("metadata via %s lists %+v, want one broker at %s", tc.seed, md.Brokers, tc.want)
		}
		dc, err := kmsg.NewPtrDescribeClusterRequest().RequestWith(ctx, cl)
		if err != nil {
			t.Fatalf("describe cluster via %s: %v", tc.seed, err)
		}
		if br := dc.Brokers; len(br) != 1 || net.JoinHostPort(br[0].Host, strconv.Itoa(int(br[0].Port))) != tc.want {
			t.Errorf("DescribeCluster via %s lists %+v, want %s", tc.seed, br, tc.want)
		}
		cl.Close()
	}

	// Through the advertised name only: the client connects to the seed,
	// then to what Metadata and FindCoordinator advertise.
	topic := topicName(t, "ext")
	cl, err := kgo.NewClient(kgo.SeedBrokers("localhost:"+extPort), kgo.ConsumeTopics(topic),
		kgo.ConsumerGroup(topic+"-g"), kgo.DefaultProduceTopic(topic), kgo.AllowAutoTopicCreation())
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if err := cl.ProduceSync(ctx, &kgo.Record{Value: []byte("through EXTERNAL")}).FirstErr(); err != nil {
		t.Fatalf("produce: %v", err)
	}
	fs := cl.PollFetches(ctx)
	if err := fs.Err(); err != nil {
		t.Fatalf("consume: %v", err)
	}
	if recs := fs.Records(); len(recs) != 1 || string(recs[0].Value) != "through EXTERNAL" {
		t.Fatalf("consumed %d records, want the one produced", len(recs))
	}
	if err := cl.CommitUncommittedOffsets(ctx); err != nil {
		t.Fatalf("commit through the coordinator FindCoordinator advertised: %v", err)
	}
}
