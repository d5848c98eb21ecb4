package assign

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// checkValid checks the invariants every assignor keeps: every member has a
// sorted entry, partitions go only to subscribers of existing subscribed
// topics, and none twice. With complete, every such partition is assigned.
func checkValid(t *testing.T, members []Member, topics map[string]int32, a Assignment, complete bool) {
	t.Helper()
	subscribed := map[string]map[string]bool{}
	for _, m := range members {
		subscribed[m.ID] = map[string]bool{}
		for _, tp := range m.Topics {
			subscribed[m.ID][tp] = true
		}
		if _, ok := a[m.ID]; !ok {
			t.Fatalf("member %s missing from\n%s", m.ID, a)
		}
	}
	if len(a) != len(subscribed) {
		t.Fatalf("assignment has %d members, group %d:\n%s", len(a), len(subscribed), a)
	}
	seen := map[TopicPartition]string{}
	for _, id := range a.Members() {
		tps := a[id]
		if !slices.IsSortedFunc(tps, compareTP) {
			t.Fatalf("%s: partitions not sorted: %v", id, tps)
		}
		for _, tp := range tps {
			if tp.Partition < 0 || tp.Partition >= topics[tp.Topic] {
				t.Fatalf("%s: assigned %v which does not exist", id, tp)
			}
			if !subscribed[id][tp.Topic] {
				t.Fatalf("%s: assigned %v but does not subscribe to %s", id, tp, tp.Topic)
			}
			if other, dup := seen[tp]; dup {
				t.Fatalf("%v assigned to both %s and %s", tp, other, id)
			}
			seen[tp] = id
		}
	}
	if !complete {
		return
	}
	for topic, n := range topics {
		anyone := false
		for _, m := range members {
			anyone = anyone || subscribed[m.ID][topic]
		}
		for p := int32(0); anyone && p < n; p++ {
			if _, ok := seen[TopicPartition{topic, p}]; !ok {
				t.Fatalf("%s-%d unassigned:\n%s", topic, p, a)
			}
		}
	}
}

// scenario is a random group: topics, members with subscriptions, and
// optionally a previous assignment to be sticky to.
type scenario struct {
	topics  map[string]int32
	members []Member
}

func (s scenario) String() string {
	return fmt.Sprintf("topics=%v members=%+v", s.topics, s.members)
}

// randomScenario draws a group. identical gives every member the same
// subscription.
func randomScenario(r *rand.Rand, maxMembers, maxTopics, maxPartitions int, identical bool) scenario {
	s := scenario{topics: map[string]int32{}}
	nt := 1 + r.IntN(maxTopics)
	var names []string
	for i := range nt {
		name := fmt.Sprintf("t%d", i)
		names = append(names, name)
		s.topics[name] = int32(r.IntN(maxPartitions + 1)) // may be 0
	}
	names = append(names, "gone") // subscribed sometimes, never in metadata
	var common []string
	for _, n := range names {
		if r.IntN(2) == 0 {
			common = append(common, n)
		}
	}
	nm := 1 + r.IntN(maxMembers)
	for i := range nm {
		m := Member{ID: fmt.Sprintf("m%02d", r.IntN(100)), Generation: -1}
		if r.IntN(4) == 0 {
			m.InstanceID = fmt.Sprintf("i%d", i)
		}
		if identical {
			m.Topics = slices.Clone(common)
		} else {
			for _, n := range names {
				if r.IntN(2) == 0 {
					m.Topics = append(m.Topics, n)
				}
			}
		}
		s.members = append(s.members, m)
	}
	// Member ids must be unique for the checks; drop repeats.
	seen := map[string]bool{}
	s.members = slices.DeleteFunc(s.members, func(m Member) bool {
		dup := seen[m.ID]
		seen[m.ID] = true
		return dup
	})
	return s
}

// withHistory gives members a previous assignment: a random (possibly
// stale, conflicting, out-of-range) claim set with random generations.
func withHistory(r *rand.Rand, s scenario, conflicts bool) scenario {
	var all []TopicPartition
	for topic, n := range s.topics {
		for p := int32(0); p < n+1; p++ { // n+1: one that no longer exists
			all = append(all, TopicPartition{topic, p})
		}
	}
	SortPartitions(all)
	for _, tp := range all {
		claims := 1
		if conflicts {
			claims = r.IntN(3)
		} else if r.IntN(4) == 0 {
			continue
		}
		for range claims {
			m := &s.members[r.IntN(len(s.members))]
			m.Owned = append(m.Owned, tp)
		}
	}
	for i := range s.members {
		if conflicts {
			s.members[i].Generation = int32(r.IntN(3)) - 1
		} else {
			s.members[i].Generation = 3
		}
	}
	return s
}

