package txn

import "github.com/gregor-kafka/gregor/core/record"

// expireIDs forgets the transactional ids idle for longer than
// transactional.id.expiration.ms (Kafka's TransactionStateManager.
// removeExpiredTransactionalIds): an id with no transaction in progress
// (Empty, CompleteCommit or CompleteAbort) whose state last changed that
// long ago gets a tombstone in __transaction_state, which compaction
// removes with the id's older records, and leaves the coordinator. A
// producer that comes back later starts afresh with InitProducerId. A
// failed append keeps the id, to be tried at the next sweep.
func (c *Coordinator) expireIDs() {
	for _, id := range c.IDs() {
		m := c.txns[id]
		idle := m.State == Empty || m.State == CompleteCommit || m.State == CompleteAbort
		if !idle || m.LastUpdateTimestamp+c.cfg.ExpirationMs > c.now {
			continue
		}
		p := c.PartitionFor(id)
		bl := record.NewBuilder(record.NewBatchHeader(c.now))
		bl.Add(EncodeKey(id), nil, 0)
		off, err := c.cfg.Log.Append(p, bl.Build())
		if err != nil {
			c.cfg.Logf("%s: writing its expiry to %s-%d failed: %v", id, Topic, p, err)
			continue
		}
		delete(c.txns, id)
		c.cfg.Logf("%s-%d offset %d: %s expired: idle for transactional.id.expiration.ms=%d (tombstone)", Topic, p, off, id, c.cfg.ExpirationMs)
	}
}
