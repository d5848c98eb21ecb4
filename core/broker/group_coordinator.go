package broker

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/coordinator"
	"github.com/gregor-kafka/gregor/core/group"
	"github.com/gregor-kafka/gregor/core/wire"
)

// The group APIs' side of the group coordinator: core/group holds the
// state machine and core/coordinator (Groups) builds it, replays
// __consumer_offsets into it and runs its timers; this file routes the
// group APIs to it and holds answers given after a write that must be
// synced until the next Commit (as Produce does).
//
// Each group API registers from its own file (join_group.go: JoinGroup,
// key 11, and the group it is routed by); the state machine documents
// each.

// initGroups builds the coordinator and, on a single broker where
// __consumer_offsets exists, rebuilds every group from it. In a cluster
// the groups of a partition are loaded when this broker becomes its
// leader (coordinators.go).
func (b *Broker) initGroups(now int64) error {
	b.groups = coordinator.NewGroups(coordinatorHost{b}, b.cfg.Rand, b.share, b.groupInt64, now)
	return b.groups.Load()
}

// Groups is the group coordinator, for views and the simulator.
func (b *Broker) Groups() *group.Coordinator { return b.groups.Coordinator }

// tickGroups runs the coordinator's timers.
func (b *Broker) tickGroups(now int64) {
	b.collectWrites(func() { b.groups.Tick(now) })
}

// handleGroupWrite serves a group API that may write to __consumer_offsets,
// which a single broker creates first if needed.
func handleGroupWrite(b *Broker, r *Request) kmsg.Response {
	if err := b.image.localInternalTopic(OffsetsTopic); err != nil {
		b.cfg.Logf("creating %s: %v", OffsetsTopic, err)
		return wire.ErrorResponse(r.Msg, kerr.CoordinatorNotAvailable.Code)
	}
	return handleGroupRead(b, r)
}

// handleGroupRead hands a request to the coordinator, unless it names a
// group another broker coordinates (NOT_COORDINATOR). Answers, now or
// later, go through groupReply.
func handleGroupRead(b *Broker, r *Request) kmsg.Response {
	if a := handlers[r.Msg.Key()]; a.group != nil {
		if id, ok := a.group(r.Msg); ok && !b.coordinatesGroup(id) {
			return wire.ErrorResponse(r.Msg, kerr.NotCoordinator.Code)
		} else if ok && a.joins && b.share.Group(id) != nil {
			return wire.ErrorResponse(r.Msg, kerr.GroupIDNotFound.Code)
		}
	}
	req := *r
	call := group.Call{
		ClientID:   r.Header.ClientID,
		ClientHost: r.Host,
		Reply:      func(resp kmsg.Response) { b.groupReply(req, resp) },
		MayDescribe: func(topic string) bool {
			return b.allows(&req, check{kmsg.ACLResourceTypeTopic, topic, kmsg.ACLOperationDescribe})
		},
	}
	b.collectWrites(func() {
		if resp := b.groups.Handle(b.now, call, r.Msg); resp != nil {
			b.groupReply(req, resp)
		}
	})
	return nil
}

// groupReply answers once what the step in progress wrote is durable
// (collectWrites). Groups of a many-group answer that another broker
// coordinates are answered NOT_COORDINATOR.
func (b *Broker) groupReply(req Request, resp kmsg.Response) {
	if handlers[resp.Key()].manyGroups {
		b.groups.MarkForeign(resp)
	}
	b.shareListed(req.Msg, resp)
	b.answerAfterWrites(req, resp, b.cfg.Settings.Int64("offsets.commit.timeout.ms"))
}

// coordinatesGroup reports whether this broker coordinates a group.
func (b *Broker) coordinatesGroup(id string) bool { return b.groups.Owns(id) }
