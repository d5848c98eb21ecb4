package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestDescribeLogDirs: kadm's DescribeAllLogDirs and sarama's
// DescribeLogDirs report the data directory, its volume, and per
// partition the size of its segment files on disk.
func TestDescribeLogDirs(t *testing.T) {
	t.Parallel()
	requireBinary(t)
	b := startBroker(t, WithConfig("auto.create.topics.enable", "false"))
	ctx := testCtx(t, opTimeout)
	adm := b.Admin(t)
	topic := topicName(t, "")
	mustCreateTopic(t, adm, topic, 2, nil)
	cl := b.Client(t, kgo.DefaultProduceTopic(topic), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	for i := range 30 {
		r := kgo.StringRecord(strings.Repeat("v", 100*(i+1)))
		r.Partition = int32(i % 2)
		if err := cl.ProduceSync(ctx, r).FirstErr(); err != nil {
			t.Fatalf("produce: %v", err)
		}
	}
	dir, err := filepath.Abs(b.DataDir)
	if err != nil {
		t.Fatal(err)
	}

	all, err := adm.DescribeAllLogDirs(ctx, nil)
	if err != nil {
		t.Fatalf("DescribeAllLogDirs: %v", err)
	}
	dirs := all[b.NodeID]
	if len(all) != 1 || len(dirs) != 1 {
		t.Fatalf("DescribeAllLogDirs: %v, want one broker with one dir", all)
	}
	d, ok := dirs[dir]
	if !ok || d.Err != nil {
		t.Fatalf("DescribeAllLogDirs: no dir %s without error in %v", dir, dirs)
	}
	if d.TotalBytes <= 0 || d.UsableBytes < 0 || d.UsableBytes > d.TotalBytes {
		t.Errorf("volume total %d usable %d, want 0 <= usable <= total, total > 0", d.TotalBytes, d.UsableBytes)
	}
	for p := range int32(2) {
		dp, ok := d.Topics.Lookup(topic, p)
		if !ok {
			t.Fatalf("no %s-%d in %v", topic, p, d.Topics)
		}
		if want := logFilesSize(t, filepath.Join(dir, fmt.Sprintf("%s-%d", topic, p))); dp.Size != want || want == 0 {
			t.Errorf("%s-%d: size %d, the .log files hold %d bytes", topic, p, dp.Size, want)
		}
		if dp.OffsetLag != 0 || dp.IsFuture {
			t.Errorf("%s-%d: offset lag %d future %v, want 0 false", topic, p, dp.OffsetLag, dp.IsFuture)
		}
	}

	// One partition asked for: only it comes back.
	one, err := adm.DescribeBrokerLogDirs(ctx, b.NodeID, kadm.TopicsSet{topic: {1: {}}})
	if err != nil {
		t.Fatalf("DescribeBrokerLogDirs: %v", err)
	}
	n := 0
	one.Each(func(d kadm.DescribedLogDir) {
		d.Topics.Each(func(dp kadm.DescribedLogDirPartition) {
			n++
			if dp.Topic != topic || dp.Partition != 1 {
				t.Errorf("asked for %s-1, got %s-%d", topic, dp.Topic, dp.Partition)
			}
		})
	})
	if n != 1 {
		t.Errorf("asked for %s-1, got %d partitions", topic, n)
	}

	// sarama.
	admin := saramaAdmin(t, b.Addr)
	byBroker, err := admin.DescribeLogDirs([]int32{b.NodeID})
	if err != nil {
		t.Fatalf("sarama DescribeLogDirs: %v", err)
	}
	var sizes []int64
	for _, md := range byBroker[b.NodeID] {
		if md.Path != dir || md.ErrorCode != 0 {
			t.Errorf("sarama: dir %s error %v, want %s", md.Path, md.ErrorCode, dir)
		}
		for _, tp := range md.Topics {
			if tp.Topic != topic {
				continue
			}
			for _, p := range tp.Partitions {
				want, _ := d.Topics.Lookup(topic, p.PartitionID)
				if p.Size != want.Size {
					t.Errorf("sarama: %s-%d size %d, kadm said %d", topic, p.PartitionID, p.Size, want.Size)
				}
				sizes = append(sizes, p.Size)
			}
		}
	}
	if len(sizes) != 2 {
		t.Errorf("sarama: %d partitions of %s, want 2", len(sizes), topic)
	}
}

// TestClusterDescribeLogDirs: each broker of a cluster describes its own
// replicas in its own directory; once the followers have caught up, every
// replica is the same size.
func TestClusterDescribeLogDirs(t *testing.T) {
	t.Parallel()
	bs := startCluster(t, 3)
	topic := topicName(t, "")
	adm := kadm.NewClient(clusterClient(t, bs, kgo.RetryTimeout(20*time.Second)))
	createFullyReplicated(t, adm, 1, topic)
	producer := clusterClient(t, bs, kgo.DefaultProduceTopic(topic))
	for i := range 20 {
		if err := producer.ProduceSync(testCtx(t, opTimeout), kgo.StringRecord(fmt.Sprintf("record %d", i))).FirstErr(); err != nil {
			t.Fatalf("produce: %v", err)
		}
	}
	eventually(t, 30*time.Second, "every replica described, the same size", func() error {
		all, err := adm.DescribeAllLogDirs(testCtx(t, 5*time.Second), kadm.TopicsSet{topic: {0: {}}})
		if err != nil {
			return err
		}
		sizes := map[int32]int64{}
		for _, b := range bs {
			dir, _ := filepath.Abs(b.DataDir)
			d, ok := all[b.NodeID][dir]
			if !ok {
				return fmt.Errorf("broker %d: no dir %s in %v", b.NodeID, dir, all[b.NodeID])
			}
			dp, ok := d.Topics.Lookup(topic, 0)
			if !ok {
				return fmt.Errorf("broker %d: no %s-0", b.NodeID, topic)
			}
			sizes[b.NodeID] = dp.Size
		}
		if sizes[1] == 0 || sizes[1] != sizes[2] || sizes[2] != sizes[3] {
			return fmt.Errorf("sizes %v", sizes)
		}
		return nil
	})
}

// logFilesSize is the size of the .log segment files in a partition
// directory.
func logFilesSize(t *testing.T, dir string) int64 {
	t.Helper()
	logs, err := filepath.Glob(filepath.Join(dir, "*.log"))
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, f := range logs {
		st, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		n += st.Size()
	}
	return n
}
