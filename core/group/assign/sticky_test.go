package assign

import (
	"testing"
)

func tp(topic string, p int32) TopicPartition { return TopicPartition{topic, p} }

// rejoin returns the members that remain after leaving drops out, each
// owning what a gave it, in generation gen.
func rejoin(members []Member, a Assignment, gen int32, leaving string) []Member {
	var out []Member
	for _, m := range members {
		if m.ID != leaving {
			m.Owned, m.Generation = a[m.ID], gen
			out = append(out, m)
		}
	}
	return out
}

// kept counts the partitions a survivor held before and still holds.
func kept(before, after Assignment, survivors []Member) (kept, held int) {
	owners := after.Owners()
	for _, m := range survivors {
		for _, p := range before[m.ID] {
			held++
			if owners[p] == m.ID {
				kept++
			}
		}
	}
	return kept, held
}

// The lesson "assignors": the seed's group (C1-0, C2-0, C3-0 on two topics
// of 10) under each strategy; then C1-0 leaves. Range and roundrobin
// reshuffle what the survivors had; sticky keeps all of it.
func TestStickyKeepsMoreWhenAMemberLeaves(t *testing.T) {
	topics := map[string]int32{"T1": 10, "T2": 10}
	group := consumers([]string{"T1", "T2"}, "C1-0", "C2-0", "C3-0")
	want := map[string][2]int{ // kept, held by the survivors
		"range":      {8, 12},
		"roundrobin": {6, 13},
		"sticky":     {13, 13},
	}
	got := map[string]int{}
	for _, name := range []string{"range", "roundrobin", "sticky"} {
		a, _ := ByName(name)
		before := a.Assign(group, topics)
		survivors := rejoin(group, before, 1, "C1-0")
		after := a.Assign(survivors, topics)
		checkValid(t, survivors, topics, after, true)
		k, h := kept(before, after, survivors)
		t.Logf("%s: survivors kept %d of %d\nbefore\n%s\nafter\n%s", name, k, h, before, after)
		if [2]int{k, h} != want[name] {
			t.Errorf("%s: survivors kept %d of %d, want %d of %d", name, k, h, want[name][0], want[name][1])
		}
		got[name] = h - k
	}
	if got["sticky"] >= got["range"] || got["sticky"] >= got["roundrobin"] {
		t.Errorf("sticky moved %d, range %d, roundrobin %d", got["sticky"], got["range"], got["roundrobin"])
	}
}

// The example of Kafka's StickyAssignor documentation (KIP-54): three
// consumers, four topics of two partitions; C1 leaves. Round robin would
// move three of the five partitions C0 and C2 keep under sticky.
func TestStickyKafkaDocExample(t *testing.T) {
	topics := map[string]int32{"t0": 2, "t1": 2, "t2": 2, "t3": 2}
	all := []string{"t0", "t1", "t2", "t3"}
	group := []Member{
		{ID: "C0", Topics: all, Generation: 1, Owned: []TopicPartition{tp("t0", 0), tp("t1", 1), tp("t3", 0)}},
		{ID: "C2", Topics: all, Generation: 1, Owned: []TopicPartition{tp("t1", 0), tp("t2", 1)}},
	}
	a := Sticky.Assign(group, topics)
	want := lines(
		"C0: t0[0 1] t1[1] t3[0]",
		"C2: t1[0] t2[0 1] t3[1]")
	if a.String() != want {
		t.Errorf("got\n%s\nwant\n%s", a, want)
	}
	before := Assignment{"C0": group[0].Owned, "C2": group[1].Owned}
	if k, h := kept(before, a, group); k != h {
		t.Errorf("kept %d of %d", k, h)
	}
}

