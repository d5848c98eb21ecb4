// The cluster tests' harness: start n real processes that form one
// cluster, read a partition's state from metadata, and follow a partition
// with a consumer.

package e2e

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// startClientCluster is startCluster for tests that only talk to the
// cluster as a client (the command line's admin tests): under
// GREGOR_E2E_KFAKE=1 it is one kfake of n brokers, numbered from 0 as
// kfake numbers them, which NodeID says.
func startClientCluster(t *testing.T, n int) []*Broker {
	t.Helper()
	if !useKfake {
		return startCluster(t, n)
	}
	addrs := reserveAddrs(t, n)
	ports := make([]int, n)
	bs := make([]*Broker, n)
	for i, a := range addrs {
		ports[i], _ = strconv.Atoi(a[strings.LastIndexByte(a, ':')+1:])
		bs[i] = &Broker{t: t, Addr: a, NodeID: int32(i)}
	}
	kf, err := kfake.NewCluster(kfake.NumBrokers(n), kfake.Ports(ports...), kfake.DefaultNumPartitions(1))
	if err != nil {
		t.Fatalf("kfake with %d brokers: %v", n, err)
	}
	t.Cleanup(kf.Close)
	return bs
}

// startCluster starts n gregor processes that form one cluster (every node
// a broker and a voter of the metadata quorum), and waits until every
// broker sees all n registered.
func startCluster(t *testing.T, n int, opts ...BrokerOpt) []*Broker {
	t.Helper()
	return startClusterEach(t, n, func(int) []BrokerOpt { return nil }, opts...)
}

// startClusterEach is startCluster with options of node i's own, after
// the common ones (broker.rack, say).
func startClusterEach(t *testing.T, n int, each func(i int) []BrokerOpt, opts ...BrokerOpt) []*Broker {
	t.Helper()
	requireBinary(t)
	// Every port is reserved up front, all distinct: a node's Kafka or HTTP
	// port must not be the controller port of a node not started yet.
	addrs := reserveAddrs(t, 3*n)
	ctl, kafka, http := addrs[:n], addrs[n:2*n], addrs[2*n:]
	var voters []string
	for i := range n {
		voters = append(voters, fmt.Sprintf("%d@%s", i+1, ctl[i]))
	}
	q := strings.Join(voters, ",")
	var webs []string // every node's HTTP address, for /live's links
	for i := range n {
		webs = append(webs, fmt.Sprintf("%d@%s", i+1, http[i]))
	}
	bs := make([]*Broker, n)
	for i := range n {
		bs[i] = startBroker(t, append([]BrokerOpt{WithAddrs(kafka[i], http[i]), WithArgs("--node-id", strconv.Itoa(i+1),
			"--controller-addr", ctl[i], "--controller-quorum", q, "--http-peers", strings.Join(webs, ","))}, append(slices.Clone(opts), each(i)...)...)...)
		bs[i].NodeID = int32(i + 1)
	}
	for _, b := range bs {
		eventually(t, 60*time.Second, "every broker registered", func() error {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			cl, err := kgo.NewClient(kgo.SeedBrokers(b.Addr))
			if err != nil {
				return err
			}
			defer cl.Close()
			md, err := kadm.NewClient(cl).BrokerMetadata(ctx)
			if err != nil {
				return err
			}
			if len(md.Brokers) != n {
				return fmt.Errorf("%s sees %d brokers, want %d", b.Addr, len(md.Brokers), n)
			}
			return nil
		})
	}
	return bs
}

// withExternal gives each broker of a cluster three listeners: INTERNAL on
// its Addr, EXTERNAL on an address of its own (recorded in external) and
// CONTROLLER on its controller address.
func withExternal(t *testing.T, external map[*Broker]string) BrokerOpt {
	return WithListenersFor(func(b *Broker) string {
		if external[b] == "" {
			external[b] = reserveAddrs(t, 1)[0]
		}
		return "INTERNAL://" + b.Addr + ",EXTERNAL://" + external[b] + ",CONTROLLER://" + controllerAddr(b)
	})
}

func seeds(bs []*Broker) []string {
	var out []string
	for _, b := range bs {
		out = append(out, b.Addr)
	}
	return out
}

// clusterClient is a client of the cluster, closed when the test ends.
// It retries a connection closed before its first answer, as a client
// whose settings are known to be right may (kgo.AlwaysRetryEOF): these
// tests kill and halt brokers, and one that dies between accepting a
// connection and answering on it looks, to kgo's default, like a broker
// that wants SASL.
func clusterClient(t *testing.T, bs []*Broker, opts ...kgo.Opt) *kgo.Client {
	t.Helper()
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(seeds(bs)...), kgo.AlwaysRetryEOF()}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl
}

// partition is a partition as Metadata describes it.
type partition = kmsg.MetadataResponseTopicPartition

