package store_test

import (
	"errors"
	"testing"

	"github.com/gregor-kafka/gregor/core/store"
)

// TestMemFull: past the budget appends and WriteFile fail with ENOSPC and
// change nothing; a truncation frees room, Unfill lifts the budget.
func TestMemFull(t *testing.T) {
	m := store.NewMem()
	f, _ := m.Create("a")
	_ = f.Append([]byte("12345"))
	m.Fill(3)
	if err := f.Append([]byte("abc")); err != nil {
		t.Fatalf("append within the room: %v", err)
	}
	if err := f.Append([]byte("x")); !errors.Is(err, store.ErrNoSpace) {
		t.Fatalf("append past the budget: %v, want ENOSPC", err)
	}
	if err := m.WriteFile("cp", []byte("y")); !errors.Is(err, store.ErrNoSpace) {
		t.Fatalf("WriteFile past the budget: %v, want ENOSPC", err)
	}
	if got := m.Size("a"); got != 8 || m.Free() != 0 {
		t.Fatalf("size %d, free %d after refused writes; want 8 and 0", got, m.Free())
	}
	_ = f.Truncate(6)
	if err := f.Append([]byte("zz")); err != nil || m.Free() != 0 {
		t.Fatalf("append after a truncation freed room: %v, free %d", err, m.Free())
	}
	m.Unfill()
	if err := f.Append([]byte("more")); err != nil || m.Free() != -1 {
		t.Fatalf("append after Unfill: %v, free %d", err, m.Free())
	}
}

// TestMemTear: a torn crash keeps the unsynced appends of a file but the
// last, which keeps the prefix the cut chooses; a file whose sync failed
// loses its unsynced bytes all the same; the next crash tears nothing.
func TestMemTear(t *testing.T) {
	m := store.NewMem()
	f, _ := m.Create("a")
	_ = f.Append([]byte("synced|"))
	_ = f.Sync()
	_ = f.Append([]byte("kept|"))
	_ = f.Append([]byte("torn-write"))
	g, _ := m.Create("b")
	_ = g.Append([]byte("durable"))
	_ = g.Sync()
	_ = g.Append([]byte("lost"))
	m.Arm(store.Fault{Op: store.OpSync, Match: "b", Nth: 1, Err: store.ErrIO})
	if err := g.Sync(); err == nil {
		t.Fatal("armed sync succeeded")
	}
	var asked []int
	m.ArmTear(func(n int) int { asked = append(asked, n); return 4 })
	m.Crash()
	for name, want := range map[string]string{"a": "synced|kept|torn", "b": "durable"} {
		if got, _ := m.ReadFile(name); string(got) != want {
			t.Errorf("%s after a torn crash = %q, want %q", name, got, want)
		}
	}
	if len(asked) != 1 || asked[0] != len("torn-write") {
		t.Errorf("cut asked for %v, want [10]", asked)
	}
	f, _ = m.Open("a")
	_ = f.Append([]byte("gone"))
	if m.TearArmed() {
		t.Fatal("tear still armed after a crash")
	}
	m.Crash()
	if got, _ := m.ReadFile("a"); string(got) != "synced|kept|torn" {
		t.Errorf("an untorn crash kept %q", got)
	}
}

// TestMemFlip: a flip changes a synced byte for readers and across a
// crash, and is refused past the synced bytes.
func TestMemFlip(t *testing.T) {
	m := store.NewMem()
	_ = m.MkdirAll("d")
	f, _ := m.Create("d/a")
	_ = f.Append([]byte("abc"))
	_ = f.Sync()
	_ = f.Append([]byte("d"))
	if err := m.Flip("d/a", 3, 1); err == nil {
		t.Fatal("flipped an unsynced byte")
	}
	if err := m.Flip("d/a", 1, 0x01); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4)
	if _, err := f.ReadAt(buf, 0); err != nil || string(buf) != "accd" {
		t.Fatalf("read %q, %v after a flip; want accd", buf, err)
	}
	m.Crash()
	if got, _ := m.ReadFile("d/a"); string(got) != "acc" {
		t.Fatalf("after a crash %q, want acc", got)
	}
	if names, sizes := m.Synced("d/"); len(names) != 1 || sizes[0] != 3 {
		t.Fatalf("Synced = %v %v", names, sizes)
	}
}
