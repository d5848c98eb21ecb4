package e2e

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// TestDurabilityKillUnderLoad SIGKILLs the broker while a franz-go producer
// (acks=all) writes numbered records to several partitions, restarts it on
// the same data directory, and checks that every acknowledged record is
// there, in order, with nothing duplicated or invented.
func TestDurabilityKillUnderLoad(t *testing.T) {
	t.Parallel()
	t.Run("PageCache", func(t *testing.T) { killUnderLoad(t) })
	// fsync on every batch (group-committed): the same guarantees, through
	// the flush path.
	t.Run("FlushEveryMessage", func(t *testing.T) { killUnderLoad(t, WithConfig("flush.messages", "1")) })
}

func killUnderLoad(t *testing.T, opts ...BrokerOpt) {
	const partitions = 4
	b := startBroker(t, append([]BrokerOpt{
		WithConfig("log.segment.bytes", "16384"), // many rolls during the run
		WithConfig("auto.create.topics.enable", "false"),
	}, opts...)...)
	topic := topicName(t, "")
	mustCreateTopic(t, b.Admin(t), topic, partitions, nil)

	cl, err := kgo.NewClient(
		kgo.SeedBrokers(b.Addr),
		kgo.DefaultProduceTopic(topic),
		kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.RequiredAcks(kgo.AllISRAcks()),
		// Not idempotent and one request in flight: the broker's log order is
		// the order we produce in, whatever the broker supports.
		kgo.DisableIdempotentWrite(),
		kgo.MaxProduceRequestsInflightPerBroker(1),
		// Small batches, uncompressed: many requests, and segments that
		// really fill up.
		kgo.MaxBufferedRecords(500),
		kgo.ProducerBatchMaxBytes(8192),
		kgo.ProducerBatchCompression(kgo.NoCompression()),
		kgo.RetryTimeout(5*time.Second),
	)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()

	var (
		mu       sync.Mutex
		acked    [partitions][]int // acknowledged sequence numbers, per partition
		nAcked   atomic.Int64
		promises sync.WaitGroup
	)
	prodCtx, stopProducing := context.WithCancel(context.Background())
	defer stopProducing()
	producerDone := make(chan struct{})
	go func() {
		defer close(producerDone)
		var seq [partitions]int
		pad := strings.Repeat("d", 150)
		for i := 0; prodCtx.Err() == nil; i++ {
			p := int32(i % partitions)
			s := seq[p]
			seq[p]++
			r := &kgo.Record{Partition: p, Value: fmt.Appendf(nil, "%d-%08d-%s", p, s, pad)}
			promises.Add(1)
			cl.Produce(prodCtx, r, func(r *kgo.Record, err error) {
				defer promises.Done()
				if err == nil {
					mu.Lock()
					acked[p] = append(acked[p], s)
					mu.Unlock()
					nAcked.Add(1)
				}
			})
		}
	}()

	// Kill mid-stream: once enough is acknowledged, while more is in flight.
	eventually(t, 60*time.Second, "producer gets 3000 acks", func() error {
		if n := nAcked.Load(); n < 3000 {
			return fmt.Errorf("%d acked", n)
		}
		return nil
	})
	sizesBefore := logSizes(t, b.DataDir)
	b.Kill()
	// Everything not acknowledged by now stays unacknowledged: stop
	// producing and close the client before the broker comes back, so no
	// retry can land twice.
	stopProducing()
	<-producerDone
	cl.Close()
	waitGroupOrFail(t, &promises, 30*time.Second, "producer promises after close")
	sizesAtKill := logSizes(t, b.DataDir)

	b.Restart()

	mu.Lock()
	defer mu.Unlock()
	total := 0
	for p := range partitions {
		total += len(acked[p])
		// Acknowledgements arrive in order per partition.
		if !slices.IsSorted(acked[p]) {
			t.Fatalf("partition %d: acks out of order (test bug?)", p)
		}
	}
	t.Logf("%d records acknowledged before SIGKILL; %d .log files (%d before the kill snapshot)", total, len(sizesAtKill), len(sizesBefore))

	got := consumeToEnd(t, b, topic, partitions)
	for p := range partitions {
		recs := got[int32(p)]
		// The log must be a prefix of what was produced: record at offset o
		// is sequence o, no gaps, no duplicates.
		for o, r := range recs {
			want := fmt.Sprintf("%d-%08d-", p, o)
			if r.Offset != int64(o) || !bytes.HasPrefix(r.Value, []byte(want)) {
				t.Fatalf("partition %d: offset %d holds %q, want offset %d with %q...", p, r.Offset, trunc(r.Value), o, want)
			}
		}
		if n := len(acked[p]); n > 0 {
			if last := acked[p][n-1]; last >= len(recs) {
				t.Errorf("partition %d: acknowledged record %d is missing after the restart (log ends at %d)", p, last, len(recs))
			}
		}
	}

	// If recovery shortened any segment, the broker must have said so.
	if !useKfake {
		sizesAfter := logSizes(t, b.DataDir)
		for f, before := range sizesAtKill {
			if after, ok := sizesAfter[f]; ok && after < before {
				part := filepath.Base(filepath.Dir(f))
				if !outputMentions(b, part, "truncat", "drop", "discard", "recover") {
					t.Errorf("%s shrank from %d to %d bytes on restart but the broker log does not mention %s with truncat/drop/discard/recover", f, before, after, part)
				}
			}
		}
	}
}

