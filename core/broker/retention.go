package broker

// enforceRetention deletes whole segments past retention.ms or
// retention.bytes in every partition (seed 004: segments exist so that old
// data can be dropped a file at a time), and checkpoints moved start
// offsets.
func (b *Broker) enforceRetention() {
	moved := false
	for _, p := range b.partitions() {
		if p.offline {
			continue // its files are left as the failure left them
		}
		for _, note := range p.log.EnforceRetention(b.now) {
			b.cfg.Logf("retention: %s", note)
			moved = true
		}
	}
	b.expireProducers()
	if moved {
		if err := b.saveMetadata(); err != nil {
			b.cfg.Logf("checkpointing log start offsets: %v", err)
		}
	}
}