// partitionState is partition 0 of topic as the metadata r answers has it:
// some live broker's view through a *kgo.Client, one broker's own view
// through a *kgo.Broker.
func partitionState(r kmsg.Requestor, topic string) (partition, error) {
	var none partition
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	req := kmsg.NewPtrMetadataRequest()
	rt := kmsg.NewMetadataRequestTopic()
	rt.Topic = kmsg.StringPtr(topic)
	req.Topics = append(req.Topics, rt)
	resp, err := req.RequestWith(ctx, r)
	if err != nil {
		return none, err
	}
	if len(resp.Topics) != 1 {
		return none, fmt.Errorf("%d topics in the answer, want 1", len(resp.Topics))
	}
	td := resp.Topics[0]
	if err := kerr.ErrorForCode(td.ErrorCode); err != nil {
		return none, fmt.Errorf("topic %s: %w", topic, err)
	}
	if len(td.Partitions) != 1 {
		return none, fmt.Errorf("topic %s has %d partitions, want 1", topic, len(td.Partitions))
	}
	return td.Partitions[0], nil
}

// waitPartition polls partition 0 of topic, as r sees it (see
// partitionState), until ok accepts it, and returns what ok accepted.
func waitPartition(t *testing.T, r kmsg.Requestor, topic, what string, ok func(partition) bool) partition {
	t.Helper()
	var p partition
	eventually(t, 60*time.Second, what, func() error {
		var err error
		if p, err = partitionState(r, topic); err != nil {
			return err
		}
		if !ok(p) {
			return fmt.Errorf("leader %d, isr %v, offline %v", p.Leader, p.ISR, p.OfflineReplicas)
		}
		return nil
	})
	return p
}

// createReplicated creates topic with one partition, RF=3 and
// min.insync.replicas=2, and waits for a leader and a full ISR. It returns
// the partition and an admin client.
func createReplicated(t *testing.T, bs []*Broker, topic string) (*kgo.Client, partition) {
	t.Helper()
	cl := clusterClient(t, bs, kgo.RetryTimeout(20*time.Second))
	createFullyReplicated(t, kadm.NewClient(cl), 1, topic)
	// Whichever broker answers must have caught up too.
	return cl, waitPartition(t, cl, topic, "leader and full ISR", func(p partition) bool {
		return p.Leader >= 0 && len(p.ISR) == 3
	})
}

// highWatermark is partition 0's high watermark, as its leader answers
// ListOffsets.
func highWatermark(cl *kgo.Client, topic string) (int64, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	ends, err := kadm.NewClient(cl).ListEndOffsets(ctx, topic)
	if err != nil {
		return 0, err
	}
	o, ok := ends.Lookup(topic, 0)
	if !ok {
		return 0, errors.New("no partition 0 in the answer")
	}
	return o.Offset, o.Err
}

// tail reads partition 0 of topic from offset 0 in the background, without
// a group (ConsumePartitions), and checks as it reads that every record's
// offset is the number of records before it: none is skipped or read twice
// (the tests write no transactions, so there are no control records).
type tail struct {
	mu   sync.Mutex
	vals []string // vals[o] is the value at offset o
	err  error    // the first offset out of sequence; nothing is kept after it
}

func startTail(t *testing.T, bs []*Broker, topic string) *tail {
	t.Helper()
	cl := clusterClient(t, bs, kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: {0: kgo.NewOffset().At(0)}}))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	t.Cleanup(func() { cancel(); <-done }) // before the client's Close
	tl := &tail{}
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			fs := cl.PollFetches(ctx)
			if ctx.Err() != nil {
				return
			}
			fs.EachError(func(_ string, _ int32, err error) { t.Logf("consumer: fetch: %v", err) })
			tl.mu.Lock()
			fs.EachRecord(func(r *kgo.Record) {
				switch {
				case tl.err != nil:
				case r.Offset != int64(len(tl.vals)):
					tl.err = fmt.Errorf("read offset %d after %d records", r.Offset, len(tl.vals))
				default:
					tl.vals = append(tl.vals, string(r.Value))
				}
			})
			tl.mu.Unlock()
		}
	}()
	return tl
}

// waitFor polls the values read so far, in offset order, until cond
// accepts them, and returns them. A gap or a repeat fails the test.
func (tl *tail) waitFor(t *testing.T, what string, cond func(vals []string) error) []string {
	t.Helper()
	var vals []string
	eventually(t, 60*time.Second, what, func() error {
		tl.mu.Lock()
		// Records are only appended: this prefix does not change.
		vals = tl.vals[:len(tl.vals):len(tl.vals)]
		err := tl.err
		tl.mu.Unlock()
		if err != nil {
			t.Fatalf("consumer: %v", err)
		}
		return cond(vals)
	})
	return vals
}

// upTo waits until the tail has read offsets 0 to end-1, and returns them.
func (tl *tail) upTo(t *testing.T, end int64) []string {
	t.Helper()
	return tl.waitFor(t, fmt.Sprintf("the consumer reading up to offset %d", end), func(vals []string) error {
		if int64(len(vals)) < end {
			return fmt.Errorf("read %d records", len(vals))
		}
		return nil
	})
}