// TestDurabilityCorruptTail corrupts a stopped broker's files, as a crash
// mid-write or a bad disk would, and checks what the restart keeps and says.
func TestDurabilityCorruptTail(t *testing.T) {
	t.Parallel()
	requireBinary(t)
	b := startBroker(t,
		WithConfig("log.segment.bytes", "4096"),
		WithConfig("auto.create.topics.enable", "false"),
	)
	topic := topicName(t, "")
	mustCreateTopic(t, b.Admin(t), topic, 1, nil)
	ctx := testCtx(t, opTimeout)
	// Uncompressed, so that 4096-byte segments hold only a few batches.
	cl := b.Client(t, kgo.DefaultProduceTopic(topic), kgo.ProducerBatchCompression(kgo.NoCompression()))
	const batches, perBatch = 40, 10
	base := time.Now().Add(-time.Hour).Truncate(time.Millisecond)
	for i := range batches {
		var rs []*kgo.Record
		for j := range perBatch {
			n := i*perBatch + j
			rs = append(rs, &kgo.Record{Value: fmt.Appendf(nil, "record-%04d-%s", n, strings.Repeat("c", 100)), Timestamp: base.Add(time.Duration(n) * time.Second)})
		}
		if err := cl.ProduceSync(ctx, rs...).FirstErr(); err != nil {
			t.Fatalf("produce batch %d: %v", i, err)
		}
	}
	cl.Close()
	// Crash rather than stop cleanly: a broker may trust its files after a
	// clean shutdown (Kafka does), but never after a crash.
	b.Kill()

	dir := partitionDir(t, b.DataDir, topic, 0)
	logs := segmentFiles(t, dir, ".log")
	if len(logs) < 3 {
		t.Fatalf("expected several segments with log.segment.bytes=4096, found %v", logSizes(t, dir))
	}

	t.Run("GarbageAppended", func(t *testing.T) {
		b.Kill()
		active := logs[len(logs)-1]
		f, err := os.OpenFile(active, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		// A torn write: 23 bytes that start like a batch header with a huge
		// length, and stop short.
		garbage := make([]byte, 23)
		binary.BigEndian.PutUint64(garbage[0:], uint64(batches*perBatch))
		binary.BigEndian.PutUint32(garbage[8:], 0x7fff0000)
		copy(garbage[12:], "torn-write!")
		if _, err := f.Write(garbage); err != nil {
			t.Fatal(err)
		}
		f.Close()
		sizeWithGarbage := fileSize(t, active)

		b.Restart()
		checkRecords(t, b, topic, 0, batches*perBatch, base)
		ok := outputMentions(b, topic, "truncat", "drop", "discard", "corrupt", "torn")
		t.Logf("broker output since the restart:\n%s", b.Output())
		if !ok {
			t.Errorf("recovery dropped 23 garbage bytes at the end of %s but the log has no line naming %s with truncat/drop/discard/corrupt/torn",
				filepath.Base(active), topic)
		}
		if size := fileSize(t, active); size >= sizeWithGarbage {
			t.Errorf("%s is still %d bytes after recovery; the garbage was not truncated", filepath.Base(active), size)
		}
	})

	t.Run("BadCRCAndMissingIndex", func(t *testing.T) {
		b.Kill()
		logs := segmentFiles(t, dir, ".log")
		active := logs[len(logs)-1]
		data, err := os.ReadFile(active)
		if err != nil {
			t.Fatal(err)
		}
		last := lastBatchPos(t, data)
		// Flip a byte of the last batch's CRC (header: baseOffset 8, length
		// 4, leader epoch 4, magic 1, crc 4).
		data[last+17] ^= 0xff
		if err := os.WriteFile(active, data, 0o644); err != nil {
			t.Fatal(err)
		}
		lastBatchRecords := int(binary.BigEndian.Uint32(data[last+57:])) // record count
		// Remove the index of a middle segment.
		indexes := segmentFiles(t, dir, ".index")
		if len(indexes) < 2 {
			t.Fatalf("expected an .index per segment, found %v", indexes)
		}
		victim := indexes[len(indexes)/2]
		if err := os.Remove(victim); err != nil {
			t.Fatal(err)
		}

		b.Restart()
		kept := batches*perBatch - lastBatchRecords
		checkRecords(t, b, topic, 0, kept, base)
		crcOK := outputMentions(b, topic, "truncat", "drop", "discard", "corrupt", "crc")
		indexOK := outputMentions(b, "index", "rebuil", "recreat", "recover", "missing")
		t.Logf("broker output since the restart:\n%s", b.Output())
		if !crcOK {
			t.Errorf("recovery dropped the last batch (bad CRC) of %s but no log line names %s with truncat/drop/discard/corrupt/crc",
				filepath.Base(active), topic)
		}
		if !indexOK {
			t.Errorf("%s was deleted but no log line mentions an index being rebuilt", filepath.Base(victim))
		}
		// Reads in the middle of the segment whose index was rebuilt.
		victimBase := segmentBase(t, victim)
		checkFetchFrom(t, b, topic, victimBase+3, base)
		// Offsets by timestamp still work (time index / scan).
		lo, err := b.Admin(t).ListOffsetsAfterMilli(testCtx(t, opTimeout), base.Add(time.Duration(victimBase+3)*time.Second).UnixMilli(), topic)
		if err != nil {
			t.Fatal(err)
		}
		if o, _ := lo.Lookup(topic, 0); o.Err != nil || o.Offset != victimBase+3 {
			t.Errorf("offset by timestamp in the rebuilt segment: %d (%v), want %d", o.Offset, o.Err, victimBase+3)
		}
		// New writes continue right after what was kept.
		cl := b.Client(t, kgo.DefaultProduceTopic(topic))
		r := &kgo.Record{Value: []byte("after recovery")}
		if err := cl.ProduceSync(testCtx(t, opTimeout), r).FirstErr(); err != nil {
			t.Fatalf("produce after recovery: %v", err)
		}
		if r.Offset != int64(kept) {
			t.Errorf("first record after recovery got offset %d, want %d", r.Offset, kept)
		}
		stopClean(t, b)
		if _, err := os.Stat(victim); err != nil {
			t.Errorf("the deleted index %s was not rebuilt: %v", filepath.Base(victim), err)
		}
	})
}

// ---------------------------------------------------------------------------

func stopClean(t testing.TB, b *Broker) {
	t.Helper()
	code, err := b.Stop()
	if err != nil || code != 0 {
		t.Fatalf("clean stop: exit code %d, %v", code, err)
	}
}

// consumeToEnd reads every partition from the start up to its end offset.
func consumeToEnd(t testing.TB, b *Broker, topic string, partitions int) map[int32][]*kgo.Record {
	t.Helper()
	eo, err := b.Admin(t).ListEndOffsets(testCtx(t, opTimeout), topic)
	if err != nil {
		t.Fatalf("ListEndOffsets: %v", err)
	}
	want := 0
	for p := range partitions {
		o, ok := eo.Lookup(topic, int32(p))
		if !ok || o.Err != nil {
			t.Fatalf("end offset of partition %d: %v", p, o.Err)
		}
		want += int(o.Offset)
	}
	got := map[int32][]*kgo.Record{}
	for _, r := range consumeN(t, b, topic, want) {
		got[r.Partition] = append(got[r.Partition], r)
	}
	return got
}

// checkRecords checks that partition p holds exactly records 0..n-1 of the
// corruption test, from offset 0, with their timestamps.
func checkRecords(t testing.TB, b *Broker, topic string, p int32, n int, base time.Time) {
	t.Helper()
	checkOffsets(t, b.Admin(t), topic, p, 0, int64(n))
	for i, r := range consumeN(t, b, topic, n) {
		want := fmt.Sprintf("record-%04d-", i)
		if r.Offset != int64(i) || !bytes.HasPrefix(r.Value, []byte(want)) || !r.Timestamp.Equal(base.Add(time.Duration(i)*time.Second)) {
			t.Fatalf("offset %d: got offset %d %q at %v, want %q at %v", i, r.Offset, trunc(r.Value), r.Timestamp, want, base.Add(time.Duration(i)*time.Second))
		}
	}
}

// checkFetchFrom consumes partition 0 from offset and checks the first record.
func checkFetchFrom(t testing.TB, b *Broker, topic string, offset int64, base time.Time) {
	t.Helper()
	cl := b.Client(t, kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: {0: kgo.NewOffset().At(offset)}}))
	ctx := testCtx(t, 20*time.Second)
	for {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("fetch from offset %d: nothing before the deadline", offset)
		}
		fs.EachError(func(_ string, _ int32, err error) { t.Fatalf("fetch from offset %d: %v", offset, err) })
		// A fetch may return the whole batch holding offset; the client
		// drops the records before it.
		if rs := fs.Records(); len(rs) > 0 {
			want := fmt.Sprintf("record-%04d-", offset)
			if rs[0].Offset != offset || !bytes.HasPrefix(rs[0].Value, []byte(want)) {
				t.Errorf("fetch from offset %d: first record offset %d %q, want %q", offset, rs[0].Offset, trunc(rs[0].Value), want)
			}
			return
		}
	}
}

