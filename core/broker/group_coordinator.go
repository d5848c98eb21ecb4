package broker

import (
	"reflect"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/group"
	"github.com/gregor-kafka/gregor/core/record"
)

// The group coordinator's glue: core/group holds the state machine; this
// file builds it from the broker's settings, replays __consumer_offsets
// into it at startup, routes the group APIs to it, and holds answers given
// after a write that must be synced until the next Commit (as Produce does).
//
// Served here (the state machine documents each):
//
//	OffsetCommit v0-9, OffsetFetch v0-9, JoinGroup v0-9, Heartbeat v0-4,
//	LeaveGroup v0-5, SyncGroup v0-5, DescribeGroups v0-5, ListGroups v0-5,
//	DeleteGroups v0-2, OffsetDelete v0, ConsumerGroupHeartbeat v0-1 and
//	ConsumerGroupDescribe v0-1 (KIP-848).
func init() {
	register(8, 0, 9, handleGroupWrite)  // OffsetCommit
	register(9, 0, 9, handleGroupRead)   // OffsetFetch
	register(11, 0, 9, handleGroupWrite) // JoinGroup
	register(12, 0, 4, handleGroupWrite) // Heartbeat
	register(13, 0, 5, handleGroupWrite) // LeaveGroup
	register(14, 0, 5, handleGroupWrite) // SyncGroup
	register(15, 0, 5, handleGroupRead)  // DescribeGroups
	register(16, 0, 5, handleGroupRead)  // ListGroups
	register(42, 0, 2, handleGroupWrite) // DeleteGroups
	register(47, 0, 0, handleGroupWrite) // OffsetDelete
	register(68, 0, 1, handleGroupWrite) // ConsumerGroupHeartbeat (KIP-848)
	register(69, 0, 1, handleGroupRead)  // ConsumerGroupDescribe (KIP-848)
}

// groupGlue is the broker's part of the group coordinator.
type groupGlue struct {
	c *group.Coordinator
	// mustSync is set when this step appended to an internal log that
	// must be synced before answers that depend on it go out.
	mustSync bool
}

type groupLog struct{ b *Broker }

func (l groupLog) Append(p int32, batch record.Batch) error {
	if _, err := l.b.EnsureInternalTopic(OffsetsTopic); err != nil {
		return err
	}
	_, err := l.b.AppendInternal(OffsetsTopic, p, batch)
	return err
}

type groupTopics struct{ b *Broker }

func (t groupTopics) Topic(name string) ([16]byte, int32, bool) {
	if tp := t.b.topics[name]; tp != nil {
		return tp.ID, int32(len(tp.Partitions)), true
	}
	return [16]byte{}, 0, false
}

func (t groupTopics) TopicByID(id [16]byte) (string, int32, bool) {
	if tp := t.b.byID[id]; tp != nil {
		return tp.Name, int32(len(tp.Partitions)), true
	}
	return "", 0, false
}

// initGroups builds the coordinator and, when __consumer_offsets exists,
// rebuilds every group from it.
func (b *Broker) initGroups(now int64) error {
	s := b.cfg.Settings
	partitions := int32(s.Int64("offsets.topic.num.partitions"))
	if t := b.topics[OffsetsTopic]; t != nil {
		partitions = int32(len(t.Partitions)) // the topic's count wins over a changed setting
	}
	b.groups.c = group.New(group.Config{
		Partitions:                  partitions,
		InitialRebalanceDelayMs:     int32(s.Int64("group.initial.rebalance.delay.ms")),
		MinSessionTimeoutMs:         int32(s.Int64("group.min.session.timeout.ms")),
		MaxSessionTimeoutMs:         int32(s.Int64("group.max.session.timeout.ms")),
		MaxSize:                     int32(s.Int64("group.max.size")),
		MaxMetadataBytes:            int(s.Int64("offset.metadata.max.bytes")),
		ConsumerSessionTimeoutMs:    int32(s.Int64("group.consumer.session.timeout.ms")),
		ConsumerHeartbeatIntervalMs: int32(s.Int64("group.consumer.heartbeat.interval.ms")),
		Rand:                        b.cfg.Rand,
		Log:                         groupLog{b},
		Topics:                      groupTopics{b},
		Logf:                        b.cfg.Logf,
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
	if n := len(b.groups.c.Groups()); n > 0 {
		b.cfg.Logf("loaded %d consumer groups from %s", n, OffsetsTopic)
	}
	return nil
}

// Groups is the group coordinator, for views and the simulator.
func (b *Broker) Groups() *group.Coordinator { return b.groups.c }

// tickGroups runs the coordinator's timers.
func (b *Broker) tickGroups(now int64) {
	b.groups.mustSync = false
	b.groups.c.Tick(now)
}

// handleGroupWrite serves a group API that may write to __consumer_offsets,
// which it creates first if needed.
func handleGroupWrite(b *Broker, r *Request) kmsg.Response {
	if _, err := b.EnsureInternalTopic(OffsetsTopic); err != nil {
		b.cfg.Logf("creating %s: %v", OffsetsTopic, err)
		resp := r.Msg.ResponseKind()
		resp.SetVersion(r.Msg.GetVersion())
		return coordinatorNotAvailable(resp)
	}
	return handleGroupRead(b, r)
}

// handleGroupRead hands a request to the coordinator. Answers, now or
// later, go through groupReply.
func handleGroupRead(b *Broker, r *Request) kmsg.Response {
	b.groups.mustSync = false
	req := *r
	call := group.Call{ClientID: r.Header.ClientID, Reply: func(resp kmsg.Response) { b.groupReply(req, resp) }}
	if resp := b.groups.c.Handle(b.now, call, r.Msg); resp != nil {
		b.groupReply(req, resp)
	}
	return nil
}

// groupReply answers now, or after the next Commit's sync when this step
// wrote to a log whose flush policy needs one.
func (b *Broker) groupReply(req Request, resp kmsg.Response) {
	if b.groups.mustSync {
		b.awaitFlush = append(b.awaitFlush, Response{req.Conn, req.Header.CorrelationID, resp})
		return
	}
	b.reply(req, resp)
}

// coordinatorNotAvailable sets COORDINATOR_NOT_AVAILABLE where a response
// carries its error, as unsupported does for UNSUPPORTED_VERSION.
func coordinatorNotAvailable(resp kmsg.Response) kmsg.Response {
	setErrorCodes(reflect.ValueOf(resp).Elem(), kerr.CoordinatorNotAvailable.Code, 2)
	return resp
}
