package e2e

import (
	"bytes"
	"fmt"
	"sync"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
)

// TestZeroCopyFetch (issue 23): on a plaintext listener the broker sends
// fetched batches from the segment files with sendfile. Two consumers
// reading one partition of several segments at once each get every
// record byte for byte, a read_committed consumer sees none of the
// aborted transactions' records, and gregor_fetch_sendfile_bytes_total
// grew by every record byte fetched from the topic
// (gregor_topic_bytes_out_total).
func TestZeroCopyFetch(t *testing.T) {
	t.Parallel()
	b := startBroker(t)
	topic := topicName(t, "")
	segment := "262144"
	mustCreateTopic(t, b.Admin(t), topic, 1, map[string]*string{"segment.bytes": &segment})
	ctx := testCtx(t, 4*opTimeout)

	value := func(kind string, i int) []byte {
		return append(fmt.Appendf(nil, "%s-%05d:", kind, i), bytes.Repeat([]byte{byte('a' + i%26)}, 1000)...)
	}
	txn := b.Client(t, kgo.DefaultProduceTopic(topic), kgo.TransactionalID(topicName(t, "txn")))
	var all, committed [][]byte
	for round := range 12 {
		if err := txn.BeginTransaction(); err != nil {
			t.Fatal(err)
		}
		commit := round%3 != 1
		kind := "committed"
		if !commit {
			kind = "aborted"
		}
		var rs []*kgo.Record
		for i := range 100 {
			v := value(kind, round*100+i)
			rs = append(rs, &kgo.Record{Value: v})
			all = append(all, v)
			if commit {
				committed = append(committed, v)
			}
		}
		if err := txn.ProduceSync(ctx, rs...).FirstErr(); err != nil {
			t.Fatal(err)
		}
		if err := txn.EndTransaction(ctx, kgo.TransactionEndTry(commit)); err != nil {
			t.Fatal(err)
		}
	}
	sentBefore, outBefore := scrapeSendfile(t, b, topic)

	var wg sync.WaitGroup
	got := make([][][]byte, 2)
	for c := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cl := b.Client(t, kgo.ConsumeTopics(topic), kgo.FetchIsolationLevel(kgo.ReadUncommitted()),
				kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchMaxPartitionBytes(64<<10))
			for len(got[c]) < len(all) && ctx.Err() == nil {
				cl.PollFetches(ctx).EachRecord(func(r *kgo.Record) { got[c] = append(got[c], r.Value) })
			}
		}()
	}
	wg.Wait()
	for c, g := range got {
		if len(g) != len(all) {
			t.Fatalf("consumer %d read %d records of %d", c, len(g), len(all))
		}
		for i := range g {
			if !bytes.Equal(g[i], all[i]) {
				t.Fatalf("consumer %d: record %d is %.20q..., want %.20q...", c, i, g[i], all[i])
			}
		}
	}

	read := readAll(t, b, topic, 1, true)
	if len(read) != len(committed) {
		t.Fatalf("read_committed read %d records, want the %d committed", len(read), len(committed))
	}
	for i := range read {
		if read[i] != string(committed[i]) {
			t.Fatalf("read_committed record %d is %.20q..., want %.20q...", i, read[i], committed[i])
		}
	}
	sent, out := scrapeSendfile(t, b, topic)
	if sent -= sentBefore; out-outBefore <= 0 || sent < out-outBefore {
		t.Fatalf("gregor_fetch_sendfile_bytes_total grew by %v, the topic's bytes out by %v", sent, out-outBefore)
	}
}

// scrapeSendfile reads the bytes sent with sendfile and those fetched
// from topic.
func scrapeSendfile(t *testing.T, b *Broker, topic string) (sent, out float64) {
	t.Helper()
	fams, err := scrapeMetrics(b)
	if err != nil {
		t.Fatal(err)
	}
	return sumOf(fams, "gregor_fetch_sendfile_bytes_total", "", ""), sumOf(fams, "gregor_topic_bytes_out_total", "topic", topic)
}