// partitionDir finds <topic>-<p> under the data directory.
func partitionDir(t testing.TB, dataDir, topic string, p int) string {
	t.Helper()
	name := fmt.Sprintf("%s-%d", topic, p)
	var found string
	filepath.WalkDir(dataDir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && d.Name() == name {
			found = path
			return filepath.SkipAll
		}
		return nil
	})
	if found == "" {
		t.Fatalf("no directory %s under %s (Kafka's layout: <topic>-<partition>/)", name, dataDir)
	}
	return found
}

var segmentName = regexp.MustCompile(`^\d{20}$`)

// segmentFiles lists dir's segment files with the extension, by base offset.
func segmentFiles(t testing.TB, dir, ext string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ext) && segmentName.MatchString(strings.TrimSuffix(e.Name(), ext)) {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	slices.Sort(out) // 20-digit names sort by offset
	return out
}

func segmentBase(t testing.TB, path string) int64 {
	t.Helper()
	var n int64
	if _, err := fmt.Sscanf(filepath.Base(path), "%020d", &n); err != nil {
		t.Fatalf("segment name %s: %v", path, err)
	}
	return n
}

// logSizes maps every .log file under dir to its size.
func logSizes(t testing.TB, dir string) map[string]int64 {
	t.Helper()
	m := map[string]int64{}
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".log") {
			if info, err := d.Info(); err == nil {
				m[path] = info.Size()
			}
		}
		return nil
	})
	return m
}

