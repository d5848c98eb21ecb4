package bench

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// BenchmarkSoak runs Gregor under abuse for GREGOR_SOAK_DURATION (default
// 60s): 100 idempotent acks=all producers and 100 tailing consumers (200
// clients) work while other connections send garbage frames, announce
// 50 MiB frames and stall after a few bytes, and other clients flood the
// HTTP port with URLs to replay. It reports the broker's peak RSS, the
// longest a producer waited for an ack, and what the abusers got; it fails
// if one acknowledged record is missing from the log afterwards.
func BenchmarkSoak(b *testing.B) {
	only(b, "soak")
	d := 60 * time.Second
	if v := os.Getenv("GREGOR_SOAK_DURATION"); v != "" {
		var err error
		if d, err = time.ParseDuration(v); err != nil {
			b.Fatalf("GREGOR_SOAK_DURATION=%q: %v", v, err)
		}
	}
	const producers, consumers = 100, 100
	garbage, stallers, flooders := 10, 50, 4
	if os.Getenv("GREGOR_SOAK_ABUSE") == "off" { // the baseline to compare with
		garbage, stallers, flooders = 0, 0, 0
	}
	t := startGregor(b, "--max.connections", "2000")
	defer func() {
		if err := t.stop(); err != nil {
			b.Error(err)
		}
	}()
	topic := "soak"
	ctx, cancel := context.WithTimeout(context.Background(), d+2*time.Minute)
	defer cancel()
	if err := createTopic(ctx, t.addr, topic); err != nil {
		b.Fatal(err)
	}
	run, stop := context.WithTimeout(ctx, d)
	defer stop()
	var wg sync.WaitGroup
	var abuse abuseCounts
	for i := range garbage {
		wg.Go(func() { sendGarbage(run, t.addr, uint64(i), &abuse) })
	}
	for range stallers {
		wg.Go(func() { stall(run, t.addr, &abuse) })
	}
	for range flooders {
		wg.Go(func() { floodHTTP(run, t.http, &abuse) })
	}
	acked := make([]*producerLog, producers)
	for i := range producers {
		acked[i] = &producerLog{}
		wg.Go(func() { acked[i].run(run, b, t.addr, topic, i) })
	}
	var consumed atomic.Int64
	for range consumers {
		wg.Go(func() { tailTopic(run, t.addr, topic, &consumed) })
	}
	wg.Wait()

	// Every acknowledged record is in the log.
	want := map[string]bool{}
	var maxGap time.Duration
	for _, p := range acked {
		for _, v := range p.values {
			want[v] = true
		}
		maxGap = max(maxGap, p.maxGap)
	}
	missing := len(want)
	if err := readAll(ctx, t.addr, topic, func(v string) {
		if want[v] {
			want[v] = false
			missing--
		}
	}); err != nil {
		b.Fatalf("reading the log back: %v", err)
	}
	peak := peakRSS(t.pid)
	b.Logf("soak %v: %d records acknowledged to %d producers, %d missing from the log; %d consumed by %d tailing consumers",
		d, len(want), producers, missing, consumed.Load(), consumers)
	b.Logf("longest wait of a producer for an ack: %v; broker peak RSS %.0f MiB", maxGap.Round(time.Millisecond), float64(peak)/(1<<20))
	b.Logf("abuse: %d garbage connections (%d closed by the broker, the others timed out waiting for the rest of their frame), %d stalled connections held, HTTP %v",
		abuse.garbage.Load(), abuse.garbageClosed.Load(), abuse.stalled.Load(), abuse.statuses())
	b.ReportMetric(float64(peak)/(1<<20), "peak-RSS-MiB")
	b.ReportMetric(maxGap.Seconds(), "max-ack-wait-s")
	b.ReportMetric(float64(len(want)), "acked")
	b.ReportMetric(float64(missing), "lost")
	if missing > 0 {
		b.Fatalf("%d acknowledged records are missing from the log", missing)
	}
}

// producerLog is one producer's acknowledged values, and the longest it
// waited for one of its acks.
type producerLog struct {
	mu     sync.Mutex
	values []string
	maxGap time.Duration
}

// run produces about 20 records a second until ctx ends.
func (p *producerLog) run(ctx context.Context, tb testing.TB, addr, topic string, id int) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.DefaultProduceTopic(topic),
		kgo.RequiredAcks(kgo.AllISRAcks()), kgo.ProducerLinger(0), kgo.ProducerBatchCompression(kgo.NoCompression()))
	if err != nil {
		tb.Error(err)
		return
	}
	defer cl.Close()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for seq := 0; ; seq++ {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		v := fmt.Sprintf("p%03d-%07d-", id, seq)
		sent := time.Now()
		err := cl.ProduceSync(ctx, &kgo.Record{Value: append([]byte(v), value(seq)[:200]...)}).FirstErr()
		if err != nil {
			continue // not acknowledged: nothing to check (ctx ended, most likely)
		}
		p.mu.Lock()
		p.values = append(p.values, v)
		p.maxGap = max(p.maxGap, time.Since(sent))
		p.mu.Unlock()
	}
}

