package assign

import (
	"cmp"
	"fmt"
	"slices"
)

// stickyAssignor is Kafka's StickyAssignor ("sticky", KIP-54) with the
// generation fix of KIP-341: the assignment is balanced first, and among
// the balanced assignments it is the one that moves the fewest partitions
// away from their previous owners.
//
// "Balanced" means the sum of the squares of the members' partition counts
// is as small as the subscriptions allow. With identical subscriptions that
// is exactly "counts differ by at most one"; with different subscriptions
// it is the natural generalisation (no partition can be passed along a
// chain of eligible members from a member with c partitions to one with
// c-2 or fewer).
type stickyAssignor struct{}

func (stickyAssignor) Name() string { return "sticky" }

func (stickyAssignor) Assign(members []Member, topics map[string]int32) Assignment {
	g := newGroup(members, topics)
	return g.resultFromOwners(g.sticky())
}

// sticky returns the owner (member index) of every partition.
func (g *group) sticky() []int {
	prev := g.previousOwners()
	if len(g.members) == 0 {
		return prev
	}
	if g.identicalSubscriptions() {
		return g.stickyConstrained(prev)
	}
	return g.stickyGeneral(prev)
}

// previousOwners resolves the members' Owned claims into at most one
// previous owner per partition (-1 for none). A claim counts only if the
// partition still exists and the member still subscribes to its topic.
// Between conflicting claims the higher generation wins (KIP-341); two
// claims in the same, highest generation cancel each other, so that
// partition has no previous owner (as Kafka does).
func (g *group) previousOwners() []int {
	owner := make([]int, len(g.parts))
	gen := make([]int32, len(g.parts))
	clash := make([]bool, len(g.parts))
	for p := range owner {
		owner[p] = -1
	}
	for mi, m := range g.members {
		for _, tp := range m.Owned {
			p := g.index(tp)
			if p < 0 || !g.subscribed(mi, g.partTopic[p]) || owner[p] == mi {
				continue
			}
			switch {
			case owner[p] < 0 && !clash[p], m.Generation > gen[p]:
				owner[p], gen[p], clash[p] = mi, m.Generation, false
			case m.Generation == gen[p]:
				clash[p] = true
			}
		}
	}
	for p := range owner {
		if clash[p] {
			owner[p] = -1
		}
	}
	return owner
}

// identicalSubscriptions reports whether every member may own every
// partition.
func (g *group) identicalSubscriptions() bool {
	for _, s := range g.subs[1:] {
		if !slices.Equal(s, g.subs[0]) {
			return false
		}
	}
	return true
}

// stickyConstrained is the exact answer when every member may own every
// partition (Kafka's constrainedAssign does the same): of n partitions and
// m members, n%m members get ⌈n/m⌉ and the rest ⌊n/m⌋; the ⌈n/m⌉ places go
// first to members that already held that many, so the number kept,
// Σ min(held, quota), is the largest possible.
func (g *group) stickyConstrained(prev []int) []int {
	n, m := len(g.parts), len(g.members)
	floor, extra := n/m, n%m

	held := make([][]int, m)
	for p, mi := range prev {
		if mi >= 0 {
			held[mi] = append(held[mi], p)
		}
	}
	byHeld := make([]int, m)
	for i := range byHeld {
		byHeld[i] = i
	}
	slices.SortStableFunc(byHeld, func(a, b int) int { return cmp.Compare(len(held[b]), len(held[a])) })
	quota := make([]int, m)
	for _, mi := range byHeld {
		quota[mi] = floor
		if extra > 0 && len(held[mi]) > floor {
			quota[mi]++
			extra--
		}
	}
	// Extra places nobody held enough for go to the first members, so that
	// a fresh group is split like range splits one topic.
	for mi := range quota {
		if extra > 0 && quota[mi] == floor {
			quota[mi]++
			extra--
		}
	}

	owner := make([]int, n)
	count := make([]int, m)
	for p := range owner {
		owner[p] = -1
	}
	for mi, ps := range held {
		for _, p := range ps[:min(len(ps), quota[mi])] {
			owner[p] = mi
			count[mi]++
		}
	}
	var pool []int
	for p, mi := range owner {
		if mi < 0 {
			pool = append(pool, p)
		}
	}
	for mi := range count {
		for count[mi] < quota[mi] {
			owner[pool[0]] = mi
			pool = pool[1:]
			count[mi]++
		}
	}
	if len(pool) != 0 {
		panic(fmt.Sprintf("assign: %d partitions left over, quotas %v", len(pool), quota))
	}
	return owner
}