func fileSize(t testing.TB, path string) int64 {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return info.Size()
}

// lastBatchPos walks v2 RecordBatch headers and returns where the last
// complete batch starts.
func lastBatchPos(t testing.TB, data []byte) int {
	t.Helper()
	pos, last := 0, -1
	for pos+12 <= len(data) {
		n := int(binary.BigEndian.Uint32(data[pos+8:]))
		if n < 49 || pos+12+n > len(data) {
			break
		}
		if data[pos+16] != 2 {
			t.Fatalf("batch at %d has magic %d, want 2", pos, data[pos+16])
		}
		last = pos
		pos += 12 + n
	}
	if last < 0 || pos != len(data) {
		t.Fatalf("segment does not parse as whole RecordBatches (last at %d, stopped at %d of %d)", last, pos, len(data))
	}
	return last
}

// outputMentions polls the broker's output (its pipe is copied
// asynchronously) for a line with subject and one of the words, for up to
// 30 s (a loaded machine's pipe).
func outputMentions(b *Broker, subject string, words ...string) bool {
	deadline := time.Now().Add(30 * time.Second)
	for {
		if mentions(b.Output(), subject, words...) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(pollInterval)
	}
}

// mentions reports whether some line of out contains subject and one of the
// words, case-insensitively.
func mentions(out, subject string, words ...string) bool {
	for line := range strings.Lines(strings.ToLower(out)) {
		if !strings.Contains(line, strings.ToLower(subject)) {
			continue
		}
		for _, w := range words {
			if strings.Contains(line, w) {
				return true
			}
		}
	}
	return false
}