// tailTopic consumes new records until ctx ends.
func tailTopic(ctx context.Context, addr, topic string, n *atomic.Int64) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtEnd()))
	if err != nil {
		return
	}
	defer cl.Close()
	for ctx.Err() == nil {
		fs := cl.PollFetches(ctx)
		n.Add(int64(fs.NumRecords()))
	}
}

// readAll reads the topic from the start to its end offsets.
func readAll(ctx context.Context, addr, topic string, each func(v string)) error {
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		return err
	}
	defer cl.Close()
	ends, err := endOffsets(ctx, addr, topic)
	if err != nil {
		return err
	}
	got := map[int32]int64{}
	done := func() bool {
		for p, e := range ends {
			if got[p] < e {
				return false
			}
		}
		return true
	}
	for !done() {
		fs := cl.PollFetches(ctx)
		if err := fs.Err0(); err != nil {
			return err
		}
		fs.EachRecord(func(r *kgo.Record) {
			got[r.Partition] = r.Offset + 1
			if i := strings.IndexByte(string(r.Value[5:]), '-'); i > 0 {
				each(string(r.Value[:5+i+1]))
			}
		})
	}
	return nil
}

type abuseCounts struct {
	garbage, garbageClosed, stalled atomic.Int64
	mu                              sync.Mutex
	http                            map[string]int
}

func (a *abuseCounts) sawHTTP(what string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.http == nil {
		a.http = map[string]int{}
	}
	a.http[what]++
}

func (a *abuseCounts) statuses() map[string]int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.http
}

// sendGarbage opens connection after connection and writes random bytes
// (random size prefixes included) until the broker closes it.
func sendGarbage(ctx context.Context, addr string, seed uint64, a *abuseCounts) {
	r := rand.New(rand.NewPCG(seed, 7))
	buf := make([]byte, 4096)
	for ctx.Err() == nil {
		nc, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			time.Sleep(10 * time.Millisecond)
			continue
		}
		a.garbage.Add(1)
		for i := range buf {
			buf[i] = byte(r.Uint32())
		}
		if r.IntN(2) == 0 { // a plausible size, then garbage
			binary.BigEndian.PutUint32(buf, uint32(r.IntN(4000)))
		}
		nc.SetDeadline(time.Now().Add(2 * time.Second))
		nc.Write(buf)
		_, err = io.Copy(io.Discard, nc)
		if ne, ok := err.(net.Error); !ok || !ne.Timeout() {
			a.garbageClosed.Add(1) // EOF or reset: the broker closed it
		} // else it still waits for the rest of a frame it was announced
		nc.Close()
	}
}

// stall announces a 50 MiB request, sends its first bytes and then
// nothing, holding the connection until ctx ends.
func stall(ctx context.Context, addr string, a *abuseCounts) {
	nc, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return
	}
	defer nc.Close()
	frame := binary.BigEndian.AppendUint32(nil, 50<<20)
	frame = append(frame, 0, 0, 0, 9, 0, 0, 0, 1) // Produce v9, correlation id 1...
	frame = append(frame, make([]byte, 64<<10)...)
	if _, err := nc.Write(frame); err != nil {
		return
	}
	a.stalled.Add(1)
	<-ctx.Done()
}

// floodHTTP asks the web port for pages that cost replays: over the
// budget, and within it.
func floodHTTP(ctx context.Context, addr string, a *abuseCounts) {
	urls := []string{
		"/?playground=1&cmds=cluster+3" + strings.Repeat(",advance+2h", 10),
		"/?playground=1&cmds=cluster+5,topic+t+partitions=50+rf=5" + strings.Repeat(",advance+1m", 50),
		"/?lesson=replica-placement&step=999",
		"/?playground=1&cmds=broker" + strings.Repeat(",produce+p1+t+count=100", 50),
	}
	cl := &http.Client{Timeout: 30 * time.Second}
	for i := 0; ctx.Err() == nil; i++ {
		req, _ := http.NewRequestWithContext(ctx, "GET", "http://"+addr+urls[i%len(urls)], nil)
		resp, err := cl.Do(req)
		if err != nil {
			continue
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		what := strconv.Itoa(resp.StatusCode)
		if bytes.Contains(body, []byte(`<p class="loading">Loading the engine`)) {
			what += " unrendered" // every replay slot was busy
		}
		a.sawHTTP(what)
	}
}

// peakRSS is a process's peak resident memory so far (VmHWM, the
// kernel's own high-water mark), or 0 off Linux.
func peakRSS(pid int) int64 {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

// endOffsets are the topic's partitions' end offsets.
func endOffsets(ctx context.Context, addr, topic string) (map[int32]int64, error) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr))
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	offs, err := kadm.NewClient(cl).ListEndOffsets(ctx, topic)
	if err != nil {
		return nil, err
	}
	ends := map[int32]int64{}
	offs.Each(func(o kadm.ListedOffset) { ends[o.Partition] = o.Offset })
	return ends, nil
}
