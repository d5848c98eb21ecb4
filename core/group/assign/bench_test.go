package assign

import (
	"fmt"
	"testing"
)

// benchGroup: members in two halves with different subscriptions (so sticky
// takes the general path), each topic of partitions partitions.
func benchGroup(members, topics, partitions int) ([]Member, map[string]int32) {
	ts := map[string]int32{}
	var all, half []string
	for i := range topics {
		name := fmt.Sprintf("t%03d", i)
		ts[name] = int32(partitions)
		all = append(all, name)
		if i%2 == 0 {
			half = append(half, name)
		}
	}
	ms := make([]Member, members)
	for i := range ms {
		ms[i] = Member{ID: fmt.Sprintf("m%04d", i), Topics: all, Generation: -1}
		if i%2 == 1 {
			ms[i].Topics = half
		}
	}
	return ms, ts
}

func BenchmarkAssign(b *testing.B) {
	for _, size := range []struct{ members, topics, partitions int }{
		{3, 2, 10}, {20, 10, 20}, {100, 20, 50},
	} {
		ms, ts := benchGroup(size.members, size.topics, size.partitions)
		for _, name := range Names() {
			a, _ := ByName(name)
			b.Run(fmt.Sprintf("%s/m=%d/p=%d/fresh", name, size.members, size.topics*size.partitions), func(b *testing.B) {
				for b.Loop() {
					a.Assign(ms, ts)
				}
			})
		}
		// A member leaves a settled group.
		before := Sticky.Assign(ms, ts)
		survivors := rejoin(ms, before, 1, ms[0].ID)
		b.Run(fmt.Sprintf("sticky/m=%d/p=%d/leave", size.members, size.topics*size.partitions), func(b *testing.B) {
			for b.Loop() {
				Sticky.Assign(survivors, ts)
			}
		})
		// Scale-out: one member owned everything, the rest just joined;
		// the balance step passes partitions out one chain at a time.
		grown := rejoin(ms, Sticky.Assign(ms[:1], ts), 1, "")
		b.Run(fmt.Sprintf("sticky/m=%d/p=%d/scale-out", size.members, size.topics*size.partitions), func(b *testing.B) {
			for b.Loop() {
				Sticky.Assign(grown, ts)
			}
		})
	}
}
