package quorum

import (
	"errors"
	"github.com/gregor-kafka/gregor/core/cluster"
	"github.com/gregor-kafka/gregor/core/wire"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// handle dispatches a request to the active controller.
func (c *controller) handle(id uint64, req kmsg.Request) {
	switch r := req.(type) {
	case *kmsg.BrokerRegistrationRequest:
		c.register(id, r)
	case *kmsg.BrokerHeartbeatRequest:
		c.heartbeat(id, r)
	case *kmsg.AlterPartitionRequest:
		c.alterPartition(id, r)
	case *kmsg.CreateTopicsRequest:
		c.createTopics(id, r)
	case *kmsg.CreatePartitionsRequest:
		c.createPartitions(id, r)
	case *kmsg.DeleteTopicsRequest:
		c.deleteTopics(id, r)
	case *kmsg.AllocateProducerIDsRequest:
		c.allocateProducerIDs(id, r)
	case *kmsg.UnregisterBrokerRequest:
		c.unregister(id, r)
	case *kmsg.IncrementalAlterConfigsRequest:
		c.alterConfigs(id, r)
	case *kmsg.AlterConfigsRequest:
		c.replaceConfigs(id, r)
	case *kmsg.ElectLeadersRequest:
		c.electLeaders(id, r)
	case *kmsg.AlterPartitionAssignmentsRequest:
		c.alterReassignments(id, r)
	case *kmsg.ListPartitionReassignmentsRequest:
		c.listReassignments(id, r)
	case *kmsg.AlterClientQuotasRequest:
		c.alterClientQuotas(id, r)
	case *kmsg.AlterUserSCRAMCredentialsRequest:
		resp, recs := cluster.AlterScram(r, c.n.image.Scram)
		c.commit(id, r, resp, recs)
	case *kmsg.UpdateFeaturesRequest:
		resp, recs := cluster.UpdateFeatures(r, c.n.image.Features)
		c.commit(id, r, resp, recs)
	case *kmsg.CreateACLsRequest:
		resp, recs := cluster.CreateACLs(r, c.n.image.ACLs)
		c.commit(id, r, resp, recs)
	case *kmsg.DeleteACLsRequest:
		resp, recs := cluster.DeleteACLs(r, c.n.image.ACLs)
		c.commit(id, r, resp, recs)
	default:
		c.n.respond(id, errorResponse(req, kerr.UnsupportedVersion.Code))
	}
}

// register records a broker registration (KIP-631). The broker starts
// fenced; its epoch is the offset of the record, returned once committed.
// A broker whose data belongs to another cluster is refused with
// INCONSISTENT_CLUSTER_ID, as Kafka's ClusterControlManager refuses one
// formatted with another cluster id: it must not replicate this cluster's
// partitions into logs of another.
func (c *controller) register(id uint64, r *kmsg.BrokerRegistrationRequest) {
	if want := c.clusterID(); r.ClusterID != want {
		resp := newResponse[*kmsg.BrokerRegistrationResponse](r)
		resp.ErrorCode = kerr.InconsistentClusterID.Code
		c.n.respond(id, resp)
		return
	}
	rec := &cluster.RegisterBroker{ID: r.BrokerID, IncarnationID: r.IncarnationID}
	if r.Rack != nil {
		rec.Rack = *r.Rack
	}
	if len(r.Listeners) > 0 {
		rec.Host, rec.Port = r.Listeners[0].Host, int32(r.Listeners[0].Port)
	}
	if len(r.Listeners) > 1 {
		for _, l := range r.Listeners {
			rec.Endpoints = append(rec.Endpoints, cluster.Endpoint{Name: l.Name, Host: l.Host, Port: int32(l.Port)})
		}
	}
	c.lastHeard[r.BrokerID] = c.n.now
	recs, keys := []cluster.Record{{RegisterBroker: rec}}, []string{brokerKey(r.BrokerID)}
	if old := c.n.image.Brokers[r.BrokerID]; old != nil && old.IncarnationID != r.IncarnationID {
		// A new incarnation: the broker restarted, perhaps faster than its
		// session expired. Its replicas lost whatever was not on disk, so
		// it must not go on leading at the same leader epoch: in the same
		// batch it leaves every ISR and its partitions elect new leaders,
		// as if it had been fenced (Kafka's handleBrokerFenced on
		// re-registration). It rejoins as a follower once unfenced.
		im := c.n.image
		r, k := c.reconcile(func(b int32) bool { return b != rec.ID && im.Usable(b) })
		recs, keys = append(recs, r...), append(keys, k...)
	}
	c.propose(recs, &pending{id: id, req: r, done: func(errs []error) kmsg.Response {
		resp := newResponse[*kmsg.BrokerRegistrationResponse](r)
		if b := c.n.image.Brokers[r.BrokerID]; b != nil && b.IncarnationID == r.IncarnationID {
			resp.BrokerEpoch = b.Epoch
		} else {
			resp.ErrorCode = kerr.DuplicateBrokerRegistration.Code
		}
		return resp
	}}, keys)
}

// heartbeat keeps a broker's session alive and moves it through Kafka's
// broker states (BrokerHeartbeatManager, ReplicationControlManager
// .processBrokerHeartbeat):
//
//   - fenced -> unfenced once it has caught up with the metadata up to
//     its own registration and asks to be;
//   - a broker that asks for a controlled shutdown (KIP-631) goes in
//     controlled shutdown: still registered and unfenced, but in the
//     same batch its partitions get other leaders and it leaves every
//     ISR (handleBrokerInControlledShutdown); once it leads nothing, the
//     next heartbeat fences it and answers should_shut_down (SHUTDOWN_NOW);
//   - a broker that reports an offline log dir (KIP-858) is marked so and,
//     in the same batch, leaves every leadership and ISR: a Gregor broker
//     has one log dir, holding all its replicas (handleDirectoriesOffline);
//   - a broker that asks to be fenced is.
func (c *controller) heartbeat(id uint64, r *kmsg.BrokerHeartbeatRequest) {
	resp := newResponse[*kmsg.BrokerHeartbeatResponse](r)
	b := c.n.image.Brokers[r.BrokerID]
	switch {
	case b == nil:
		resp.ErrorCode = kerr.BrokerIDNotRegistered.Code
	case b.Epoch != r.BrokerEpoch:
		resp.ErrorCode = kerr.StaleBrokerEpoch.Code
	}
	if resp.ErrorCode != 0 {
		c.n.respond(id, resp)
		return
	}
	c.lastHeard[b.ID] = c.n.now
	caughtUp := r.CurrentMetadataOffset >= b.Epoch
	resp.IsCaughtUp, resp.IsFenced = caughtUp, b.Fenced
	resp.ShouldShutdown = r.WantShutdown && c.mayShutDown(b.ID)
	_, busy := c.inflight[brokerKey(b.ID)]
	var rec cluster.Record
	change := &cluster.BrokerChange{ID: b.ID, Epoch: b.Epoch}
	switch {
	case busy || b.Fenced && (r.WantFence || r.WantShutdown):
	case b.Fenced && caughtUp:
		rec.UnfenceBroker = &cluster.UnfenceBroker{ID: b.ID, Epoch: b.Epoch}
	case b.Fenced:
	case len(r.OfflineLogDirs) > 0 && !b.LogDirOffline:
		change.LogDirOffline, rec.BrokerChange = true, change
	case r.WantShutdown && !b.InControlledShutdown:
		change.InControlledShutdown, rec.BrokerChange = true, change
	case r.WantFence || r.WantShutdown && c.leadsNothing(b.ID):
		rec.FenceBroker = &cluster.FenceBroker{ID: b.ID, Epoch: b.Epoch}
	}
	if rec.Count() == 0 {
		c.n.respond(id, resp)
		return
	}
	recs, keys := []cluster.Record{rec}, []string{brokerKey(b.ID)}
	if rec.UnfenceBroker == nil {
		// In the same batch, its partitions get other leaders and it
		// leaves every ISR, instead of at the next tick.
		im := c.n.image
		more, k := c.reconcile(func(x int32) bool { return x != b.ID && im.Usable(x) })
		recs, keys = append(recs, more...), append(keys, k...)
	}
	c.propose(recs, &pending{id: id, req: r, done: func([]error) kmsg.Response {
		now := c.n.image.Brokers[r.BrokerID]
		resp.IsFenced = now == nil || now.Fenced
		resp.ShouldShutdown = r.WantShutdown && c.mayShutDown(r.BrokerID)
		return resp
	}}, keys)
}

// mayShutDown reports whether a broker in controlled shutdown may stop:
// it is fenced and leads no partition (Kafka's BrokerHeartbeatManager
// moves it from CONTROLLED_SHUTDOWN to SHUTDOWN_NOW then). A partition
// whose only in-sync replica it is has no leader by then.
func (c *controller) mayShutDown(id int32) bool {
	if b := c.n.image.Brokers[id]; b != nil && !b.Fenced {
		return false
	}
	return c.leadsNothing(id)
}

// leadsNothing reports whether broker id leads no partition.
func (c *controller) leadsNothing(id int32) bool {
	im := c.n.image
	for _, name := range im.TopicNames() {
		for _, p := range im.Topics[name].Partitions {
			if p.Leader == id {
				return false
			}
		}
	}
	return true
}

// unregister removes a broker for good (KIP-631).
func (c *controller) unregister(id uint64, r *kmsg.UnregisterBrokerRequest) {
	b := c.n.image.Brokers[r.BrokerID]
	if b == nil {
		resp := newResponse[*kmsg.UnregisterBrokerResponse](r)
		resp.ErrorCode = kerr.BrokerIDNotRegistered.Code
		c.n.respond(id, resp)
		return
	}
	c.propose([]cluster.Record{{UnregisterBroker: &cluster.UnregisterBroker{ID: b.ID, Epoch: b.Epoch}}}, &pending{id: id, req: r,
		done: func(errs []error) kmsg.Response {
			resp := newResponse[*kmsg.UnregisterBrokerResponse](r)
			resp.ErrorCode = recordError(errs[0])
			return resp
		}}, []string{brokerKey(b.ID)})
}

// allocateProducerIDs hands the broker the next block of producer ids
// (KIP-730), so producer ids are unique across the cluster.
func (c *controller) allocateProducerIDs(id uint64, r *kmsg.AllocateProducerIDsRequest) {
	resp := newResponse[*kmsg.AllocateProducerIDsResponse](r)
	if b := c.n.image.Brokers[r.BrokerID]; b == nil || b.Epoch != r.BrokerEpoch {
		resp.ErrorCode = kerr.StaleBrokerEpoch.Code
		c.n.respond(id, resp)
		return
	}
	blk := &cluster.ProducerIDsBlock{BrokerID: r.BrokerID, BrokerEpoch: r.BrokerEpoch,
		Start: max(c.nextPID, c.n.image.NextProducerID), Len: c.n.cfg.ProducerIDBlock}
	c.nextPID = blk.Start + int64(blk.Len)
	c.propose([]cluster.Record{{ProducerIDs: blk}}, &pending{id: id, req: r, done: func(errs []error) kmsg.Response {
		if resp.ErrorCode = recordError(errs[0]); resp.ErrorCode == 0 {
			resp.ProducerIDStart, resp.ProducerIDLen = blk.Start, blk.Len
		}
		return resp
	}}, nil)
}

// commit answers resp once recs are committed, at once if there are none.
func (c *controller) commit(id uint64, req kmsg.Request, resp kmsg.Response, recs []cluster.Record) {
	if len(recs) == 0 {
		c.n.respond(id, resp)
		return
	}
	c.propose(recs, &pending{id: id, req: req, done: func([]error) kmsg.Response { return resp }}, nil)
}

// recordError maps an image error to a Kafka error code.
func recordError(err error) int16 {
	switch {
	case err == nil:
		return 0
	case errors.Is(err, cluster.ErrStale):
		return kerr.InvalidUpdateVersion.Code
	case errors.Is(err, cluster.ErrUnknown):
		return kerr.UnknownTopicOrPartition.Code
	case errors.Is(err, cluster.ErrExists):
		return kerr.TopicAlreadyExists.Code
	default:
		return kerr.InvalidRequest.Code
	}
}

// newResponse returns req's response type at req's version.
func newResponse[T kmsg.Response](req kmsg.Request) T {
	resp := req.ResponseKind()
	resp.SetVersion(req.GetVersion())
	return resp.(T)
}

// errorResponse answers req with one error code everywhere it has one.
func errorResponse(req kmsg.Request, code int16) kmsg.Response { return wire.ErrorResponse(req, code) }
