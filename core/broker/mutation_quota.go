package broker

import (
	"fmt"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/quota"
	"github.com/gregor-kafka/gregor/core/wire"
)

// The controller mutation quota (controller_mutation_rate, KIP-599):
// CreateTopics, CreatePartitions and DeleteTopics spend one token per
// partition they create or delete from the client's token bucket
// (quota.Bucket). From CreateTopics v6, CreatePartitions v3 and
// DeleteTopics v5 the quota is strict: while the bucket is in debt a topic
// is refused with THROTTLING_QUOTA_EXCEEDED (the topic that puts it in
// debt still passes); older versions, whose clients do not know that
// error, are permissive: every topic passes. Either way the answer
// carries the time until the bucket is out of debt as throttle_time_ms,
// and the connection is muted for it (KIP-219).
//
// As Kafka does, the controller counts: a single broker counts what it
// is sent; in a cluster a broker forwards these requests unread in an
// Envelope with the client's principal (envelope.go), and the node of the
// active controller counts them against the principal's and client id's
// bucket before its quorum controller sees them, so a client spreading
// its requests over several brokers has one bucket for the cluster (a
// new active controller starts with full buckets, as Kafka's does).
// It counts the partitions asked for: a topic that fails afterwards (one
// that exists already, an invalid name) has spent its tokens; validate_only
// requests spend none.
//
// # Invariants
//
//   - A refused topic is not handled or forwarded: it is taken out of the
//     request and its refusal added to the answer (a trim, authorize.go).
func (b *Broker) limitMutations(r *Request) {
	limit, meter, ok := b.image.quotas().Resolve(quotaUser(r), r.Header.ClientID, quota.ControllerMutationRate)
	if !ok {
		return
	}
	k := &b.measure(meter).bucket
	var refused []string
	strict := false
	admit := func(name string, n int) bool {
		if strict && k.Exhausted(b.now, limit) {
			refused = append(refused, name)
			return false
		}
		k.Take(b.now, limit, float64(max(n, 0)))
		return true
	}
	switch q := r.Msg.(type) {
	case *kmsg.CreateTopicsRequest:
		if q.ValidateOnly {
			return
		}
		strict = q.Version >= 6
		kept := q.Topics[:0]
		for _, t := range q.Topics {
			if admit(t.Topic, b.asked(&t)) {
				kept = append(kept, t)
			}
		}
		q.Topics = kept
	case *kmsg.CreatePartitionsRequest:
		if q.ValidateOnly {
			return
		}
		strict = q.Version >= 3
		kept := q.Topics[:0]
		for _, t := range q.Topics {
			if admit(t.Topic, int(t.Count)-b.partitionCount(t.Topic)) {
				kept = append(kept, t)
			}
		}
		q.Topics = kept
	case *kmsg.DeleteTopicsRequest:
		strict = q.Version >= 5
		targets := wire.DeleteTopicsTargets(q)
		q.Topics, q.TopicNames = nil, nil
		for _, t := range targets {
			name := b.nameOf(derefString(t.Topic), t.TopicID)
			switch {
			case !admit(name, b.partitionCount(name)):
			case q.Version >= 6:
				q.Topics = append(q.Topics, t)
			default:
				q.TopicNames = append(q.TopicNames, *t.Topic)
			}
		}
	}
	if ms := k.Throttle(limit); ms > 0 || len(refused) > 0 {
		r.addTrim(func(resp kmsg.Response) { throttledMutations(resp, refused, ms) })
	}
}

// throttledMutations adds the refused topics to an answer, and the
// throttle time.
func throttledMutations(resp kmsg.Response, refused []string, ms int32) {
	code := kerr.ThrottlingQuotaExceeded.Code
	msg := fmt.Sprintf("controller_mutation_rate exceeded: retry in %dms", ms)
	switch a := resp.(type) {
	case *kmsg.CreateTopicsResponse:
		a.ThrottleMillis = max(a.ThrottleMillis, ms)
		for _, name := range refused {
			t := kmsg.NewCreateTopicsResponseTopic()
			t.Topic, t.ErrorCode, t.ErrorMessage, t.NumPartitions, t.ReplicationFactor = name, code, &msg, -1, -1
			a.Topics = append(a.Topics, t)
		}
	case *kmsg.CreatePartitionsResponse:
		a.ThrottleMillis = max(a.ThrottleMillis, ms)
		for _, name := range refused {
			a.Topics = append(a.Topics, kmsg.CreatePartitionsResponseTopic{Topic: name, ErrorCode: code, ErrorMessage: &msg})
		}
	case *kmsg.DeleteTopicsResponse:
		a.ThrottleMillis = max(a.ThrottleMillis, ms)
		for _, name := range refused {
			t := kmsg.NewDeleteTopicsResponseTopic()
			t.Topic, t.ErrorCode, t.ErrorMessage = &name, code, &msg
			a.Topics = append(a.Topics, t)
		}
	}
}

// asked is how many partitions a CreateTopics topic asks for: none for a
// topic that exists already.
func (b *Broker) asked(t *kmsg.CreateTopicsRequestTopic) int {
	switch {
	case b.topicExists(t.Topic):
		return 0
	case len(t.ReplicaAssignment) > 0:
		return len(t.ReplicaAssignment)
	case t.NumPartitions < 0:
		return int(b.cfg.Settings.Int64("num.partitions"))
	}
	return int(t.NumPartitions)
}

// partitionCount is how many partitions the metadata has for a topic.
func (b *Broker) partitionCount(name string) int {
	t, _ := b.image.topic(name)
	return t.partitions
}
