package e2e

import (
	crand "crypto/rand"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// mountTmpfs mounts a tmpfs of size bytes at a fresh directory and
// unmounts it at the end of the test. It needs root: without it the test
// skips loudly, and fails under CI=true (CI runs as root).
func mountTmpfs(t *testing.T, size int) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "tmpfs")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", fmt.Sprintf("size=%d", size), "tmpfs", dir).CombinedOutput(); err != nil {
		missingTool(t, fmt.Sprintf("mounting a tmpfs (needs root): %v: %s", err, out))
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
	return dir
}

// TestENOSPCOnTmpfs fills a real file system: an idempotent acks=all
// producer writes to a broker whose data directory is a 4 MiB tmpfs until
// the disk is full. The failed writes are never acknowledged; once space
// is freed (the tmpfs grown) and the broker restarted, every acknowledged
// record is there, once, in order.
func TestENOSPCOnTmpfs(t *testing.T) {
	t.Parallel()
	requireBinary(t)
	dir := mountTmpfs(t, 4<<20)
	topic := topicName(t, "")
	b := startBroker(t, WithDataDir(filepath.Join(dir, "data")),
		WithConfig("log.segment.bytes", "262144"), WithConfig("auto.create.topics.enable", "false"))
	mustCreateTopic(t, b.Admin(t), topic, 1, nil)
	cl := b.Client(t,
		kgo.DefaultProduceTopic(topic),
		kgo.RequiredAcks(kgo.AllISRAcks()), // idempotent by default
		kgo.ProducerLinger(0),
		kgo.RecordRetries(3),
		kgo.RetryBackoffFn(func(int) time.Duration { return 20 * time.Millisecond }),
	)
	al := newDiskAcks(t)
	ctx := testCtx(t, 120*time.Second)
	for next := 0; len(al.failed) == 0 && next < 20_000; {
		var wg sync.WaitGroup
		for range 50 {
			i := next
			next++
			wg.Add(1)
			value := make([]byte, 1000)
			crand.Read(value[6:]) // incompressible: the disk must fill with it
			copy(value, fmt.Sprintf("%06d", i))
			cl.Produce(ctx, &kgo.Record{Value: value}, al.promise(i, &wg))
		}
		waitGroupOrFail(t, &wg, 60*time.Second, "produce promises")
	}
	acked := al.sorted()
	t.Logf("%d acknowledged before the disk was full; failures: %v", len(acked), al.errs)
	if len(al.failed) == 0 || len(acked) < 1000 {
		t.Fatalf("%d acknowledged, failures %v: the disk should have filled after a few thousand", len(acked), al.errs)
	}
	cl.Close()
	if out := b.Output(); !strings.Contains(out, "no space left on device") {
		t.Errorf("the broker log does not mention ENOSPC")
	}
	if code, err := b.Stop(); err != nil || code != 0 {
		t.Fatalf("stop on a full disk: exit %d, %v\n%s", code, err, b.Output())
	}
	if out, err := exec.Command("mount", "-o", "remount,size=64m", dir).CombinedOutput(); err != nil {
		t.Fatalf("growing the tmpfs: %v: %s", err, out)
	}
	b.Restart()
	got := consumeToEnd(t, b, topic, 1)[0]
	if last := acked[len(acked)-1]; len(got) <= last {
		t.Fatalf("after the restart the log holds %d records; record %d was acknowledged", len(got), last)
	}
	for o, r := range got {
		if want := fmt.Sprintf("%06d", o); r.Offset != int64(o) || string(r.Value[:6]) != want {
			t.Fatalf("offset %d: offset %d value %.6q, want %q", o, r.Offset, r.Value, want)
		}
	}
	t.Logf("after the restart: %d records, the %d acknowledged among them", len(got), len(acked))
}
