package view

import (
	"fmt"
	"maps"
	"slices"

	"github.com/gregor-kafka/gregor/core/broker"
)

// SharePartition is one share partition (KIP-932): the records of one
// topic partition in flight for one share group, from the start offset
// (SPSO) on.
type SharePartition struct {
	Group     string
	Partition string // "jobs-0"
	Broker    string // the leader holding the state
	Start     int64
	Records   []ShareRecord
}

// ShareRecord is one offset of a share partition's window.
type ShareRecord struct {
	Offset int64
	State  string // available, acquired, acknowledged or archived
	Owner  string // the member holding the lock, while acquired
	LockMs int64  // how long the lock has left, while acquired
	Count  int16  // delivery count
}

// Shares lists the share partitions broker b holds, by group, then topic
// id and partition; now dates the locks.
func Shares(name string, b *broker.Broker, now int64) []SharePartition {
	names := map[[16]byte]string{}
	for _, t := range b.Topics() {
		names[t.ID] = t.Name
	}
	e := b.Share()
	var out []SharePartition
	for _, g := range e.Groups() {
		for _, k := range e.Partitions(g) {
			p := e.Partition(k)
			sp := SharePartition{Group: g, Partition: fmt.Sprintf("%s-%d", names[k.TopicID], k.Partition), Broker: name, Start: p.Start}
			for i, r := range p.Records() {
				sr := ShareRecord{Offset: p.Start + int64(i), State: r.State.String(), Owner: r.Owner, Count: r.Count}
				if r.Owner != "" {
					sr.LockMs = r.Until - now
				}
				sp.Records = append(sp.Records, sr)
			}
			out = append(out, sp)
		}
	}
	return out
}

// ShareGroup is one share group (KIP-932) as its coordinator holds it:
// its state, epoch and members with what each is assigned.
type ShareGroup struct {
	ID      string
	State   string // "Empty" or "Stable"
	Epoch   int32
	Members []ShareMember
}

// ShareMember is one member of a share group.
type ShareMember struct {
	ID, Client, Host string
	// Assigned is its partitions, "jobs-0", in topic and partition
	// order.
	Assigned []string
}

// ShareGroupsUpTo is the first n share groups b holds that keep lets
// through (nil keeps every one), in id order.
func ShareGroupsUpTo(b *broker.Broker, n int, keep func(id string) bool) []ShareGroup {
	e := b.Share()
	var out []ShareGroup
	for _, id := range e.Groups() {
		if len(out) == n {
			break
		}
		if keep != nil && !keep(id) {
			continue
		}
		g := e.Group(id)
		if g == nil {
			out = append(out, ShareGroup{ID: id, State: "Empty"})
			continue
		}
		sg := ShareGroup{ID: id, State: g.State(), Epoch: g.Epoch}
		for _, m := range g.Members() {
			sm := ShareMember{ID: m.ID, Client: m.ClientID, Host: m.ClientHost}
			for _, t := range slices.Sorted(maps.Keys(m.Assigned)) {
				for _, p := range slices.Sorted(slices.Values(m.Assigned[t])) {
					sm.Assigned = append(sm.Assigned, fmt.Sprintf("%s-%d", t, p))
				}
			}
			sg.Members = append(sg.Members, sm)
		}
		out = append(out, sg)
	}
	return out
}
