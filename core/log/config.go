package log

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Config holds the topic-level log settings Kafka applies to a partition
// (see Kafka's LogConfig / TopicConfig for the names and defaults).
type Config struct {
	SegmentBytes       int64 // segment.bytes, default 1073741824
	SegmentMs          int64 // segment.ms, default 604800000
	SegmentIndexBytes  int64 // segment.index.bytes, default 10485760: roll when an index would exceed it
	IndexIntervalBytes int64 // index.interval.bytes, default 4096
	RetentionMs        int64 // retention.ms, default 604800000; -1 = unlimited
	RetentionBytes     int64 // retention.bytes, default -1 = unlimited
	FlushMessages      int64 // flush.messages, default math.MaxInt64
	FlushMs            int64 // flush.ms, default math.MaxInt64

	// cleanup.policy (default delete): Delete applies retention.ms and
	// retention.bytes, Compact runs the cleaner (compact.go); a topic
	// may have both (compact,delete).
	Delete, Compact bool
	// delete.retention.ms, default 86400000: how long a tombstone, or a
	// marker of a transaction with no data left, stays after the cleaner
	// first saw it (KIP-534's delete horizon).
	DeleteRetentionMs int64
	// min.cleanable.dirty.ratio, default 0.5: the share of the cleanable
	// bytes that must be dirty (written since the last clean) for a pass.
	MinCleanableDirtyRatio float64
	// min.compaction.lag.ms, default 0: a segment whose largest timestamp
	// is younger than this is not cleaned yet (KIP-58).
	MinCompactionLagMs int64
	// max.compaction.lag.ms, default math.MaxInt64: a dirty segment older
	// than this is cleaned whatever the dirty ratio, and a compacted log's
	// active segment rolls at this age if segment.ms is longer (KIP-354).
	MaxCompactionLagMs int64

	// CleanShutdown is set when the previous run closed the log (every
	// file synced): Open then syncs only what recovery changed, not the
	// active segment as after a crash (Kafka's .kafka_cleanshutdown).
	CleanShutdown bool
	// Scratch, if set, lends the log's recovery, replay (Scan) and
	// cleaner scans their read buffers: the logs of one engine share it
	// (segment.go). The lookups by timestamp make their own.
	Scratch *Scratch
}

// DefaultConfig returns Kafka's defaults.
func DefaultConfig() Config {
	return Config{
		SegmentBytes:       1 << 30,
		SegmentMs:          7 * 24 * 60 * 60 * 1000,
		SegmentIndexBytes:  10 << 20,
		IndexIntervalBytes: 4096,
		RetentionMs:        7 * 24 * 60 * 60 * 1000,
		RetentionBytes:     -1,
		FlushMessages:      math.MaxInt64,
		FlushMs:            math.MaxInt64,

		Delete:                 true,
		DeleteRetentionMs:      24 * 60 * 60 * 1000,
		MinCleanableDirtyRatio: 0.5,
		MaxCompactionLagMs:     math.MaxInt64,
	}
}

// rollMs is the age at which the active segment rolls: segment.ms, or
// max.compaction.lag.ms for a compacted log if that is shorter (Kafka's
// LogConfig.maxSegmentMs), so that no record waits longer than that to be
// cleanable.
func (c Config) rollMs() int64 {
	if c.Compact {
		return min(c.SegmentMs, c.MaxCompactionLagMs)
	}
	return c.SegmentMs
}

// Sentinel errors.
var (
	// ErrOffsetOutOfRange maps to Kafka's OFFSET_OUT_OF_RANGE.
	ErrOffsetOutOfRange = errors.New("log: offset out of range")
	// ErrCorrupt means the bytes on storage contradict the log's structure
	// (maps to Kafka's CORRUPT_MESSAGE / KAFKA_STORAGE_ERROR).
	ErrCorrupt = errors.New("log: corrupt segment")
	// ErrClosed is returned by every method after Close or Delete.
	ErrClosed = errors.New("log: closed")
)

// File name suffixes of one segment, as in Kafka's LogFileUtils.
const (
	LogSuffix       = ".log"
	IndexSuffix     = ".index"
	TimeIndexSuffix = ".timeindex"
	// TxnIndexSuffix names a segment's aborted transaction index, created
	// on its first entry (Kafka's TransactionIndex).
	TxnIndexSuffix = ".txnindex"
	// SnapshotSuffix names a producer state snapshot, by the offset it
	// covers up to (Kafka's ProducerStateManager).
	SnapshotSuffix = ".snapshot"
)

// strayExt are leftovers of interrupted operations that Kafka deletes when
// it loads a log (.deleted, .cleaned, .swap) plus temporary files.
var strayExt = []string{".deleted", ".cleaned", ".swap", ".tmp"}

// FileName is a segment file's name: the base offset zero-padded to 20
// digits (Kafka's LogFileUtils.filenamePrefixFromOffset) and the suffix.
func FileName(base int64, suffix string) string {
	return fmt.Sprintf("%020d%s", base, suffix)
}

// parseName splits "00000000000000000042.index" into 42 and ".index".
func parseName(name string) (base int64, suffix string, ok bool) {
	if len(name) < 21 || name[20] != '.' {
		return 0, "", false
	}
	for i := 0; i < 20; i++ {
		if name[i] < '0' || name[i] > '9' {
			return 0, "", false
		}
	}
	base, err := strconv.ParseInt(name[:20], 10, 64)
	if err != nil {
		return 0, "", false
	}
	return base, name[20:], true
}

// isStray reports whether name is a leftover of one of this log's segment
// files ("00000000000000000000.log.deleted", "...index.tmp7"): Kafka
// deletes such files when it loads a log, and so does Open.
func isStray(name string) bool {
	_, suffix, ok := parseName(name)
	if !ok {
		return false
	}
	for _, s := range []string{LogSuffix, IndexSuffix, TimeIndexSuffix, TxnIndexSuffix, SnapshotSuffix} {
		if suffix != s && strings.HasPrefix(suffix, s+".") {
			rest := suffix[len(s):]
			for _, ext := range strayExt {
				if strings.HasPrefix(rest, ext) {
					return true
				}
			}
		}
	}
	return false
}