// stickyGeneral handles members with different subscriptions. It is a
// min-cost flow solved in three steps on the member graph:
//
//  1. Every partition keeps its previous owner; the rest go, fewest
//     eligible members first, to the eligible member with fewest
//     partitions.
//  2. Balance: while some member u can pass a partition along a chain of
//     eligible members to a member v with count(v) <= count(u)-2, do so
//     along the shortest such chain. Each step lowers Σ count², and when
//     none is left Σ count² is minimal (a convex-cost flow has no
//     negative cycle).
//  3. Stickiness: while a cycle of moves that keeps Σ count² (a pure
//     rotation, or a chain from u to a member with one partition fewer)
//     returns more partitions to their previous owners than it takes away,
//     apply it (Bellman–Ford negative-cycle cancelling). When none is
//     left, the number of partitions moved is minimal among the balanced
//     assignments.
func (g *group) stickyGeneral(prev []int) []int {
	owner := slices.Clone(prev)
	count := make([]int, len(g.members))
	var free []int
	for p, mi := range owner {
		if mi >= 0 {
			count[mi]++
		} else {
			free = append(free, p)
		}
	}
	slices.SortStableFunc(free, func(a, b int) int {
		return cmp.Compare(len(g.subscribers[g.partTopic[a]]), len(g.subscribers[g.partTopic[b]]))
	})
	for _, p := range free {
		best := -1
		for _, mi := range g.subscribers[g.partTopic[p]] {
			if best < 0 || count[mi] < count[best] {
				best = mi
			}
		}
		owner[p] = best
		count[best]++
	}

	s := newSolver(g, prev, owner, count)
	for s.balanceStep() {
	}
	for s.stickyStep() {
	}
	return owner
}

// solver holds the state of stickyGeneral's improvement loops.
type solver struct {
	g     *group
	prev  []int
	owner []int
	count []int

	// For the balance step: which topics each member subscribes to and
	// holds partitions of, as bitsets over topic indexes, so that "u holds
	// something v may own" costs a few word operations.
	subBits  [][]uint64
	heldBits [][]uint64
	held     [][]int32 // member → topic → partitions held

	// edge[u][v] is the partition u would best pass to v (-1: none),
	// cost[u][v] what moving it does to the number of moved partitions:
	// +1 if u previously owned it, -1 if v did, else 0.
	edge [][]int
	cost [][]int
}

func newSolver(g *group, prev, owner, count []int) *solver {
	s := &solver{g: g, prev: prev, owner: owner, count: count}
	words := (len(g.topics) + 63) / 64
	m := len(g.members)
	s.subBits, s.heldBits, s.held = make([][]uint64, m), make([][]uint64, m), make([][]int32, m)
	for mi := range m {
		s.subBits[mi], s.heldBits[mi] = make([]uint64, words), make([]uint64, words)
		s.held[mi] = make([]int32, len(g.topics))
		for _, t := range g.subs[mi] {
			ti := g.topicIndex[t]
			s.subBits[mi][ti/64] |= 1 << (ti % 64)
		}
	}
	for p, mi := range owner {
		ti := g.partTopic[p]
		s.held[mi][ti]++
		s.heldBits[mi][ti/64] |= 1 << (ti % 64)
	}
	return s
}

// canPass reports whether u holds a partition v may own.
func (s *solver) canPass(u, v int) bool {
	if u == v {
		return false
	}
	for w, bits := range s.heldBits[u] {
		if bits&s.subBits[v][w] != 0 {
			return true
		}
	}
	return false
}

// moveCost is the change in moved partitions when p goes from u to v.
func (s *solver) moveCost(p, u, v int) int {
	switch s.prev[p] {
	case u:
		return 1
	case v:
		return -1
	}
	return 0
}

// edges rebuilds edge and cost from the current owners.
func (s *solver) edges() {
	m := len(s.g.members)
	if s.edge == nil {
		s.edge, s.cost = make([][]int, m), make([][]int, m)
		for u := range m {
			s.edge[u], s.cost[u] = make([]int, m), make([]int, m)
		}
	}
	for u := range m {
		for v := range m {
			s.edge[u][v] = -1
		}
	}
	for p, u := range s.owner {
		for _, v := range s.g.subscribers[s.g.partTopic[p]] {
			if v == u {
				continue
			}
			// Ties go to the later partition, so members keep their first
			// partitions, as in stickyConstrained.
			if c := s.moveCost(p, u, v); s.edge[u][v] < 0 || c <= s.cost[u][v] {
				s.edge[u][v], s.cost[u][v] = p, c
			}
		}
	}
}