// From scratch sticky is a plain balanced split; a newcomer takes exactly
// its share, one from each of the members above the new quota.
func TestStickyJoin(t *testing.T) {
	topics := map[string]int32{"t": 7}
	first := Sticky.Assign(consumers([]string{"t"}, "a", "b"), topics)
	if want := "a: t[0 1 2 3]\nb: t[4 5 6]"; first.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", first, want)
	}
	group := rejoin(consumers([]string{"t"}, "a", "b"), first, 1, "")
	group = append(group, Member{ID: "c", Topics: []string{"t"}, Generation: -1})
	second := Sticky.Assign(group, topics)
	// Quotas 3, 2, 2: a (holding 4) keeps the ⌈7/3⌉ place.
	if want := "a: t[0 1 2]\nb: t[4 5]\nc: t[3 6]"; second.String() != want {
		t.Errorf("got\n%s\nwant\n%s", second, want)
	}
}

// KIP-341: a member that missed a rebalance rejoins claiming what it had
// an old generation ago; the newer generation's owner keeps the
// partition. Equal claims in the same generation cancel out.
func TestStickyGenerationPrecedence(t *testing.T) {
	topics := map[string]int32{"t": 4}
	sub := []string{"t"}
	for _, tc := range []struct {
		name    string
		members []Member
		want    string
	}{{
		name: "newer generation wins",
		members: []Member{
			{ID: "a", Topics: sub, Generation: 4, Owned: []TopicPartition{tp("t", 0), tp("t", 1)}},
			{ID: "b", Topics: sub, Generation: 5, Owned: []TopicPartition{tp("t", 0), tp("t", 2)}},
		},
		// b keeps 0 and 2; a's stale claim on 0 loses, a keeps 1.
		want: "a: t[1 3]\nb: t[0 2]",
	}, {
		name: "older claim counts when uncontested",
		members: []Member{
			{ID: "a", Topics: sub, Generation: 2, Owned: []TopicPartition{tp("t", 3)}},
			{ID: "b", Topics: sub, Generation: 5, Owned: []TopicPartition{tp("t", 0), tp("t", 1)}},
		},
		want: "a: t[2 3]\nb: t[0 1]",
	}, {
		name: "same generation: nobody keeps it",
		members: []Member{
			{ID: "a", Topics: sub, Generation: 5, Owned: []TopicPartition{tp("t", 1), tp("t", 2)}},
			{ID: "b", Topics: sub, Generation: 5, Owned: []TopicPartition{tp("t", 2), tp("t", 3)}},
		},
		// t-2 is contested, so free: a keeps 1, b keeps 3, the free
		// partitions 0 and 2 fill them up in member order.
		want: "a: t[0 1]\nb: t[2 3]",
	}, {
		name: "unsubscribed and vanished partitions are not claims",
		members: []Member{
			{ID: "a", Topics: sub, Generation: 5, Owned: []TopicPartition{tp("t", 9), tp("x", 0), tp("t", 3)}},
			{ID: "b", Topics: []string{"t"}, Generation: 5, Owned: []TopicPartition{tp("t", 0)}},
		},
		want: "a: t[1 3]\nb: t[0 2]",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			a := Sticky.Assign(tc.members, topics)
			if a.String() != tc.want {
				t.Errorf("got\n%s\nwant\n%s", a, tc.want)
			}
		})
	}
}

// Different subscriptions: balance is the least Σ count² the
// subscriptions allow, reached by passing partitions along chains. Here
// only b can take t1's partitions, so b does, and a and c share t0, each
// keeping what it had.
func TestStickyDifferentSubscriptions(t *testing.T) {
	topics := map[string]int32{"t0": 6, "t1": 2}
	members := []Member{
		{ID: "a", Topics: []string{"t0"}, Generation: 3, Owned: []TopicPartition{tp("t0", 0), tp("t0", 1), tp("t0", 2), tp("t0", 3)}},
		{ID: "b", Topics: []string{"t0", "t1"}, Generation: 3, Owned: []TopicPartition{tp("t0", 4), tp("t0", 5)}},
		{ID: "c", Topics: []string{"t0"}, Generation: -1},
	}
	// Only b can take t1, which pushes b to 4. The least Σ count² for 8
	// partitions is 3+3+2; a giving one to c and b giving one to c moves
	// 2, the fewest (a 3/b 2/c 3 would move three).
	a := Sticky.Assign(members, topics)
	checkValid(t, members, topics, a, true)
	want := "a: t0[0 1 2]\nb: t0[4] t1[0 1]\nc: t0[3 5]"
	if a.String() != want {
		t.Errorf("got\n%s\nwant\n%s", a, want)
	}
}

