package bench

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

const clusterSize = 3

// BenchmarkCluster is what replication costs the brokers: three gregor
// processes forming one cluster as `make cluster` starts them (each a
// broker and a voter of the metadata quorum: --node-id,
// --controller-addr, --controller-quorum, --http-peers), beside a single
// gregor, in the same run. Each round creates a 6-partition topic on each
// (RF=3 on the cluster, waiting for full ISRs), produces
// GREGOR_BENCH_RECORDS records with acks=all (the order alternating), and
// takes the brokers' CPU seconds per GB acknowledged: summed over the
// three processes for the cluster. Goal: the cluster's at most 3x the
// single broker's (each of three replicas writes every byte; anything
// past that is replication's own cost). All three share the brokers'
// core when pinned, so the rates are printed but only the CPU figure has
// a goal. Gregor only: kfake does not replicate.
func BenchmarkCluster(b *testing.B) {
	only(b, "cluster")
	s := loadSettings(b)
	ctx := context.Background()
	single, cluster := startGregor(b), startCluster(b)
	b.Cleanup(func() {
		for _, t := range []*target{single, cluster} {
			if err := t.stop(); err != nil {
				b.Errorf("%s: stopping: %v", t.name, err)
			}
		}
	})
	// The kernel's part of each (floor_test.go): after every phase, the
	// same bytes again through the write floor of one broker ('w') or of
	// three replicas ('r').
	floorChild := startChild(b, "floor", envFloorChild)
	b.Cleanup(func() { _ = floorChild.stop() })
	results, floors := map[string][]phaseResult{}, map[string][]phaseResult{}
	rounds := alternate(b, s, []*target{single, cluster}, func(r int, t *target) {
		topic := "replicated-" + strconv.Itoa(r)
		rf := int16(len(t.members))
		if rf == 0 {
			rf = 1
		}
		if err := makeTopic(ctx, t.addr, topic, partitions, rf, nil); err != nil {
			b.Fatalf("%s: %v", t.name, err)
		}
		if err := waitPartitions(ctx, t.addr, topic, partitions, time.Minute, func(p kmsg.MetadataResponseTopicPartition) bool {
			return p.Leader >= 0 && len(p.ISR) == int(rf)
		}); err != nil {
			b.Fatalf("%s: %v", t.name, err)
		}
		res, err := produce(ctx, t.addr, topic, s.records, s.phase, t.pids())
		if err != nil {
			b.Fatalf("%s, round %d: %v", t.name, r+1, err)
		}
		results[t.name] = append(results[t.name], res)
		if err := deleteTopic(ctx, t.addr, topic); err != nil {
			b.Fatal(err)
		}
		floor := byte('w')
		if rf > 1 {
			floor = 'r'
		}
		f, err := measureFloor(floorChild, floor, res.bytes)
		if err != nil {
			b.Fatalf("round %d: %v", r+1, err)
		}
		floors[t.name] = append(floors[t.name], f)
	})
	b.ReportMetric(0, "ns/op")
	one, three := results[single.name], results[cluster.name]
	perRound := make([]float64, len(one))
	for i := range one {
		perRound[i] = three[i].cpuPerGB() / one[i].cpuPerGB()
	}
	ratio := spreadOf(perRound)
	floorRatio := make([]float64, len(one))
	for i := range one {
		floorRatio[i] = floors[cluster.name][i].cpuPerGB() / floors[single.name][i].cpuPerGB()
	}
	fmt.Printf("\nreplication: %d x %d B records, %d partitions, acks=all; median (min-max) of %d rounds\n"+
		"%-22s %-24s %-24s %-16s\n", s.records, recordSize, partitions, rounds,
		"", "produce MB/s", "broker cpu-s/GB acked", "client core")
	for _, t := range []*target{single, cluster} {
		rs := results[t.name]
		fmt.Printf("%-22s %-24s %-24s %-16s\n", t.name, spreadOver(rs, phaseResult.mbps).format("%.1f"),
			spreadOver(rs, phaseResult.cpuPerGB).format("%.2f"), percent(spreadOver(rs, busy)))
	}
	fmt.Printf("cluster/single cpu-s per GB acknowledged: %s (goal <= 3.00x)\n", ratio.format("%.2fx"))
	fmt.Printf("the kernel's part alone (floor_test.go), cpu-s per GB: one broker's writes %s, three replicas' %s, %s of one\n",
		spreadOver(floors[single.name], phaseResult.cpuPerGB).format("%.2f"),
		spreadOver(floors[cluster.name], phaseResult.cpuPerGB).format("%.2f"), spreadOf(floorRatio).format("%.2fx"))
	b.ReportMetric(ratio.med, "cluster/single-cpu-per-GB")
	report(row{"broker cpu-s per GB acked, 3 brokers RF=3 (sum of 3)", spreadOver(three, phaseResult.cpuPerGB).format("%.2f"),
		"- (no replication)", ratio.format("%.2fx") + " of single " + spreadOver(one, phaseResult.cpuPerGB).format("%.2f"),
		"<= 3.00x single", verdict(ratio.n > 0 && ratio.med <= 3, "")})
	report(row{"kernel floor, cpu-s per GB acked: 3 replicas' socket reads, writes and sendfiles", spreadOver(floors[cluster.name], phaseResult.cpuPerGB).format("%.2f"),
		"-", spreadOf(floorRatio).format("%.2fx") + " of one broker's " + spreadOver(floors[single.name], phaseResult.cpuPerGB).format("%.2f"), "-", "-"})
}

