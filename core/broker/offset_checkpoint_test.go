package broker

import (
	"errors"
	"maps"
	"testing"
)

func TestOffsetCheckpointFormat(t *testing.T) {
	offsets := map[topicPartition]int64{{"orders", 1}: 42, {"orders", 0}: 7, {"a.b-c_d", 10}: 0}
	raw := encodeOffsetCheckpoint(offsets)
	// Kafka's OffsetCheckpointFile: version, count, sorted entries.
	if want := "0\n3\na.b-c_d 10 0\norders 0 7\norders 1 42\n"; string(raw) != want {
		t.Fatalf("encoded %q, want %q", raw, want)
	}
	got, err := decodeOffsetCheckpoint(raw)
	if err != nil || !maps.Equal(got, offsets) {
		t.Fatalf("decoded %v, %v", got, err)
	}
	if got, err := decodeOffsetCheckpoint([]byte("0\n0\n")); err != nil || len(got) != 0 {
		t.Fatalf("empty: %v, %v", got, err)
	}
	for _, bad := range []string{
		"", "1\n0\n", "0\n2\nt 0 1\n", "0\n1\nt 0\n", "0\n1\nt -1 3\n", "0\n1\nt 0 -3\n",
		"0\n1\nt x 3\n", "0\n1\nbad/name 0 3\n", "0\n-1\n",
	} {
		if _, err := decodeOffsetCheckpoint([]byte(bad)); !errors.Is(err, errBadCheckpoint) {
			t.Errorf("%q: %v, want errBadCheckpoint", bad, err)
		}
	}
}

// FuzzOffsetCheckpoint: the decoder never panics, and what it accepts
// encodes back to something that decodes to the same offsets.
func FuzzOffsetCheckpoint(f *testing.F) {
	f.Add([]byte("0\n1\nt 0 5\n"))
	f.Add([]byte("0\n0\n"))
	f.Add([]byte("0\n2\na 1 2\nb 3 4"))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := decodeOffsetCheckpoint(data)
		if err != nil {
			return
		}
		again, err := decodeOffsetCheckpoint(encodeOffsetCheckpoint(got))
		if err != nil || !maps.Equal(got, again) {
			t.Fatalf("%q: round trip gave %v, %v; want %v", data, again, err, got)
		}
	})
}
