package sim

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// Two rebalance triggers start in the consumer rather than in the
// coordinator, as in the Java client's ConsumerCoordinator
// (rejoinNeededOrPending):
//
//   - the subscription changed (subscribe(...) with other topics): the
//     member rejoins with its new subscription;
//   - the partition count of a subscribed topic changed: the leader, which
//     remembers the counts it assigned with, refreshes its metadata every
//     metadata.max.age.ms and rejoins when they differ, so that the new
//     partitions get an owner.
//
// Joins, leaves and session timeouts are seen by the coordinator itself
// (core/group).

func init() { commands["subscribe"] = cmdSubscribe }

// cmdSubscribe: subscribe MEMBER topics=T1,T2 changes what a member
// subscribes to; it rejoins with the new subscription.
func cmdSubscribe(w *World, c command) error {
	m, err := w.groupMember(c)
	if err != nil {
		return err
	}
	topics, err := c.topics()
	if err != nil {
		return err
	}
	if m.state >= memberLeft {
		return fmt.Errorf("subscribe: %s is %s", m.name, m.state)
	}
	if slices.Equal(topics, m.topics) {
		return fmt.Errorf("subscribe: %s already subscribes to %s", m.name, strings.Join(topics, ","))
	}
	m.topics = topics
	m.rejoin(w, "subscription changed to "+strings.Join(topics, ","))
	return nil
}

// rememberCounts keeps the partition counts the leader assigned with.
func (m *member) rememberCounts(w *World, counts map[string]int32) {
	m.assignedCounts, m.metadataAt = maps.Clone(counts), w.now
}

// refreshDue reports when the leader refreshes its metadata next; ok is
// false for a member that is not a stable leader.
func (m *member) refreshDue() (int64, bool) {
	if m.state != memberStable || m.leaderID != m.memberID || m.assignedCounts == nil || m.refreshCorr != 0 {
		return 0, false
	}
	return m.metadataAt + m.metadataMaxAgeMs, true
}

// refresh asks for the metadata of the topics the leader assigned.
func (m *member) refresh(w *World) {
	m.metadataAt = w.now
	req := kmsg.NewPtrMetadataRequest()
	req.SetVersion(7)
	for _, t := range slices.Sorted(maps.Keys(m.assignedCounts)) {
		req.Topics = append(req.Topics, kmsg.MetadataRequestTopic{Topic: kmsg.StringPtr(t)})
	}
	m.refreshCorr = m.send(w, m.broker, req, func(*World) { m.refreshCorr = 0 })
}

// onRefresh compares a refreshed partition count with the one assigned
// with, and rejoins when one changed.
func (m *member) onRefresh(w *World, r *kmsg.MetadataResponse) {
	m.refreshCorr = 0
	if m.state != memberStable || m.leaderID != m.memberID {
		return
	}
	var changed []string
	for _, t := range r.Topics {
		if t.ErrorCode != 0 || t.Topic == nil {
			continue
		}
		if was, ok := m.assignedCounts[*t.Topic]; ok && was != int32(len(t.Partitions)) {
			changed = append(changed, fmt.Sprintf("%s %d -> %d partitions", *t.Topic, was, len(t.Partitions)))
		}
	}
	if len(changed) > 0 {
		m.rejoin(w, "metadata changed: "+strings.Join(changed, ", "))
	}
}
