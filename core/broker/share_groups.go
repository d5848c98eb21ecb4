package broker

import (
	"slices"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/coordinator"
	"github.com/gregor-kafka/gregor/core/share"
)

// Share groups (KIP-932), the membership and admin side; core/share holds
// the state machine, share_fetch.go the records side. Served from their
// own files: ShareGroupHeartbeat v1 and ShareGroupDescribe v1 (v0 was
// Kafka 4.0's early access), DescribeShareGroupOffsets v0-1,
// AlterShareGroupOffsets v0 and DeleteShareGroupOffsets v0 (the offsets
// in share_offsets.go); here ListGroups lists share groups with type
// "share", DeleteGroups deletes them, DescribeGroups answers that they
// are not classic groups.
//
// The share partitions' state is kept by the share coordinator
// (core/coordinator, Shares) and read and written by the partitions' leaders
// through it (share_persist.go). Membership, epochs, assignment and the
// initialized share partitions are written to __consumer_offsets by the
// group coordinator (core/group/share_records.go) and replayed when it
// loads a partition, so after a restart or a coordinator move members go
// on at their epoch and an empty share group is still listed.

// initShare builds the share engine and, on a single broker, the share
// coordinator's state from __share_group_state (in a cluster it is
// loaded with the leadership of its partitions).
func (b *Broker) initShare(now int64) error {
	s := b.cfg.Settings
	b.share = share.New(share.Config{
		Limits: share.Limits{
			LockMs:      s.Int64("group.share.record.lock.duration.ms"),
			MaxLocks:    int(s.Int64("group.share.partition.max.record.locks")),
			MaxDelivery: int16(s.Int64("group.share.delivery.count.limit")),
		},
		SessionTimeoutMs:    int32(s.Int64("group.share.session.timeout.ms")),
		HeartbeatIntervalMs: int32(s.Int64("group.share.heartbeat.interval.ms")),
		Timeouts: func(id string) (int32, int32) {
			return int32(b.groupInt64(id, "share.session.timeout.ms")), int32(b.groupInt64(id, "share.heartbeat.interval.ms"))
		},
		MaxSessions: int(s.Int64("group.share.max.share.sessions")),
		Topics:      coordinatorHost{b},
		Logf:        b.cfg.Logf,
	}, now)
	b.shares, b.shareReads = coordinator.NewShares(coordinatorHost{b}), map[share.Key]bool{}
	return b.shares.Load()
}

// Share is the share-group engine, for views and the simulator.
func (b *Broker) Share() *share.Engine { return b.share }

// shareGroupConflict answers GROUP_ID_NOT_FOUND when a group id is taken
// by a group of another type, as Kafka does.
func (b *Broker) shareGroupConflict(id string) bool {
	return slices.Contains(b.groups.Groups(), id)
}

// shareListed adds the share groups to a ListGroups answer (type
// "share", protocol type "share"), honouring its states and types
// filters; DeleteGroups deletes an empty share group and its state
// (NON_EMPTY_GROUP while it has members); a DescribeGroups answer marks
// share groups as not classic, as Kafka does.
func (b *Broker) shareListed(req kmsg.Request, resp kmsg.Response) {
	switch m := resp.(type) {
	case *kmsg.ListGroupsResponse:
		lr := req.(*kmsg.ListGroupsRequest)
		for _, id := range b.shareGroups() {
			if !b.coordinatesGroup(id) {
				continue
			}
			state := "Empty"
			if g := b.share.Group(id); g != nil {
				state = g.State()
			}
			if len(lr.StatesFilter) > 0 && !slices.ContainsFunc(lr.StatesFilter, func(s string) bool { return strings.EqualFold(s, state) }) ||
				len(lr.TypesFilter) > 0 && !slices.ContainsFunc(lr.TypesFilter, func(s string) bool { return strings.EqualFold(s, "share") }) {
				continue
			}
			m.Groups = append(m.Groups, kmsg.ListGroupsResponseGroup{Group: id, ProtocolType: "share", GroupState: state, GroupType: "share"})
		}
	case *kmsg.DeleteGroupsResponse:
		for i := range m.Groups {
			if g := &m.Groups[i]; slices.Contains(b.shareGroups(), g.Group) {
				g.ErrorCode = 0
				keys := b.shareKeys(g.Group)
				if !b.share.Forget(g.Group) {
					g.ErrorCode = kerr.NonEmptyGroup.Code
					continue
				}
				b.groups.StoreShare(b.coordinatesGroup)
				// The answer does not wait for the coordinators.
				b.shareGather(coordinator.ShareDelete, keys, nil, func([]coordinator.ShareAnswer) {})
			}
		}
	case *kmsg.DescribeGroupsResponse:
		for i := range m.Groups {
			if g := &m.Groups[i]; slices.Contains(b.shareGroups(), g.Group) {
				g.ErrorCode, g.State = kerr.GroupIDNotFound.Code, "Dead"
				g.ErrorMessage = kmsg.StringPtr("Group " + g.Group + " is not a classic group.")
			}
		}
	}
}