func waitGroupOrFail(t testing.TB, wg *sync.WaitGroup, d time.Duration, what string) {
	t.Helper()
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("%s: not done within %v", what, d)
	}
}

func trunc(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "..."
	}
	return string(b)
}

// TestCleanRestartKeepsState stops the broker cleanly and starts it again:
// topics (with their ids, partition counts and configs) and records survive.
func TestCleanRestartKeepsState(t *testing.T) {
	t.Parallel()
	b := startBroker(t, WithConfig("auto.create.topics.enable", "false"))
	adm := b.Admin(t)
	ctx := testCtx(t, opTimeout)
	topic := topicName(t, "")
	mustCreateTopic(t, adm, topic, 3, map[string]*string{"retention.ms": kadmString("123456789")})
	idBefore := metadataTopic(t, adm, topic).ID
	cl := b.Client(t, kgo.DefaultProduceTopic(topic), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	var want []*kgo.Record
	for i := range 30 {
		want = append(want, &kgo.Record{Partition: int32(i % 3), Key: fmt.Appendf(nil, "k%d", i), Value: fmt.Appendf(nil, "v%d", i)})
	}
	if err := cl.ProduceSync(ctx, want...).FirstErr(); err != nil {
		t.Fatalf("produce: %v", err)
	}
	stopClean(t, b)
	b.Restart()

	adm = b.Admin(t)
	td := metadataTopic(t, adm, topic)
	if len(td.Partitions) != 3 || td.ID != idBefore {
		t.Errorf("after restart: %d partitions, id %v; want 3 and %v", len(td.Partitions), td.ID, idBefore)
	}
	if c := topicConfig(t, adm, topic, "retention.ms"); c.MaybeValue() != "123456789" {
		t.Errorf("after restart retention.ms = %q, want 123456789", c.MaybeValue())
	}
	checkSameRecords(t, want, consumeN(t, b, topic, len(want)))
}

func kadmString(s string) *string { return &s }
