package group

// ExpireOffsets applies offsets.retention.minutes (KIP-211, Kafka's
// GroupMetadata.removeExpiredOffsets and GroupCoordinator's
// cleanupGroupMetadata): the committed offsets of an empty group expire
// retentionMs after the group became empty; those of a standalone group
// (commits without a group protocol: no protocol type, no members)
// retentionMs after they were committed. A group with members keeps its
// offsets (Kafka also expires the topics a stable consumer group no longer
// subscribes to; Gregor does not yet). Offsets waiting for a transaction's
// marker never expire. Each expired offset gets a tombstone in
// __consumer_offsets, so that compaction removes it; an empty group left
// without offsets is deleted with a tombstone for its metadata. It returns
// the number of offsets expired.
//
// A group loaded at startup became empty, as far as the coordinator
// knows, when it was loaded: Gregor's group metadata record does not carry
// Kafka's currentStateTimestamp, so a restart postpones expiry, never
// hastens it.
func (c *Coordinator) ExpireOffsets(now, retentionMs int64) int {
	c.advance(now)
	total := 0
	for _, id := range c.groupIDs() {
		g := c.groups[id]
		if g.state != Empty || len(g.pending) > 0 {
			continue
		}
		var expired []topicPartition
		for _, tp := range g.sortedOffsets() {
			base := g.stateTime
			if g.protocolType == "" && g.typ == Classic {
				base = g.offsets[tp].commitTime
			}
			if base+retentionMs <= c.now && !c.txnPending(id, tp.topic, tp.partition) {
				expired = append(expired, tp)
			}
		}
		dead := len(expired) == len(g.offsets) && c.PendingTxnOffsets(id) == 0
		if len(expired) == 0 && !dead {
			continue
		}
		recs := make([]kv, 0, len(expired)+1)
		for _, tp := range expired {
			recs = append(recs, kv{EncodeOffsetKey(id, tp.topic, tp.partition), nil})
		}
		if dead {
			recs = append(append(recs, kv{EncodeGroupKey(id), nil}), consumerTombstones(g)...)
		}
		if err := c.write(g, recs); err != nil {
			continue // retried at the next check
		}
		for _, tp := range expired {
			delete(g.offsets, tp)
		}
		total += len(expired)
		c.cfg.Logf("group %s: %d committed offsets expired (offsets.retention.minutes)", id, len(expired))
		if dead {
			delete(c.groups, id)
			c.cfg.Logf("group %s: empty and without offsets: deleted", id)
		}
	}
	return total
}
