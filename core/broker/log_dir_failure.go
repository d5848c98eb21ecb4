package broker

// A failed log dir in a cluster (KIP-858, Kafka 4.x's LogDirFailureChannel).
//
// A Gregor broker has one log dir, holding every replica it has. In Kafka a
// failed write or sync takes its whole log dir offline, and a broker whose
// last live log dir failed halts ("Shutdown broker because all log dirs in
// ... have failed", LogManager.handleLogDirFailure); the controller then
// learns it when the broker's session expires (broker.session.timeout.ms),
// and until then the partitions it led are unavailable. A broker with
// other dirs left tells the controller at once instead: its next heartbeat
// lists the dir in OfflineLogDirs and the controller moves the leaderships
// of the dir's partitions away and takes them out of the ISRs in one batch
// (ReplicationControlManager.handleDirectoriesOffline).
//
// Gregor does both, in that order: at the first storage failure of a
// clustered broker (failPartition) it heartbeats at once with its log dir
// in OfflineLogDirs (named by its incarnation id: Gregor keeps no
// directory.id), so the other in-sync replicas take over within one
// heartbeat round trip rather than a session timeout, and it halts once the
// metadata it applies records its log dir offline (the controller's batch,
// which moved its leaderships, committed), or after
// log.dir.failure.timeout.ms without that (Halted: the driver ends the process with a non-zero
// status, a supervisor restarts it and recovery truncates the log to what
// was synced). Meanwhile its other partitions go on serving. Acknowledged
// records survive: acks=all answered only once the whole ISR had them, and
// the new leader comes from that ISR.
//
// A broker alone (no cluster) keeps Gregor's teaching behaviour instead
// (storage_failure.go): only the failed partition goes offline.

// logDirFailed starts the report of the failed log dir to the controller.
// It is idempotent.
func (b *Broker) logDirFailed() {
	c := b.cl
	if c == nil || c.dirFailed {
		return
	}
	c.dirFailed, c.dirFailedAt = true, b.now
	b.cfg.Logf("Shutdown broker because all log dirs have failed: reporting the offline log dir to the controller, then halting")
	if !c.beating {
		c.nextBeat = b.now
	}
	if c.epoch < 0 {
		c.halt = true // not registered: no controller holds anything of it
	}
}

// offlineLogDirs is the OfflineLogDirs of this broker's heartbeats.
func (c *clusterGlue) offlineLogDirs() [][16]byte {
	if !c.dirFailed {
		return nil
	}
	return [][16]byte{c.cfg.Incarnation}
}

// Halted reports whether this clustered broker must stop now because its
// log dir failed: the metadata records its log dir offline, or the
// controller could not be told within log.dir.failure.timeout.ms. The
// driver ends the process with a non-zero status, as Kafka's Exit.halt(1), without a controlled shutdown.
func (b *Broker) Halted() bool {
	c := b.cl
	if c == nil || !c.dirFailed {
		return false
	}
	own := c.image.Brokers[b.cfg.NodeID]
	switch {
	case c.halt:
	case own != nil && own.Epoch == c.epoch && own.LogDirOffline:
		b.cfg.Logf("log dir failure: the controller moved this broker's leaderships away; halting")
		c.halt = true
	case b.now-c.dirFailedAt >= b.cfg.Settings.Int64("log.dir.failure.timeout.ms"):
		b.cfg.Logf("log dir failure: the controller was not told within %dms; halting without it", b.now-c.dirFailedAt)
		c.halt = true
	}
	return c.halt
}