// KIP-429 step by step: c joins a group where a and b own everything.
// Round one withholds what a and b must give up; they revoke it, rejoin,
// and round two hands it to c.
func TestCooperativeJoin(t *testing.T) {
	topics := map[string]int32{"t": 6}
	sub := []string{"t"}
	group := []Member{
		{ID: "a", Topics: sub, Generation: 1, Owned: []TopicPartition{tp("t", 0), tp("t", 1), tp("t", 2)}},
		{ID: "b", Topics: sub, Generation: 1, Owned: []TopicPartition{tp("t", 3), tp("t", 4), tp("t", 5)}},
		{ID: "c", Topics: sub, Generation: -1},
	}
	target := Sticky.Assign(group, topics)
	if want := "a: t[0 1]\nb: t[3 4]\nc: t[2 5]"; target.String() != want {
		t.Fatalf("target\n%s\nwant\n%s", target, want)
	}
	round1 := CooperativeSticky.Assign(group, topics)
	if want := "a: t[0 1]\nb: t[3 4]\nc: -"; round1.String() != want {
		t.Errorf("round 1\n%s\nwant\n%s", round1, want)
	}
	if got, want := Revoked(group, round1).String(), "a: t[2]\nb: t[5]\nc: -"; got != want {
		t.Errorf("revoked\n%s\nwant\n%s", got, want)
	}
	group = rejoin(group, round1, 2, "")
	round2 := CooperativeSticky.Assign(group, topics)
	if round2.String() != target.String() {
		t.Errorf("round 2\n%s\nwant\n%s", round2, target)
	}
	if got := Revoked(group, round2).String(); got != "a: -\nb: -\nc: -" {
		t.Errorf("round 2 revokes\n%s", got)
	}
}

// A partition claimed by two members is handed to neither until both have
// let go — except to a claimant the target keeps it with.
func TestCooperativeConflictingClaims(t *testing.T) {
	topics := map[string]int32{"t": 2}
	sub := []string{"t"}
	group := []Member{
		{ID: "a", Topics: sub, Generation: 5, Owned: []TopicPartition{tp("t", 0)}},
		{ID: "b", Topics: sub, Generation: 4, Owned: []TopicPartition{tp("t", 0), tp("t", 1)}},
	}
	// a's newer claim on t-0 wins; b keeps t-1; b's stale claim on t-0 is
	// revoked, and a keeps consuming t-0 throughout.
	round := CooperativeSticky.Assign(group, topics)
	if want := "a: t[0]\nb: t[1]"; round.String() != want {
		t.Errorf("got\n%s\nwant\n%s", round, want)
	}
	if got, want := Revoked(group, round).String(), "a: -\nb: t[0]"; got != want {
		t.Errorf("revoked\n%s\nwant\n%s", got, want)
	}
	// a and b both claim all of t in the same generation, so nobody is
	// a previous owner and the target is a fresh split. Each keeps its
	// target partition (it is consuming it already) and c's waits until
	// both have revoked it.
	topics = map[string]int32{"t": 3}
	all := []TopicPartition{tp("t", 0), tp("t", 1), tp("t", 2)}
	group = []Member{
		{ID: "a", Topics: sub, Generation: 5, Owned: all},
		{ID: "b", Topics: sub, Generation: 5, Owned: all},
		{ID: "c", Topics: sub, Generation: -1},
	}
	if got, want := Sticky.Assign(group, topics).String(), "a: t[0]\nb: t[1]\nc: t[2]"; got != want {
		t.Errorf("target\n%s\nwant\n%s", got, want)
	}
	round = CooperativeSticky.Assign(group, topics)
	if want := "a: t[0]\nb: t[1]\nc: -"; round.String() != want {
		t.Errorf("got\n%s\nwant\n%s", round, want)
	}
	if got, want := Revoked(group, round).String(), "a: t[1 2]\nb: t[0 2]\nc: -"; got != want {
		t.Errorf("revoked\n%s\nwant\n%s", got, want)
	}
}
