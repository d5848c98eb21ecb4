package log_test

import (
	"testing"

	"github.com/gregor-kafka/gregor/core/log"
	"github.com/gregor-kafka/gregor/core/log/logtest"
	"github.com/gregor-kafka/gregor/core/store"
)

func BenchmarkAppend(b *testing.B) {
	l, _, err := log.Open(store.NewMem(), "bench-0", log.DefaultConfig(), -1, 0)
	if err != nil {
		b.Fatal(err)
	}
	batch := logtest.Batch(10, 1)
	b.SetBytes(int64(len(batch)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := l.Append(batch, 0); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRead(b *testing.B) {
	l, _, err := log.Open(store.NewMem(), "bench-0", log.DefaultConfig(), -1, 0)
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < 10000; i++ {
		if _, err := l.Append(logtest.Batch(10, 1), 0); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	off := int64(0)
	for b.Loop() {
		p, err := l.Read(off, 16<<10, l.EndOffset(), true)
		if err != nil || len(p) == 0 {
			b.Fatal(err)
		}
		off = (off + 997) % l.EndOffset()
	}
}
