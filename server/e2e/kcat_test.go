package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// TestKcat drives the broker with Debian's kcat (librdkafka): metadata (-L),
// produce (-P) with each codec, consume (-C) and offset query (-Q).
func TestKcat(t *testing.T) {
	t.Parallel()
	kcat := requireTool(t, "kcat")
	b := startBroker(t, WithConfig("auto.create.topics.enable", "false"))
	topic := topicName(t, "")
	mustCreateTopic(t, b.Admin(t), topic, 2, nil)

	run := func(stdin string, args ...string) string {
		t.Helper()
		ctx := testCtx(t, 30*time.Second)
		all := append([]string{"-b", b.Addr, "-X", "socket.timeout.ms=10000"}, args...)
		cmd := exec.CommandContext(ctx, kcat, all...)
		cmd.Stdin = strings.NewReader(stdin)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("kcat %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(all, " "), err, stdout.String(), stderr.String())
		}
		if strings.Contains(stderr.String(), "ERROR") || strings.Contains(stderr.String(), "Delivery failed") {
			t.Errorf("kcat %s reported errors:\n%s", strings.Join(all, " "), stderr.String())
		}
		return stdout.String()
	}

	// -L: metadata as JSON.
	var md struct {
		Brokers []struct {
			ID   int32  `json:"id"`
			Name string `json:"name"`
		} `json:"brokers"`
		Topics []struct {
			Topic      string `json:"topic"`
			Partitions []struct {
				Partition int32 `json:"partition"`
				Leader    int32 `json:"leader"`
				Replicas  []struct {
					ID int32 `json:"id"`
				} `json:"replicas"`
			} `json:"partitions"`
		} `json:"topics"`
	}
	out := run("", "-L", "-J", "-t", topic)
	if err := json.Unmarshal([]byte(out), &md); err != nil {
		t.Fatalf("kcat -L -J output is not JSON: %v\n%s", err, out)
	}
	if len(md.Brokers) != 1 || md.Brokers[0].ID != b.NodeID || md.Brokers[0].Name != b.Addr {
		t.Errorf("kcat -L brokers %+v, want node %d at %s", md.Brokers, b.NodeID, b.Addr)
	}
	if len(md.Topics) != 1 || md.Topics[0].Topic != topic || len(md.Topics[0].Partitions) != 2 {
		t.Fatalf("kcat -L topics %+v, want %s with 2 partitions", md.Topics, topic)
	}
	for _, p := range md.Topics[0].Partitions {
		if p.Leader != b.NodeID || len(p.Replicas) != 1 || p.Replicas[0].ID != b.NodeID {
			t.Errorf("kcat -L partition %+v, want leader and replica %d", p, b.NodeID)
		}
	}

	// -P: one run per codec, acks=all, keyed lines to partition 0.
	var want []string
	for _, codec := range []string{"none", "gzip", "snappy", "lz4", "zstd"} {
		var in strings.Builder
		for i := range 20 {
			kv := fmt.Sprintf("%s-%d:kcat %s record %d %s", codec, i, codec, i, strings.Repeat("x", 50))
			in.WriteString(kv + "\n")
			want = append(want, kv)
		}
		run(in.String(), "-P", "-t", topic, "-p", "0", "-K", ":", "-X", "acks=all", "-X", "compression.codec="+codec, "-X", "linger.ms=5")
	}

	// -C: everything from the beginning, then exit at the end (-e).
	out = run("", "-C", "-t", topic, "-p", "0", "-o", "beginning", "-e", "-f", "%o %k:%s\n")
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != len(want) {
		t.Fatalf("kcat -C read %d records, produced %d:\n%s", len(lines), len(want), out)
	}
	for i, l := range lines {
		if l != fmt.Sprintf("%d %s", i, want[i]) {
			t.Errorf("kcat -C line %d = %q, want %q", i, l, fmt.Sprintf("%d %s", i, want[i]))
		}
	}

	// -Q: offsets by timestamp, on partition 1 filled with known timestamps.
	ctx := testCtx(t, opTimeout)
	cl := b.Client(t, kgo.DefaultProduceTopic(topic), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	base := time.Now().Add(-time.Hour).Truncate(time.Millisecond)
	for i := range 5 {
		r := &kgo.Record{Partition: 1, Value: fmt.Appendf(nil, "%d", i), Timestamp: base.Add(time.Duration(i) * time.Minute)}
		if err := cl.ProduceSync(ctx, r).FirstErr(); err != nil {
			t.Fatalf("produce: %v", err)
		}
	}
	for _, tc := range []struct {
		ts   int64
		want int64
	}{
		{base.Add(-time.Minute).UnixMilli(), 0},
		{base.Add(2 * time.Minute).UnixMilli(), 2},
		{base.Add(150 * time.Second).UnixMilli(), 3},
		{-2, 0}, // earliest
		{-1, 5}, // latest
	} {
		out := run("", "-Q", "-t", fmt.Sprintf("%s:1:%d", topic, tc.ts))
		// "<topic> [1] offset N"
		f := strings.Fields(strings.TrimSpace(out))
		if len(f) != 4 || f[0] != topic || f[1] != "[1]" || f[2] != "offset" {
			t.Errorf("kcat -Q %d: unexpected output %q", tc.ts, out)
			continue
		}
		if got, _ := strconv.ParseInt(f[3], 10, 64); got != tc.want {
			t.Errorf("kcat -Q timestamp %d: offset %d, want %d", tc.ts, got, tc.want)
		}
	}
}