func spread(a Assignment) int {
	lo, hi := -1, 0
	for _, tps := range a {
		if lo < 0 || len(tps) < lo {
			lo = len(tps)
		}
		hi = max(hi, len(tps))
	}
	return hi - max(lo, 0)
}

func squares(a Assignment) int {
	s := 0
	for _, tps := range a {
		s += len(tps) * len(tps)
	}
	return s
}

// prevOwners resolves claims the way the invariants in doc.go state it,
// written independently of previousOwners.
func prevOwners(members []Member, topics map[string]int32) map[TopicPartition]string {
	type claim struct {
		gen int32
		ids []string
	}
	best := map[TopicPartition]*claim{}
	for _, m := range members {
		for _, tp := range m.Owned {
			if tp.Partition < 0 || tp.Partition >= topics[tp.Topic] || !slices.Contains(m.Topics, tp.Topic) {
				continue
			}
			c := best[tp]
			switch {
			case c == nil || m.Generation > c.gen:
				best[tp] = &claim{m.Generation, []string{m.ID}}
			case m.Generation == c.gen && !slices.Contains(c.ids, m.ID):
				c.ids = append(c.ids, m.ID)
			}
		}
	}
	out := map[TopicPartition]string{}
	for tp, c := range best {
		if len(c.ids) == 1 {
			out[tp] = c.ids[0]
		}
	}
	return out
}

// moved counts partitions that had a previous owner and now have another.
func moved(prev map[TopicPartition]string, a Assignment) int {
	owners := a.Owners()
	n := 0
	for tp, id := range prev {
		if owners[tp] != id {
			n++
		}
	}
	return n
}

func TestPropertiesAllAssignors(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 2))
	for i := range 3000 {
		identical := i%2 == 0
		s := randomScenario(r, 7, 4, 12, identical)
		if i%3 != 0 {
			s = withHistory(r, s, i%3 == 2)
		}
		for _, name := range Names() {
			a, _ := ByName(name)
			got := a.Assign(s.members, s.topics)
			t.Run("", func(t *testing.T) {
				checkValid(t, s.members, s.topics, got, name != "cooperative-sticky")
			})
			if t.Failed() {
				t.Fatalf("%s, case %d: %v", name, i, s)
			}
			// Deterministic, and blind to the order members come in.
			shuffled := slices.Clone(s.members)
			r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
			if again := a.Assign(shuffled, s.topics); again.String() != got.String() {
				t.Fatalf("%s, case %d: member order changed the result\n%s\nvs\n%s", name, i, got, again)
			}
			if identical && (name == "roundrobin" || name == "sticky") && spread(got) > 1 {
				t.Fatalf("%s, case %d: identical subscriptions but spread %d:\n%s\n%v", name, i, spread(got), got, s)
			}
		}
		// range: within each topic, counts differ by at most one.
		got := Range.Assign(s.members, s.topics)
		for topic := range s.topics {
			lo, hi := -1, 0
			for _, m := range s.members {
				if !slices.Contains(m.Topics, topic) {
					continue
				}
				c := 0
				for _, tp := range got[m.ID] {
					if tp.Topic == topic {
						c++
					}
				}
				if lo < 0 || c < lo {
					lo = c
				}
				hi = max(hi, c)
			}
			if lo >= 0 && hi-lo > 1 {
				t.Fatalf("range, case %d: topic %s spread %d\n%s", i, topic, hi-lo, got)
			}
		}
	}
}

// bruteForce returns the least Σ count² over every complete assignment of
// the scenario and, among those, the fewest partitions moved from prev.
func bruteForce(s scenario, prev map[TopicPartition]string) (bestSq, bestMoved int) {
	g := newGroup(s.members, s.topics)
	owner := make([]int, len(g.parts))
	count := make([]int, len(g.members))
	bestSq, bestMoved = -1, -1
	var rec func(p int)
	rec = func(p int) {
		if p == len(g.parts) {
			sq, mv := 0, 0
			for _, c := range count {
				sq += c * c
			}
			for q, mi := range owner {
				if id, ok := prev[g.parts[q]]; ok && id != g.members[mi].ID {
					mv++
				}
			}
			if bestSq < 0 || sq < bestSq || sq == bestSq && mv < bestMoved {
				bestSq, bestMoved = sq, mv
			}
			return
		}
		for _, mi := range g.subscribers[g.partTopic[p]] {
			owner[p] = mi
			count[mi]++
			rec(p + 1)
			count[mi]--
		}
	}
	rec(0)
	return bestSq, bestMoved
}

