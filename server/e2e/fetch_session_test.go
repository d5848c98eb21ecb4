package e2e

import (
	"fmt"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
)

// TestFetchSessionsManyPartitions: franz-go's consumer keeps an
// incremental fetch session (KIP-227) with bin/gregor over 300
// partitions: it reads every record of every partition byte-exact, the
// broker's /metrics shows one session holding the 300 partitions, and a
// record written to one partition later reaches the consumer through it.
func TestFetchSessionsManyPartitions(t *testing.T) {
	t.Parallel()
	b := startBroker(t)
	topic := topicName(t, "")
	const parts = 300
	mustCreateTopic(t, b.Admin(t), topic, parts, nil)
	ctx := testCtx(t, opTimeout)
	prod := b.Client(t, kgo.DefaultProduceTopic(topic), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	var rs []*kgo.Record
	for p := range parts {
		rs = append(rs, &kgo.Record{Partition: int32(p), Value: fmt.Appendf(nil, "p%03d", p)})
	}
	if err := prod.ProduceSync(ctx, rs...).FirstErr(); err != nil {
		t.Fatalf("produce: %v", err)
	}
	cons := b.Client(t, kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	seen := map[int32]string{}
	for len(seen) < parts {
		fs := cons.PollFetches(ctx)
		if err := fs.Err0(); err != nil {
			t.Fatalf("poll after %d partitions: %v", len(seen), err)
		}
		fs.EachRecord(func(r *kgo.Record) {
			if prev, dup := seen[r.Partition]; dup {
				t.Errorf("partition %d read twice: %q then %q", r.Partition, prev, r.Value)
			}
			seen[r.Partition] = string(r.Value)
		})
	}
	for p, v := range seen {
		if v != fmt.Sprintf("p%03d", p) || p >= parts {
			t.Errorf("partition %d: %q", p, v)
		}
	}
	fams, err := scrapeMetrics(b)
	if err != nil {
		t.Fatal(err)
	}
	if n, held := sumOf(fams, "gregor_fetch_sessions", "", ""), sumOf(fams, "gregor_fetch_session_partitions", "", ""); n != 1 || held != parts {
		t.Errorf("after the first reads: %v fetch sessions holding %v partitions, want 1 holding %d", n, held, parts)
	}
	late := &kgo.Record{Partition: 137, Value: []byte("late")}
	if err := prod.ProduceSync(ctx, late).FirstErr(); err != nil {
		t.Fatalf("produce: %v", err)
	}
	for got := false; !got; {
		fs := cons.PollFetches(ctx)
		if err := fs.Err0(); err != nil {
			t.Fatalf("poll for the late record: %v", err)
		}
		fs.EachRecord(func(r *kgo.Record) {
			if r.Partition != 137 || r.Offset != 1 || string(r.Value) != "late" {
				t.Errorf("read p%d@%d %q, want p137@1 \"late\"", r.Partition, r.Offset, r.Value)
			}
			got = true
		})
	}
}
