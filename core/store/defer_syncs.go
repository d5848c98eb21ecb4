package store

// SyncDeferrer is implemented by a Storage that can take many syncs as
// one (server/filestore, with syncfs(2)); Mem does not need to. A broker
// closing every log opens a batch, so 10,000 partitions stop in one
// write-back of the filesystem rather than 50,000 fsyncs in a row.
//
// DeferSyncs returns ok false when it cannot. Otherwise, until commit
// runs, File.Sync and WriteFile return without waiting for the disk
// (their other effects, and their injected faults, are as always), and
// commit makes every write made since durable, as a sync of each would
// have, returning an error if any may be lost. Nothing written in the
// batch is durable before commit returned nil: a caller vouches for it
// (a clean-shutdown mark) only after that.
type SyncDeferrer interface {
	DeferSyncs() (commit func() error, ok bool)
}