// Sticky is optimal: against an exhaustive search on small groups, its
// balance (Σ count²) is the least possible and, at that balance, it moves
// the fewest partitions away from their previous owners. Conflicting and
// stale claims are included.
func TestStickyOptimalAgainstBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(54, 341))
	general := 0
	for i := range 1500 {
		s := randomScenario(r, 4, 3, 4, i%4 == 0)
		s = withHistory(r, s, i%2 == 1)
		g := newGroup(s.members, s.topics)
		if len(g.parts) > 9 {
			continue
		}
		if len(g.members) > 1 && !g.identicalSubscriptions() {
			general++
		}
		prev := prevOwners(s.members, s.topics)
		got := Sticky.Assign(s.members, s.topics)
		checkValid(t, s.members, s.topics, got, true)
		wantSq, wantMoved := bruteForce(s, prev)
		if squares(got) != wantSq || moved(prev, got) != wantMoved {
			t.Fatalf("case %d: sticky Σc²=%d moved=%d, best Σc²=%d moved=%d\n%s\n%v",
				i, squares(got), moved(prev, got), wantSq, wantMoved, got, s)
		}
	}
	if general < 300 {
		t.Fatalf("only %d cases exercised the general path", general)
	}
}

// With identical subscriptions the general solver must agree with the
// closed-form one on balance and on partitions moved.
func TestStickyGeneralAgreesWithConstrained(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for i := range 1000 {
		s := withHistory(r, randomScenario(r, 8, 4, 16, true), i%2 == 0)
		g := newGroup(s.members, s.topics)
		if len(g.members) == 0 {
			continue
		}
		prev := g.previousOwners()
		fast := g.resultFromOwners(g.stickyConstrained(prev))
		slow := g.resultFromOwners(g.stickyGeneral(prev))
		checkValid(t, s.members, s.topics, slow, true)
		po := prevOwners(s.members, s.topics)
		if squares(fast) != squares(slow) || moved(po, fast) != moved(po, slow) {
			t.Fatalf("case %d: constrained Σc²=%d moved=%d, general Σc²=%d moved=%d\n%v",
				i, squares(fast), moved(po, fast), squares(slow), moved(po, slow), s)
		}
	}
}

// When members leave or join, sticky moves only what balance requires.
// With identical subscriptions the minimum has a closed form: the members
// keep Σ min(held, ⌊n/m⌋) plus one for each of the n%m ⌈n/m⌉ places that a
// member holding more than ⌊n/m⌋ can fill; everything else they held must
// move. The previous assignment is sticky's own (so a departure moves
// nothing, a newcomer takes only its share) or range's (unbalanced, as
// after switching strategies). Heterogeneous groups are checked against
// the brute force below and in TestStickyOptimalAgainstBruteForce.
func TestStickyMembershipChange(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 54))
	for _, change := range []string{"leave", "join", "leave+join", "range→sticky"} {
		totalMoved, totalHeld := 0, 0
		for i := range 1000 {
			s := randomScenario(r, 9, 4, 20, true)
			if len(s.members) < 2 {
				continue
			}
			prior := Sticky
			if change == "range→sticky" {
				prior = Range
			}
			before := prior.Assign(s.members, s.topics)
			var now []Member
			gone := -1
			if change == "leave" || change == "leave+join" {
				gone = r.IntN(len(s.members))
			}
			for j, m := range s.members {
				if j != gone {
					m.Owned, m.Generation = before[m.ID], 1
					now = append(now, m)
				}
			}
			if change == "join" || change == "leave+join" {
				now = append(now, Member{ID: "new", Topics: s.members[0].Topics, Generation: -1})
			}
			after := Sticky.Assign(now, s.topics)
			checkValid(t, now, s.topics, after, true)
			if spread(after) > 1 {
				t.Fatalf("%s, case %d: spread %d", change, i, spread(after))
			}
			n, m := 0, len(now)
			for _, tps := range before {
				n += len(tps)
			}
			floor, extra := n/m, n%m
			keep, held := 0, 0
			for _, h := range slices.SortedFunc(slices.Values(now), func(a, b Member) int { return len(b.Owned) - len(a.Owned) }) {
				c := len(h.Owned)
				held += c
				keep += min(c, floor)
				if c > floor && extra > 0 {
					keep++
					extra--
				}
			}
			prev := prevOwners(now, s.topics)
			if got, want := moved(prev, after), held-keep; got != want {
				t.Fatalf("%s, case %d: moved %d of %d held partitions, minimum is %d\nbefore\n%s\nafter\n%s",
					change, i, got, held, want, before, after)
			}
			totalMoved += held - keep
			totalHeld += held
		}
		t.Logf("%-12s members held %5d partitions; sticky moved %4d, the minimum each time", change, totalHeld, totalMoved)
	}
}

