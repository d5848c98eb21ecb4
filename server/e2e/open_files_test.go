package e2e

import (
	"fmt"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
)

// TestPartitionsBeyondOpenFilesLimit: under an open-files limit of 400
// (so the storage holds at most 300 descriptors), bin/gregor creates a
// topic of 250 partitions, whose segment, index and time index files
// are 750; takes a record into each, serves each back byte-exact, and
// again after kill -9 and a restart, and after a clean one; /metrics
// never shows more than 300 files open, and shows files opened again on
// use where the broker opened all 750: not after kill -9, whose recovery
// opens no active segment's index files (core/log: they wait for the
// segment's next sync), so the 250 .log files fit under the bound.
func TestPartitionsBeyondOpenFilesLimit(t *testing.T) {
	t.Parallel()
	prlimit := requireTool(t, "prlimit")
	b := startBroker(t, WithWrapper(prlimit, "--nofile=400:400", "--"))
	topic := topicName(t, "")
	const parts = 250
	mustCreateTopic(t, b.Admin(t), topic, parts, nil)
	ctx := testCtx(t, opTimeout)
	prod := b.Client(t, kgo.DefaultProduceTopic(topic), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	var rs []*kgo.Record
	for p := range parts {
		rs = append(rs, &kgo.Record{Partition: int32(p), Value: fmt.Appendf(nil, "v%03d", p)})
	}
	if err := prod.ProduceSync(ctx, rs...).FirstErr(); err != nil {
		t.Fatalf("produce to %d partitions under 400 open files: %v", parts, err)
	}
	readAll := func(when string, reopens bool) {
		t.Helper()
		cons := b.Client(t, kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
		defer cons.Close()
		seen := map[int32]string{}
		for len(seen) < parts {
			fs := cons.PollFetches(ctx)
			if err := fs.Err0(); err != nil {
				t.Fatalf("%s: poll after %d partitions: %v", when, len(seen), err)
			}
			fs.EachRecord(func(r *kgo.Record) { seen[r.Partition] = string(r.Value) })
		}
		for p, v := range seen {
			if v != fmt.Sprintf("v%03d", p) {
				t.Errorf("%s: partition %d holds %q", when, p, v)
			}
		}
		fams, err := scrapeMetrics(b)
		if err != nil {
			t.Fatal(err)
		}
		if open := sumOf(fams, "gregor_storage_open_files", "", ""); open > 300 || open < 1 {
			t.Errorf("%s: %v storage files open, want 1..300", when, open)
		}
		if again := sumOf(fams, "gregor_storage_reopened_files_total", "", ""); reopens && again == 0 {
			t.Errorf("%s: no file was opened again: the bound closed none", when)
		}
	}
	readAll("before the restart", true)
	b.KillAndRestart()
	readAll("after kill -9 and a restart", false)
	if code, err := b.Stop(); err != nil || code != 0 {
		t.Fatalf("stop: exit %d, %v", code, err)
	}
	b.Restart()
	readAll("after a clean restart", true)
}
