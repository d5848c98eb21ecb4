package store_test

import (
	"errors"
	"testing"

	"github.com/gregor-kafka/gregor/core/store"
	"github.com/gregor-kafka/gregor/core/store/storetest"
)

func TestMemConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Storage { return store.NewMem() })
}

func TestMemCrashDropsUnsynced(t *testing.T) {
	m := store.NewMem()
	f, err := m.Create("a")
	if err != nil {
		t.Fatal(err)
	}
	_ = f.Append([]byte("durable"))
	_ = f.Sync()
	_ = f.Append([]byte(" lost"))
	if got := m.Unsynced("a"); got != 5 {
		t.Fatalf("Unsynced = %d, want 5", got)
	}
	if err := m.WriteFile("cp", []byte("checkpoint")); err != nil {
		t.Fatal(err)
	}
	g, _ := m.Create("never-synced")
	_ = g.Append([]byte("x"))

	m.Crash()

	if err := f.Append([]byte("x")); !errors.Is(err, store.ErrClosed) {
		t.Fatalf("handle survived crash: %v", err)
	}
	for name, want := range map[string]string{"a": "durable", "cp": "checkpoint", "never-synced": ""} {
		got, err := m.ReadFile(name)
		if err != nil || string(got) != want {
			t.Fatalf("%s after crash = %q, %v; want %q", name, got, err, want)
		}
	}
}

func TestMemTruncateBelowSynced(t *testing.T) {
	m := store.NewMem()
	f, _ := m.Create("a")
	_ = f.Append([]byte("0123456789"))
	_ = f.Sync()
	_ = f.Truncate(3)
	_ = f.Append([]byte("abc"))
	m.Crash()
	got, _ := m.ReadFile("a")
	if string(got) != "012" {
		t.Fatalf("after crash %q, want %q", got, "012")
	}
}