// Heterogeneous groups too: when a member leaves, no survivor's partition
// moves unless balance requires it (against the brute force).
func TestStickyMemberLeavesGeneral(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 54))
	checked := 0
	for i := 0; checked < 400 && i < 20000; i++ {
		s := randomScenario(r, 5, 3, 4, false)
		if len(s.members) < 2 {
			continue
		}
		before := Sticky.Assign(s.members, s.topics)
		gone := r.IntN(len(s.members))
		var survivors []Member
		for j, m := range s.members {
			if j != gone {
				m.Owned, m.Generation = before[m.ID], 1
				survivors = append(survivors, m)
			}
		}
		after := Sticky.Assign(survivors, s.topics)
		if g := newGroup(survivors, s.topics); len(g.parts) > 9 {
			continue
		}
		checked++
		prev := prevOwners(survivors, s.topics)
		wantSq, wantMoved := bruteForce(scenario{s.topics, survivors}, prev)
		if squares(after) != wantSq || moved(prev, after) != wantMoved {
			t.Fatalf("case %d: Σc²=%d moved=%d, best Σc²=%d moved=%d", i, squares(after), moved(prev, after), wantSq, wantMoved)
		}
	}
	if checked < 400 {
		t.Fatalf("only %d cases", checked)
	}
}

// Cooperative rebalancing converges in two rounds and never gives a
// partition to a second consumer: round one hands out the target minus
// partitions still owned elsewhere, members revoke what they lost, and
// round two completes the target.
func TestCooperativeTwoRounds(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 29))
	for i := range 2000 {
		s := randomScenario(r, 7, 4, 12, i%2 == 0)
		s = withHistory(r, s, i%3 == 0)
		// Some members are new and own nothing.
		for j := range s.members {
			if r.IntN(3) == 0 {
				s.members[j].Owned = nil
			}
		}
		target := Sticky.Assign(s.members, s.topics)
		round1 := CooperativeSticky.Assign(s.members, s.topics)
		checkValid(t, s.members, s.topics, round1, false)
		claimedBy := map[TopicPartition][]string{}
		for _, m := range s.members {
			for _, tp := range m.Owned {
				claimedBy[tp] = append(claimedBy[tp], m.ID)
			}
		}
		revoked := Revoked(s.members, round1)
		for _, m := range s.members {
			for _, tp := range round1[m.ID] {
				if !slices.Contains(target[m.ID], tp) {
					t.Fatalf("case %d: %s gets %v outside the target", i, m.ID, tp)
				}
				if c := claimedBy[tp]; len(c) > 0 && !slices.Contains(c, m.ID) {
					t.Fatalf("case %d: %s gets %v while %v still own it", i, m.ID, tp, c)
				}
			}
			for _, tp := range target[m.ID] {
				if !slices.Contains(round1[m.ID], tp) {
					// Withheld: every claimant must be revoking it.
					for _, id := range claimedBy[tp] {
						if !slices.Contains(revoked[id], tp) && !slices.Contains(round1[id], tp) {
							t.Fatalf("case %d: %v withheld from %s but %s keeps claiming it", i, tp, m.ID, id)
						}
					}
				}
			}
		}
		// Everyone revokes and rejoins with what round one gave them.
		next := slices.Clone(s.members)
		for j := range next {
			next[j].Owned = round1[next[j].ID]
			next[j].Generation = 7
		}
		round2 := CooperativeSticky.Assign(next, s.topics)
		checkValid(t, next, s.topics, round2, true)
		if want := Sticky.Assign(next, s.topics); round2.String() != want.String() {
			t.Fatalf("case %d: round two is not the target\n%s\nvs\n%s", i, round2, want)
		}
		for _, m := range next {
			for _, tp := range m.Owned {
				if !slices.Contains(round2[m.ID], tp) {
					t.Fatalf("case %d: round two took %v from %s", i, tp, m.ID)
				}
			}
		}
	}
}