// startCluster starts clusterSize gregor processes forming one cluster,
// the way `make cluster` does, and waits until every broker sees them all
// registered.
func startCluster(b *testing.B) *target {
	addrs := freeAddrs(b, 3*clusterSize) // every port distinct, picked up front
	ctl, kafka, http := addrs[:clusterSize], addrs[clusterSize:2*clusterSize], addrs[2*clusterSize:]
	var voters, webs []string
	for i := range clusterSize {
		voters = append(voters, fmt.Sprintf("%d@%s", i+1, ctl[i]))
		webs = append(webs, fmt.Sprintf("%d@%s", i+1, http[i]))
	}
	c := &target{name: fmt.Sprintf("%d brokers, RF=%d", clusterSize, clusterSize), addr: strings.Join(kafka, ",")}
	for i := range clusterSize {
		c.members = append(c.members, launchGregor(b, gregorSpec{kafkaAddr: kafka[i], http: http[i], flags: []string{
			"--node-id", strconv.Itoa(i + 1), "--controller-addr", ctl[i],
			"--controller-quorum", strings.Join(voters, ","), "--http-peers", strings.Join(webs, ","),
		}}))
	}
	c.stop = func() error {
		var errs []error
		for _, m := range c.members {
			errs = append(errs, m.stop())
		}
		return errors.Join(errs...)
	}
	for _, m := range c.members {
		if err := waitRegistered(m.addr, clusterSize, time.Minute); err != nil {
			for i, member := range c.members {
				err = fmt.Errorf("%w\nbroker %d's log:\n%s", err, i+1, member.logTail())
			}
			c.stop()
			b.Fatal(err)
		}
	}
	return c
}

// waitRegistered polls one broker's Metadata until it lists n brokers.
func waitRegistered(addr string, n int, limit time.Duration) error {
	cl, err := kgo.NewClient(seeds(addr))
	if err != nil {
		return err
	}
	defer cl.Close()
	deadline := time.Now().Add(limit)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		md, err := freshMetadata(ctx, cl)
		cancel()
		seen := 0
		if err == nil {
			seen = len(md.Brokers)
		}
		if seen == n {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s: %d of %d brokers registered after %v (last error: %v)", addr, seen, n, limit, err)
		}
		time.Sleep(50 * time.Millisecond) // polling other processes' state; nothing to wait on
	}
}

// freshMetadata asks for the brokers and the named topics (none: no
// topic) with a MetadataRequest of its own. kadm's BrokerMetadata and
// ListTopics answer from franz-go's metadata cache instead, which a
// request naming no topic never refreshes and a named topic refreshes
// only after MetadataMinAge (5 s): a wait polling through them saw a
// cluster of one broker for a minute, and a topic's leaders late.
func freshMetadata(ctx context.Context, cl *kgo.Client, topics ...string) (*kmsg.MetadataResponse, error) {
	req := kmsg.NewPtrMetadataRequest()
	req.Topics = []kmsg.MetadataRequestTopic{}
	for _, t := range topics {
		rt := kmsg.NewMetadataRequestTopic()
		rt.Topic = kmsg.StringPtr(t)
		req.Topics = append(req.Topics, rt)
	}
	return req.RequestWith(ctx, cl)
}
