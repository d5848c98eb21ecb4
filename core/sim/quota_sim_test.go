package sim

import (
	"strings"
	"testing"
)

// TestQuotaThrottling: a producer offering about seven times its
// producer_byte_rate of 1000 B/s is answered with throttle_time_ms, waits
// each throttle out on the virtual clock (KIP-219), and its rate, measured
// by the bytes the log holds, converges to the quota: within 10% over
// every 20 s once the first 10 s window is spent.
func TestQuotaThrottling(t *testing.T) {
	w := New(1)
	value := strings.Repeat("v", 200)
	for _, c := range []string{"broker", "topic t", "quota client-id=p1 producer_byte_rate=1000", "producer p1"} {
		if _, err := w.Exec(c); err != nil {
			t.Fatalf("%s: %v", c, err)
		}
	}
	size := func() int64 { return w.nodes[0].Broker.Topic("t").Partitions[0].Log().Size() }
	var sizes []int64
	var out strings.Builder
	for range 8 { // 10 s each: 25 records of ~270 bytes a second
		o, err := w.Exec("produce p1 t value=" + value + " count=250 interval=40ms")
		if err != nil {
			t.Fatal(err)
		}
		out.WriteString(o)
		sizes = append(sizes, size())
	}
	t.Logf("log sizes every 10 s: %v", sizes)
	if !strings.Contains(out.String(), "throttle_time_ms=") || !strings.Contains(out.String(), "throttled by a quota") {
		t.Fatalf("no throttle in the trace:\n%.2000s", out.String())
	}
	for i := 2; i+2 <= len(sizes)-1; i += 2 {
		rate := float64(sizes[i+2]-sizes[i]) / 20 // bytes a second over 20 s
		if rate < 900 || rate > 1100 {
			t.Errorf("from %d s to %d s the producer got %.0f B/s through a quota of 1000 B/s (log sizes %v)", 10*(i+1), 10*(i+3), rate, sizes)
		}
	}
	if sizes[0] < 10_000 || sizes[0] > 13_000 {
		t.Errorf("after 10 s the log holds %d bytes; want the 10 s window's worth, about 10 kB, and one answer over it", sizes[0])
	}
}

// TestQuotaCommand: the quota command names an entity (<default> for the
// default) and quotas to set or remove; without either, or with a value
// that is no number, it is refused before anything is sent.
func TestQuotaCommand(t *testing.T) {
	w := New(1)
	if _, err := w.Exec("broker"); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"quota producer_byte_rate=5", "quota client-id=x", "quota client-id=x producer_byte_rate=fast"} {
		if _, err := w.Exec(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	ok, err := w.Exec("quota client-id=<default> user=u consumer_byte_rate=2000 producer_byte_rate=remove")
	if err != nil || !strings.Contains(ok, "b0 -> admin  AlterClientQuotas") || strings.Contains(ok, "error") {
		t.Errorf("a valid quota: %v\n%s", err, ok)
	}
	refused, err := w.Exec("quota ip=10.0.0.1 producer_byte_rate=5") // not a quota of an ip
	if err != nil || !strings.Contains(refused, "INVALID_REQUEST") {
		t.Errorf("a byte rate on an ip: %v\n%s", err, refused)
	}
}