// pick returns the partition u would best pass to v: one v owned before,
// else one u did not, else any; ties go to the later partition. -1 if u
// holds nothing v may own.
func (s *solver) pick(u, v int) int {
	best, bestCost := -1, 2
	for p, o := range s.owner {
		if o != u || !s.g.subscribed(v, s.g.partTopic[p]) {
			continue
		}
		if c := s.moveCost(p, u, v); c <= bestCost {
			best, bestCost = p, c
		}
	}
	return best
}

// move passes partition p from u to v.
func (s *solver) move(p, u, v int) {
	if p < 0 || s.owner[p] != u || !s.g.subscribed(v, s.g.partTopic[p]) {
		panic(fmt.Sprintf("assign: move %d→%d of partition %d, owners %v", u, v, p, s.owner))
	}
	s.owner[p] = v
	s.count[u]--
	s.count[v]++
	ti := s.g.partTopic[p]
	if s.held[u][ti]--; s.held[u][ti] == 0 {
		s.heldBits[u][ti/64] &^= 1 << (ti % 64)
	}
	s.held[v][ti]++
	s.heldBits[v][ti/64] |= 1 << (ti % 64)
}

// balanceStep applies one chain that lowers Σ count², and reports whether
// it found one.
func (s *solver) balanceStep() bool {
	m := len(s.g.members)
	lowest := slices.Min(s.count)
	sources := make([]int, m)
	for i := range sources {
		sources[i] = i
	}
	slices.SortStableFunc(sources, func(a, b int) int { return cmp.Compare(s.count[b], s.count[a]) })
	from := make([]int, m)
	for _, u := range sources {
		if s.count[u]-lowest < 2 {
			return false
		}
		// Breadth-first over members reachable from u; the first target
		// found is on a shortest chain.
		for i := range from {
			from[i] = -2
		}
		from[u] = -1
		queue := []int{u}
		for len(queue) > 0 {
			x := queue[0]
			queue = queue[1:]
			if s.count[x] <= s.count[u]-2 {
				// Pass from the far end first: every hop's giver still
				// holds what it had when the chain was found.
				for y := x; from[y] >= 0; y = from[y] {
					s.move(s.pick(from[y], y), from[y], y)
				}
				return true
			}
			for y := range m {
				if from[y] == -2 && s.canPass(x, y) {
					from[y] = x
					queue = append(queue, y)
				}
			}
		}
	}
	return false
}

// stickyStep cancels one negative cycle in the member graph, and reports
// whether it found one. Besides the moves of edge, a member v may "hand
// back" to a member u with count(u) = count(v)+1 at no cost: that closes a
// chain u→…→v which leaves the two counts swapped and Σ count² unchanged.
func (s *solver) stickyStep() bool {
	s.edges()
	m := len(s.g.members)
	const virtual = -2 // pred edge kind for hand-backs
	weight := func(x, y int) (int, bool, bool) {
		w, ok, virt := 0, false, false
		if s.edge[x][y] >= 0 {
			w, ok = s.cost[x][y], true
		}
		if x != y && s.count[y] == s.count[x]+1 && (!ok || w > 0) {
			w, ok, virt = 0, true, true
		}
		return w, ok, virt
	}
	dist := make([]int, m)
	pred := make([]int, m)
	kind := make([]int, m)
	for i := range pred {
		pred[i] = -1
	}
	last := -1
	for pass := 0; pass <= m; pass++ {
		last = -1
		for x := range m {
			for y := range m {
				w, ok, virt := weight(x, y)
				if ok && dist[x]+w < dist[y] {
					dist[y] = dist[x] + w
					pred[y] = x
					kind[y] = 0
					if virt {
						kind[y] = virtual
					}
					last = y
				}
			}
		}
		if last < 0 {
			return false
		}
	}
	// last was relaxed in pass m+1, so a negative cycle lies on its
	// predecessor path; walking m steps back lands on it.
	y := last
	for range m {
		if y = pred[y]; y < 0 {
			return false // cannot happen; stop rather than loop
		}
	}
	var cycle []int // members on the cycle; pred[x]→x is the edge into x
	total := 0
	for x := y; ; {
		cycle = append(cycle, x)
		if kind[x] != virtual {
			total += s.cost[pred[x]][x]
		}
		if x = pred[x]; x == y {
			break
		}
	}
	if total >= 0 {
		return false // cannot happen; stop rather than loop
	}
	var moves [][3]int
	for _, x := range cycle {
		if kind[x] != virtual {
			moves = append(moves, [3]int{s.edge[pred[x]][x], pred[x], x})
		}
	}
	for _, mv := range moves {
		s.move(mv[0], mv[1], mv[2])
	}
	return true
}
