package play

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/gregor-kafka/gregor/core/view"
	"github.com/gregor-kafka/gregor/lessons"
	"github.com/gregor-kafka/gregor/ui"
)

func TestURLRoundTrip(t *testing.T) {
	s := Parse("lesson=segments&step=4&seed=7&actions=4:crash+b0,4:fault+drop+response")
	if s.Err != "" {
		t.Fatal(s.Err)
	}
	if s.Seed != 7 || s.Pos != 4 || s.Actions() != 2 {
		t.Fatalf("parsed seed=%d pos=%d actions=%d", s.Seed, s.Pos, s.Actions())
	}
	if s.Items[4].Cmd != "crash b0" || s.Items[5].Cmd != "fault drop response" {
		t.Fatalf("actions not after step 4: %+v", s.Items[3:7])
	}
	s.Insert("produce p1 orders partition=0 value=a,b")
	q := s.Query(s.Pos)
	again := Parse(q)
	if again.Query(again.Pos) != q || again.Items[4].Cmd != "produce p1 orders partition=0 value=a,b" {
		t.Fatalf("round trip: %q -> %q (items %+v)", q, again.Query(again.Pos), again.Items[3:7])
	}
}

func TestPastEnd(t *testing.T) {
	s := Parse("lesson=segments&step=999")
	if !s.PastEnd || s.Pos != len(s.Items) {
		t.Fatalf("past end: pos=%d of %d, PastEnd=%v", s.Pos, len(s.Items), s.PastEnd)
	}
	if p := s.Page(); len(p.Transcript) != len(s.Items) {
		t.Fatalf("transcript has %d steps, want %d", len(p.Transcript), len(s.Items))
	}
}

// The page's replay prints what lessons.Replay prints: the same commands
// in the same world, and the lines rebuilt from events are the output.
func TestReplayMatchesLessons(t *testing.T) {
	for _, it := range Index("") {
		l, err := lessons.Load(it.Slug)
		if err != nil {
			t.Fatal(err)
		}
		_, outs := l.Replay(-1)
		p := Parse("lesson=" + it.Slug + "&step=999").Page()
		for i, st := range p.Transcript {
			var lines []string
			for _, l := range st.Lines {
				lines = append(lines, l.Text)
			}
			if got := strings.Join(lines, "\n"); got != outs[i] {
				t.Errorf("%s step %d (%s):\n got %q\nwant %q", it.Slug, st.N, st.Command, got, outs[i])
			}
			if st.Diverged != (outs[i] != l.Steps[i].Output) {
				t.Errorf("%s step %d: diverged=%v, but lessons.Replay says %v", it.Slug, st.N, st.Diverged, !st.Diverged)
			}
		}
	}
}

func TestUnknownLesson(t *testing.T) {
	p := Parse("lesson=nope").Page()
	if !strings.Contains(p.Error, "nope") {
		t.Fatalf("error %q", p.Error)
	}
}

func TestBundleFor(t *testing.T) {
	for _, tc := range []struct{ query, want string }{
		{"", Bundle},
		{"lesson=segments&step=3", Bundle},
		{"lesson=replication", ClusterBundle},
		{"lesson=leader-election&step=4&actions=4:crash+b1", ClusterBundle},
		{"playground=1", Bundle},
		{"playground=1&cmds=broker,topic+t", Bundle},
		{"playground=1&cmds=cluster+3,topic+t+rf=3", ClusterBundle},
		{"lesson=segments&actions=2:cluster+3", ClusterBundle}, // it fails (brokers run already); the quorum build says why
		{"playground=1&cmds=clusters", Bundle},
	} {
		if got := BundleFor(tc.query); got != tc.want {
			t.Errorf("BundleFor(%q) = %s, want %s", tc.query, got, tc.want)
		}
	}
}

func BenchmarkPageRender(b *testing.B) {
	for b.Loop() {
		p := Parse("lesson=segments&step=3").Page()
		ui.Lesson(p).Render(context.Background(), io.Discard)
	}
}

func BenchmarkPage(b *testing.B) {
	for b.Loop() {
		Parse("lesson=segments&step=3").Page()
	}
}

// BenchmarkPageCluster replays a step of a three-broker lesson: raft ticks
// and follower fetches make it the slowest kind of step to step to.
func BenchmarkPageCluster(b *testing.B) {
	for b.Loop() {
		Parse("lesson=replication&step=6").Page()
	}
}

// TestPartitionControls: a world of several brokers offers to cut each
// off; a partitioned one offers to heal instead; one broker, neither.
func TestPartitionControls(t *testing.T) {
	has := func(cs []ui.Control, cmd string) bool {
		for _, c := range cs {
			if c.Command == cmd {
				return true
			}
		}
		return false
	}
	three := []view.Broker{{Name: "b0", Up: true}, {Name: "b1", Up: true}, {Name: "b2", Up: true}}
	if cs := controls(view.World{Brokers: three}, "en"); !has(cs, "partition b1") || has(cs, "heal") {
		t.Errorf("whole network: %v", cs)
	}
	if cs := controls(view.World{Brokers: three, Cut: []string{"b1"}}, "en"); has(cs, "partition b1") || !has(cs, "heal") {
		t.Errorf("partitioned: %v", cs)
	}
	if cs := controls(view.World{Brokers: three[:1]}, "en"); has(cs, "partition b0") || has(cs, "heal") {
		t.Errorf("one broker: %v", cs)
	}
}
