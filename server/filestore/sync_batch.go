package filestore

import (
	"sync/atomic"
	"time"

	"github.com/gregor-kafka/gregor/core/store"
)

// A broker closing 10,000 partitions syncs about 50,000 files and
// directories (each segment's .log, .index and .timeindex, and a producer
// snapshot and its directory), one fsync after another: 11-14 s on a
// virtual disk, past a service manager's patience. DeferSyncs lets it
// take them as one syncfs(2) of the data directory's filesystem, which
// writes everything back in one pass (store.SyncDeferrer).
//
// # Invariants
//
//   - While a batch is open, File.Sync and WriteFile do all they do but
//     wait for the disk (fsync): an injected fault still fails them, and
//     WriteFile still replaces its file by rename.
//   - The commit returns nil only if syncfs did, on a kernel whose
//     syncfs reports the write-back errors of the filesystem since the
//     batch opened (Linux 5.8 and later); elsewhere DeferSyncs declines
//     and every sync waits as before.
//   - One batch at a time: DeferSyncs declines while one is open.

// syncBatch is shared by an FS and its files: open while a batch is.
type syncBatch struct{ open atomic.Bool }

// deferring reports whether a sync may skip waiting for the disk.
func (b *syncBatch) deferring() bool { return b != nil && b.open.Load() }

var _ store.SyncDeferrer = (*FS)(nil)

// DeferSyncs opens a batch of syncs (store.SyncDeferrer).
func (s *FS) DeferSyncs() (commit func() error, ok bool) {
	if !canSyncfs() || !s.batch.open.CompareAndSwap(false, true) {
		return nil, false
	}
	fence, err := openFence(s.root)
	if err != nil {
		s.batch.open.Store(false)
		return nil, false
	}
	return func() error {
		defer s.batch.open.Store(false)
		start := time.Now()
		err := fence.syncfs()
		if err == nil && s.OnSync != nil {
			s.OnSync(time.Since(start))
		}
		return mapErr(err)
	}, true
}
