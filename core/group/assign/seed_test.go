package assign

import (
	"strings"
	"testing"
)

// The worked examples of seed 004 (consumer groups: "Range strategy",
// "RoundRobin strategy", "StickyAssignor"), reproduced exactly.

func consumers(topics []string, ids ...string) []Member {
	ms := make([]Member, len(ids))
	for i, id := range ids {
		ms[i] = Member{ID: id, Topics: topics, Generation: -1}
	}
	return ms
}

func lines(ls ...string) string { return strings.Join(ls, "\n") }

func TestSeedRange(t *testing.T) {
	for _, tc := range []struct {
		name   string
		topics map[string]int32
		want   string
		counts []int
	}{{
		// "C1-0 将消费 0,1,2,3 分区 / C2-0 将消费 4,5,6 / C3-0 将消费 7,8,9"
		name:   "10 partitions, 3 consumers",
		topics: map[string]int32{"T1": 10},
		want: lines(
			"C1-0: T1[0 1 2 3]",
			"C2-0: T1[4 5 6]",
			"C3-0: T1[7 8 9]"),
		counts: []int{4, 3, 3},
	}, {
		// "C1-0 将消费 0,1,2,3 / C2-0 将消费 4,5,6,7 / C3-0 将消费 8,9,10"
		name:   "11 partitions, 3 consumers",
		topics: map[string]int32{"T1": 11},
		want: lines(
			"C1-0: T1[0 1 2 3]",
			"C2-0: T1[4 5 6 7]",
			"C3-0: T1[8 9 10]"),
		counts: []int{4, 4, 3},
	}, {
		// Two topics of 10: each is split on its own, so C1-0 takes the
		// extra partition of both, "C1-0 就会多消费两个分区".
		name:   "two topics of 10, 3 consumers",
		topics: map[string]int32{"T1": 10, "T2": 10},
		want: lines(
			"C1-0: T1[0 1 2 3] T2[0 1 2 3]",
			"C2-0: T1[4 5 6] T2[4 5 6]",
			"C3-0: T1[7 8 9] T2[7 8 9]"),
		counts: []int{8, 6, 6},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			var subs []string
			for topic := range tc.topics {
				subs = append(subs, topic)
			}
			// Give the members in reverse: range sorts them itself.
			a := Range.Assign(consumers(subs, "C3-0", "C2-0", "C1-0"), tc.topics)
			if got := a.String(); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
			for i, id := range []string{"C1-0", "C2-0", "C3-0"} {
				if a.Count(id) != tc.counts[i] {
					t.Errorf("%s has %d partitions, want %d", id, a.Count(id), tc.counts[i])
				}
			}
			checkValid(t, consumers(subs, "C1-0", "C2-0", "C3-0"), tc.topics, a, true)
		})
	}
}

// The seed's round-robin example sorts the partitions by hash code (the old
// ZooKeeper consumer did) into T1-5, T1-3, T1-0, T1-8, T1-2, T1-1, T1-4,
// T1-7, T1-6, T1-9, and deals them to C1-0, C1-1, C2-0, C2-1.
func TestSeedRoundRobinDeal(t *testing.T) {
	topics := map[string]int32{"T1": 10}
	g := newGroup(consumers([]string{"T1"}, "C2-1", "C1-0", "C2-0", "C1-1"), topics)
	var order []int
	for _, p := range []int32{5, 3, 0, 8, 2, 1, 4, 7, 6, 9} {
		order = append(order, g.index(TopicPartition{"T1", p}))
	}
	dealt := g.deal(order)
	want := map[string][]int32{
		"C1-0": {5, 2, 6}, // "C1-0 将消费 T1-5, T1-2, T1-6分区"
		"C1-1": {3, 1, 9}, // "C1-1 将消费 T1-3, T1-1, T1-9分区"
		"C2-0": {0, 4},    // "C2-0 将消费 T1-0, T1-4分区"
		"C2-1": {8, 7},    // "C2-1 将消费 T1-8, T1-7分区"
	}
	for mi, m := range g.members {
		var got []int32
		for _, p := range dealt[mi] {
			got = append(got, g.parts[p].Partition)
		}
		if !equalInt32(got, want[m.ID]) {
			t.Errorf("%s dealt %v, want %v", m.ID, got, want[m.ID])
		}
	}
}

// Kafka's RoundRobinAssignor deals in topic-then-partition order; the same
// consumers then get every fourth partition.
func TestRoundRobinKafkaOrder(t *testing.T) {
	topics := map[string]int32{"T1": 10}
	ms := consumers([]string{"T1"}, "C2-1", "C1-0", "C2-0", "C1-1")
	a := RoundRobin.Assign(ms, topics)
	want := lines(
		"C1-0: T1[0 4 8]",
		"C1-1: T1[1 5 9]",
		"C2-0: T1[2 6]",
		"C2-1: T1[3 7]")
	if got := a.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	checkValid(t, ms, topics, a, true)
}

// The example in Kafka's RoundRobinAssignor documentation: with different
// subscriptions the deal skips members that do not subscribe, and the
// result is uneven.
func TestRoundRobinUnequalSubscriptions(t *testing.T) {
	topics := map[string]int32{"t0": 1, "t1": 2, "t2": 3}
	ms := []Member{
		{ID: "C0", Topics: []string{"t0"}},
		{ID: "C1", Topics: []string{"t0", "t1"}},
		{ID: "C2", Topics: []string{"t0", "t1", "t2"}},
	}
	a := RoundRobin.Assign(ms, topics)
	want := lines(
		"C0: t0[0]",
		"C1: t1[0]",
		"C2: t1[1] t2[0 1 2]")
	if got := a.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	checkValid(t, ms, topics, a, true)
}

// Static members (KIP-345) sort before dynamic ones, by instance id.
func TestMemberOrderStaticFirst(t *testing.T) {
	topics := map[string]int32{"t": 3}
	ms := []Member{
		{ID: "a", Topics: []string{"t"}},
		{ID: "z", InstanceID: "inst-2", Topics: []string{"t"}},
		{ID: "y", InstanceID: "inst-1", Topics: []string{"t"}},
	}
	want := lines("a: t[2]", "y: t[0]", "z: t[1]")
	if got := Range.Assign(ms, topics).String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestByName(t *testing.T) {
	for _, name := range Names() {
		a, ok := ByName(name)
		if !ok || a.Name() != name {
			t.Errorf("ByName(%q) = %v, %v", name, a, ok)
		}
		if IsCooperative(name) != (name == "cooperative-sticky") {
			t.Errorf("IsCooperative(%q) wrong", name)
		}
	}
	if _, ok := ByName("uniform"); ok {
		t.Error("ByName knows uniform")
	}
}

func TestEmptyInputs(t *testing.T) {
	for _, name := range Names() {
		a, _ := ByName(name)
		if got := a.Assign(nil, map[string]int32{"t": 3}); len(got) != 0 {
			t.Errorf("%s: no members gave %v", name, got)
		}
		ms := consumers([]string{"missing"}, "m1", "m2")
		got := a.Assign(ms, map[string]int32{"t": 3, "zero": 0})
		if got.String() != "m1: -\nm2: -" {
			t.Errorf("%s: unknown topic gave\n%s", name, got)
		}
	}
}

func equalInt32(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
