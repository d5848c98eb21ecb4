package sim

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/group/assign"
)

func init() {
	commands["member"] = cmdMember
	commands["poll"] = cmdPoll
	commands["leave"] = cmdLeave
	commands["offsets"] = cmdOffsets
	commands["assign"] = cmdAssign
	// commit NAME TOPIC-P=OFFSET... is dispatched from txncmds.go's
	// commit when NAME is a group member (cmdMemberCommit).
}

// cmdMember: member NAME group=G topics=T1,T2 [assignor=range|roundrobin|
// sticky|cooperative-sticky] [session=10s] [rebalance=30s]
// [heartbeat=session/3] [instance=ID] [metadata=5m] starts a consumer in a
// group; metadata is its metadata.max.age.ms (group_triggers.go).
func cmdMember(w *World, c command) error {
	name, err := c.arg(0, "member name")
	if err != nil {
		return err
	}
	if w.clients[name] != nil {
		return fmt.Errorf("member: %s already exists", name)
	}
	to, err := w.firstBroker(c)
	if err != nil {
		return err
	}
	g := c.kv["group"]
	if g == "" {
		return fmt.Errorf("member: give group=G")
	}
	topics, err := c.topics()
	if err != nil {
		return err
	}
	strategy := c.kv["assignor"]
	if strategy == "" {
		strategy = "range" // partition.assignment.strategy's first default
	}
	a, ok := assign.ByName(strategy)
	if !ok {
		return fmt.Errorf("member: assignor must be one of %s", strings.Join(assign.Names(), ", "))
	}
	ms := map[string]int64{"session": 10000, "rebalance": 30000, "metadata": metadataMaxAge}
	for _, k := range []string{"session", "rebalance", "heartbeat", "metadata"} {
		if v, ok := c.kv[k]; ok {
			if ms[k], err = duration(v); err != nil {
				return err
			}
		}
	}
	if _, ok := ms["heartbeat"]; !ok {
		ms["heartbeat"] = ms["session"] / 3 // heartbeat.interval.ms: a third of the session, as Kafka advises
	}
	if ms["heartbeat"] <= 0 || ms["heartbeat"] >= ms["session"] {
		return fmt.Errorf("member: heartbeat must be shorter than session")
	}
	if ms["metadata"] <= 0 {
		return fmt.Errorf("member: metadata must be longer than 0")
	}
	m := newMember(w, name, to, g, topics, a, c.kv["instance"], ms["session"], ms["rebalance"], ms["heartbeat"])
	m.metadataMaxAgeMs = ms["metadata"]
	w.clients[name] = m
	return nil
}

// topics reads a group command's topics=T1,T2 option.
func (c command) topics() ([]string, error) {
	var topics []string
	for _, t := range strings.Split(c.kv["topics"], ",") {
		if t != "" {
			topics = append(topics, t)
		}
	}
	if len(topics) == 0 {
		return nil, fmt.Errorf("%s: give topics=T1,T2", c.name)
	}
	return topics, nil
}

func (w *World) groupMember(c command) (*member, error) {
	name, err := c.arg(0, "member name")
	if err != nil {
		return nil, err
	}
	m, ok := w.clients[name].(*member)
	if !ok {
		return nil, fmt.Errorf("%s: no group member %q", c.name, name)
	}
	return m, nil
}

// cmdMemberCommit: commit MEMBER [TOPIC-P=OFFSET ...] commits the given
// offsets, or every position the member has (commitSync()).
func cmdMemberCommit(w *World, c command) error {
	m, err := w.groupMember(c)
	if err != nil {
		return err
	}
	offsets := map[assign.TopicPartition]int64{}
	for _, k := range c.keys {
		topic, part, err := splitTP(k)
		if err != nil {
			return err
		}
		n, err := c.int(k, 0)
		if err != nil {
			return err
		}
		offsets[assign.TopicPartition{Topic: topic, Partition: part}] = n
	}
	if len(offsets) == 0 {
		for _, tp := range m.owned {
			if pos, ok := m.positions[tp]; ok {
				offsets[tp] = pos
			}
		}
	}
	if len(offsets) == 0 {
		return fmt.Errorf("commit: %s has no positions: give TOPIC-P=OFFSET or poll first", m.name)
	}
	return m.commit(w, offsets)
}

// cmdPoll: poll MEMBER reads once from each partition the member owns.
func cmdPoll(w *World, c command) error {
	m, err := w.groupMember(c)
	if err != nil {
		return err
	}
	return m.poll(w)
}

// cmdLeave: leave MEMBER closes the consumer (LeaveGroup, unless static).
func cmdLeave(w *World, c command) error {
	m, err := w.groupMember(c)
	if err != nil {
		return err
	}
	return m.leave(w)
}

// cmdOffsets: offsets GROUP asks for every offset the group committed
// (OffsetFetch with no topics, as kafka-consumer-groups.sh --describe).
func cmdOffsets(w *World, c command) error {
	g, err := c.arg(0, "group")
	if err != nil {
		return err
	}
	to, err := w.firstBroker(c)
	if err != nil {
		return err
	}
	req := kmsg.NewPtrOffsetFetchRequest()
	req.SetVersion(7)
	req.Group = g
	w.adminClient().send(w, to, req, nil)
	return nil
}

// cmdAssign: assign STRATEGY members=C1-0,C2-0 topics=T1:10,T2:10 runs an
// assignor as a pure function and prints the result, counts included:
// the seed's worked examples, with its own consumer names.
func cmdAssign(w *World, c command) error {
	name, err := c.arg(0, "strategy")
	if err != nil {
		return err
	}
	a, ok := assign.ByName(name)
	if !ok {
		return fmt.Errorf("assign: strategy must be one of %s", strings.Join(assign.Names(), ", "))
	}
	topics := map[string]int32{}
	var names []string
	for _, spec := range strings.Split(c.kv["topics"], ",") {
		t, n, ok := strings.Cut(spec, ":")
		count, err := strconv.Atoi(n)
		if !ok || t == "" || err != nil || count <= 0 {
			return fmt.Errorf("assign: topics=T1:10,T2:10 (name:partitions)")
		}
		topics[t] = int32(count)
		names = append(names, t)
	}
	var ms []assign.Member
	for _, id := range strings.Split(c.kv["members"], ",") {
		if id != "" {
			ms = append(ms, assign.Member{ID: id, Topics: names, Generation: -1})
		}
	}
	if len(ms) == 0 {
		return fmt.Errorf("assign: members=C1-0,C2-0")
	}
	result := a.Assign(ms, topics)
	ids := result.Members()
	slices.SortFunc(ids, func(x, y string) int { return strings.Compare(x, y) })
	for _, id := range ids {
		w.notef("assign", "view", "%s %s: %s (%d)", name, id, tpList(result[id]), len(result[id]))
	}
	return nil
}
