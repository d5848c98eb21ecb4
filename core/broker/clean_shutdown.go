package broker

import (
	"errors"

	"github.com/gregor-kafka/gregor/core/store"
)

// A broker that closed every log (each file synced, each producer
// snapshot written) leaves cleanShutdownFile in its storage, as Kafka
// leaves .kafka_cleanshutdown in a log dir. The next start then opens
// its logs without syncing their active segments again (log.Config's
// CleanShutdown): with 10,000 partitions that is 40,000 fsyncs less.
//
// Invariants:
//   - The file is written only after every log closed without an error,
//     and removed before the broker serves anything, so a run that
//     crashes after it started never leaves it behind.
//   - Recovery still checks each log (torn batches, indexes); only the
//     sync of what the previous run had synced already is skipped. What
//     recovery changes is synced as before.
//   - Logs opened later (a cluster's replicas, from the metadata image;
//     topics created after the start) open as after a crash.
const cleanShutdownFile = ".kafka_cleanshutdown"

// takeCleanShutdown reports whether the previous run closed cleanly and
// removes the mark, so that only this start trusts it.
func (b *Broker) takeCleanShutdown() (bool, error) {
	if _, err := b.st.ReadFile(cleanShutdownFile); errors.Is(err, store.ErrNotExist) {
		return false, nil
	} else if err != nil {
		return false, err
	}
	return true, b.st.Remove(cleanShutdownFile)
}
