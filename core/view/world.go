package view

import "fmt"

// World is what a learner can see of the world after a step: every
// value a view draws comes from here.
type World struct {
	Clock   int64 // virtual ms since the world began
	Brokers []Broker
	// Cut lists the brokers a network partition cuts off from the
	// others; empty while the network is whole.
	Cut       []string
	Groups    []Group          // group.go
	Shares    []SharePartition // share.go
	Txns      []Txn            // txn.go
	Producers []ClientProducer // txn.go
	Lookup    *Lookup          // log.go: the step's lookup, nil if it made none
	// Actors is everyone who sends or receives messages (actor.go).
	Actors []Actor
}

// Broker is one broker: its partitions while it runs, and its files
// always (a crashed broker's storage keeps what was synced).
type Broker struct {
	ID         int32
	Name       string
	Up         bool
	Stopped    bool // down through a controlled shutdown, not a crash
	Changed    bool // came up or went down in this step
	Partitions []Partition
	Files      []File
}

// Partition is one partition's log as the broker sees it.
type Partition struct {
	Name                string
	Start, LEO, HW, LSO int64
	Changed             map[string]bool // "start", "leo", "hw", "lso" moved in this step
	New                 bool
	Segments            []Segment
	Producers           []Producer
	Leader, LeaderEpoch int32
	Replicas, ISR       []int32
	// Adding and Removing are the replicas a reassignment in progress
	// adds and removes (KIP-455), as the broker's metadata image has them.
	Adding, Removing []int32
	// Internal marks __consumer_offsets, __transaction_state and
	// __share_group_state.
	Internal bool
	// Earlier counts the batches older than those the segments hold
	// (at most MaxBatches are kept); -1: some, not counted (Tail).
	Earlier int
}

// Segment is one segment: its .log and its two sparse indexes.
type Segment struct {
	Name             string // the .log file name
	Base, Next       int64
	Size             int64
	Active           bool
	Index            []Entry // offset -> position
	TimeIndex        []Entry // timestamp -> offset
	New, Changed     bool
	LargestTimestamp int64
	Batches          []Batch // the newest of the log's batches in this segment
}

// Span is the segment's offsets, "empty" when it has none.
func (s Segment) Span() string {
	if s.Next <= s.Base {
		return "empty"
	}
	if s.Next-1 == s.Base {
		return fmt.Sprintf("offset %d", s.Base)
	}
	return fmt.Sprintf("offsets %d..%d", s.Base, s.Next-1)
}

// Producer is what a partition remembers of one producer id.
type Producer struct {
	ID      int64
	Epoch   int16
	LastSeq int32
	Batches int
	// TxnFirst is the first offset of its open transaction on the
	// partition, -1 when none is open (KIP-98: the LSO stays at or
	// below it).
	TxnFirst int64
}

// File is one file in a broker's storage.
type File struct {
	Name    string
	Size    int64
	Changed bool // new, or a different size than before the step
}

// Entry is one entry of a sparse index: offset -> position in the .index,
// timestamp -> offset in the .timeindex.
type Entry struct {
	Key, Value string
	// Probed marks an entry the step's lookup compared in its binary
	// search; Chosen the one it started from.
	Probed, Chosen bool
}
