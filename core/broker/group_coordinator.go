package broker

import (
	"reflect"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/group"
	"github.com/gregor-kafka/gregor/core/record"
	"github.com/gregor-kafka/gregor/core/wire"
)

// The group coordinator's glue: core/group holds the state machine; this
// file builds it from the broker's settings, replays __consumer_offsets
// into it at startup, routes the group APIs to it, and holds answers given
// after a write that must be synced until the next Commit (as Produce does).
//
// Each group API registers from its own file (join_group.go: JoinGroup,
// key 11, and the group it is routed by); the state machine documents
// each.

type groupLog struct{ b *Broker }

func (l groupLog) Append(p int32, batch record.Batch) error {
	_, err := l.b.AppendInternal(OffsetsTopic, p, batch)
	return err
}

type groupTopics struct{ b *Broker }

func (t groupTopics) Topic(name string) ([16]byte, int32, bool) {
	it, ok := t.b.image.topic(name)
	return it.id, int32(it.partitions), ok
}

func (t groupTopics) TopicByID(id [16]byte) (string, int32, bool) {
	it, ok := t.b.image.topicByID(id)
	return it.name, int32(it.partitions), ok
}

// Names lists the topics in no order; callers sort (matchTopics).
func (t groupTopics) Names() []string { return t.b.image.topicNames() }

// initGroups builds the coordinator and, on a single broker where
// __consumer_offsets exists, rebuilds every group from it. In a cluster
// the groups of a partition are loaded when this broker becomes its
// leader (coordinators.go).
func (b *Broker) initGroups(now int64) error {
	s := b.cfg.Settings
	partitions := int32(s.Int64("offsets.topic.num.partitions"))
	if t := b.topics[OffsetsTopic]; t != nil {
		partitions = int32(len(t.Partitions)) // the topic's count wins over a changed setting
	}
	b.groups = group.New(group.Config{
		Partitions:                  partitions,
		InitialRebalanceDelayMs:     int32(s.Int64("group.initial.rebalance.delay.ms")),
		MinSessionTimeoutMs:         int32(s.Int64("group.min.session.timeout.ms")),
		MaxSessionTimeoutMs:         int32(s.Int64("group.max.session.timeout.ms")),
		MaxSize:                     int32(s.Int64("group.max.size")),
		MaxMetadataBytes:            int(s.Int64("offset.metadata.max.bytes")),
		ConsumerSessionTimeoutMs:    int32(s.Int64("group.consumer.session.timeout.ms")),
		ConsumerHeartbeatIntervalMs: int32(s.Int64("group.consumer.heartbeat.interval.ms")),
		ConsumerTimeouts: func(id string) (int32, int32) {
			return int32(b.groupInt64(id, "consumer.session.timeout.ms")), int32(b.groupInt64(id, "consumer.heartbeat.interval.ms"))
		},
		Rand:   b.cfg.Rand,
		Log:    groupLog{b},
		Topics: groupTopics{b},
		Share:  b.share,
		Logf:   b.cfg.Logf,
	}, now)
	t := b.topics[OffsetsTopic]
	if t == nil {
		return nil
	}
	for _, p := range t.Partitions {
		if err := b.replayOffsets(p.Index); err != nil { // txn_offsets.go
			return err
		}
	}
	if n := len(b.groups.Groups()); n > 0 {
		b.cfg.Logf("loaded %d consumer groups from %s", n, OffsetsTopic)
	}
	return nil
}

// Groups is the group coordinator, for views and the simulator.
func (b *Broker) Groups() *group.Coordinator { return b.groups }

// tickGroups runs the coordinator's timers.
func (b *Broker) tickGroups(now int64) {
	b.collectWrites(func() {
		b.groups.Tick(now)
		s := b.cfg.Settings
		if now-b.lastOffsetExpiry >= s.Int64("offsets.retention.check.interval.ms") {
			b.lastOffsetExpiry = now
			b.groups.ExpireOffsets(now, s.Int64("offsets.retention.minutes")*60_000)
		}
	})
}

// handleGroupWrite serves a group API that may write to __consumer_offsets,
// which a single broker creates first if needed.
func handleGroupWrite(b *Broker, r *Request) kmsg.Response {
	if err := b.soloInternalTopic(OffsetsTopic); err != nil {
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
	b.markForeignGroups(resp)
	b.shareListed(req.Msg, resp)
	b.answerAfterWrites(req, resp, b.cfg.Settings.Int64("offsets.commit.timeout.ms"))
}

// coordinatesGroup reports whether this broker coordinates a group: it
// leads the group's __consumer_offsets partition (always, on a single
// broker).
func (b *Broker) coordinatesGroup(id string) bool {
	return b.cl == nil || b.coordinates(OffsetsTopic, b.groups.PartitionFor(id))
}

// markForeignGroups answers NOT_COORDINATOR for the groups of a
// many-group answer (api.manyGroups) that this broker does not
// coordinate; the coordinator knows nothing of them and left them empty.
// Every such answer lists them in Groups, each with its Group and
// ErrorCode.
func (b *Broker) markForeignGroups(resp kmsg.Response) {
	if !handlers[resp.Key()].manyGroups {
		return
	}
	gs := reflect.ValueOf(resp).Elem().FieldByName("Groups")
	for i := range gs.Len() {
		if g := gs.Index(i); !b.coordinatesGroup(g.FieldByName("Group").String()) {
			g.FieldByName("ErrorCode").SetInt(int64(kerr.NotCoordinator.Code))
		}
	}
}
