package broker

// Controlled shutdown (KIP-631, as Kafka's BrokerLifecycleManager does
// it). A clustered broker asked to stop first heartbeats with
// want_shut_down: the controller puts it in controlled shutdown (still
// registered and unfenced, listed in Metadata, but no longer a leader or
// ISR candidate) and, in the same batch, moves the leadership of its
// partitions to other in-sync replicas and takes it out of every ISR, so
// producers meet one leader change instead of a dead leader for a session
// timeout. At a later heartbeat, once it leads nothing, the controller
// fences it and answers should_shut_down; the driver then stops it.
// Meanwhile the broker keeps serving: it answers NOT_LEADER for what
// moved away, and clients find the new leaders in Metadata.

// BeginControlledShutdown asks the controller for a controlled shutdown,
// at once, and at every heartbeat until it is granted (ShutdownReady).
func (b *Broker) BeginControlledShutdown(now int64) {
	b.advance(now)
	if b.cl == nil || b.cl.shutdown {
		return
	}
	b.cl.shutdown = true
	b.cl.nextBeat, b.cl.heardAt = b.now, b.now
	b.cfg.Logf("controlled shutdown: asking the controller to move this broker's leaderships away")
}

// ShutdownReady reports whether a broker that began a controlled shutdown
// may stop: the controller granted it, or the broker never registered (it
// leads nothing), or no controller has answered for two heartbeat
// intervals: the quorum is lost (the last brokers of a cluster stopping)
// and no one could move its leaderships anyway. A single broker is
// always ready.
func (b *Broker) ShutdownReady() bool {
	c := b.cl
	if c == nil || c.shutdownNow || c.epoch < 0 {
		return true
	}
	if c.shutdown && b.now-c.heardAt >= 2*b.cfg.Settings.Int64("broker.heartbeat.interval.ms") {
		if !c.shutdownNow {
			b.cfg.Logf("controlled shutdown: no controller answered for %dms; stopping without it", b.now-c.heardAt)
			c.shutdownNow = true
		}
		return true
	}
	return false
}
