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

// TestMemTruncateAwayALostSync: truncating a file back to where a failed
// sync left its durable bytes drops what that sync lost; what is appended
// and synced after that is new pages and survives a crash. Cut short of
// that point, the lost bytes stay lost and take what follows with them.
func TestMemTruncateAwayALostSync(t *testing.T) {
	for _, c := range []struct {
		cut  int64
		want string
	}{{3, "onefour"}, {5, "one"}} {
		m := store.NewMem()
		m.Arm(store.Fault{Op: store.OpSync, Match: "a", Nth: 2, Err: store.ErrIO})
		f, _ := m.Create("a")
		_ = f.Append([]byte("one"))
		_ = f.Sync()
		_ = f.Append([]byte("two"))
		if err := f.Sync(); !errors.Is(err, store.ErrIO) {
			t.Fatalf("second sync: %v, want EIO", err)
		}
		_ = f.Truncate(c.cut)
		_ = f.Append([]byte("four"))
		if err := f.Sync(); err != nil {
			t.Fatal(err)
		}
		m.Crash()
		if got, _ := m.ReadFile("a"); string(got) != c.want {
			t.Errorf("cut to %d: after crash %q, want %q", c.cut, got, c.want)
		}
	}
}

// TestMemFaults: an armed fault fails the Nth matching operation once;
// a failed sync loses the unsynced bytes at the next crash even when a
// later sync succeeds (fsyncgate), and a failed append writes nothing.
func TestMemFaults(t *testing.T) {
	m := store.NewMem()
	_ = m.MkdirAll("t-0")
	_ = m.MkdirAll("u-0")
	f, _ := m.Create("t-0/a.log")
	g, _ := m.Create("u-0/a.log")
	fs, err := store.ParseFaults("sync t-0/ nth=2; write u-0/ err=ENOSPC")
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range fs {
		m.Arm(x)
	}
	_ = f.Append([]byte("one"))
	if err := f.Sync(); err != nil {
		t.Fatalf("first sync: %v", err)
	}
	_ = f.Append([]byte("two"))
	if err := f.Sync(); !errors.Is(err, store.ErrIO) {
		t.Fatalf("second sync: %v, want EIO", err)
	}
	_ = f.Append([]byte("three"))
	if err := f.Sync(); err != nil {
		t.Fatalf("a sync after the failed one: %v", err)
	}
	if err := g.Append([]byte("x")); !errors.Is(err, store.ErrNoSpace) {
		t.Fatalf("append: %v, want ENOSPC", err)
	}
	if len(m.Faults()) != 0 {
		t.Fatalf("faults still armed after firing: %v", m.Faults())
	}
	m.Crash()
	for name, want := range map[string]string{"t-0/a.log": "one", "u-0/a.log": ""} {
		if got, _ := m.ReadFile(name); string(got) != want {
			t.Fatalf("%s after crash: %q, want %q", name, got, want)
		}
	}
	if _, err := store.ParseFault([]string{"fsync", "x"}); err == nil {
		t.Fatal("unknown op accepted")
	}
}
