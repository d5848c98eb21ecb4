package producer

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"sort"
)

// SnapshotVersion is the version of the snapshot format written here.
//
// Kafka's <offset>.snapshot (ProducerStateManager, version 1) is: version
// int16, CRC-32C uint32 of everything after it, then an int32-counted array
// of producer entries (producer id int64, epoch int16, last sequence
// int32, last offset int64, offset delta int32, timestamp int64,
// coordinator epoch int32, current txn first offset int64). It keeps only
// the last batch of each producer, so after a restart Kafka detects a
// duplicate of the newest batch only. Gregor writes version 2 of the same
// shape but keeps all five batches:
//
//	version            int16  (2)
//	crc                uint32 (CRC-32C of the rest)
//	count              int32
//	count times:
//	  producer id      int64
//	  epoch            int16
//	  coordinator epoch int32
//	  txn first offset int64  (-1: none open)
//	  last timestamp   int64
//	  batches          int8   (0..5)
//	  batches times:
//	    first seq, last seq          int32, int32
//	    first offset, last offset    int64, int64
//	    max timestamp                int64
//
// The snapshot's offset is in its file name: it reflects every batch below
// that offset. Completed transactions whose markers are not yet below the
// high watermark are not saved: a reloaded partition sets its high
// watermark to the log end.
const SnapshotVersion = 2

// ErrSnapshot reports a snapshot that cannot be loaded.
var ErrSnapshot = errors.New("producer: corrupt snapshot")

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

const (
	entryFixed = 8 + 2 + 4 + 8 + 8 + 1
	batchSize  = 4 + 4 + 8 + 8 + 8
)

// Snapshot encodes the state.
func (s *State) Snapshot() []byte {
	ids := make([]int64, 0, len(s.producers))
	for id := range s.producers {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	be := binary.BigEndian
	out := be.AppendUint16(nil, SnapshotVersion)
	out = be.AppendUint32(out, 0) // CRC, filled below
	out = be.AppendUint32(out, uint32(len(ids)))
	for _, id := range ids {
		e := s.producers[id]
		out = be.AppendUint64(out, uint64(e.ProducerID))
		out = be.AppendUint16(out, uint16(e.Epoch))
		out = be.AppendUint32(out, uint32(e.CoordinatorEpoch))
		out = be.AppendUint64(out, uint64(e.TxnFirstOffset))
		out = be.AppendUint64(out, uint64(e.LastTimestamp))
		out = append(out, byte(len(e.Batches)))
		for _, m := range e.Batches {
			out = be.AppendUint32(out, uint32(m.FirstSeq))
			out = be.AppendUint32(out, uint32(m.LastSeq))
			out = be.AppendUint64(out, uint64(m.FirstOffset))
			out = be.AppendUint64(out, uint64(m.LastOffset))
			out = be.AppendUint64(out, uint64(m.Timestamp))
		}
	}
	be.PutUint32(out[2:], crc32.Checksum(out[6:], castagnoli))
	return out
}

// Load decodes a snapshot written by Snapshot.
func Load(data []byte) (*State, error) {
	be := binary.BigEndian
	if len(data) < 10 {
		return nil, fmt.Errorf("%w: %d bytes", ErrSnapshot, len(data))
	}
	if v := int16(be.Uint16(data)); v != SnapshotVersion {
		return nil, fmt.Errorf("%w: version %d", ErrSnapshot, v)
	}
	if got, want := crc32.Checksum(data[6:], castagnoli), be.Uint32(data[2:]); got != want {
		return nil, fmt.Errorf("%w: CRC %08x, computed %08x", ErrSnapshot, want, got)
	}
	n := int64(be.Uint32(data[6:]))
	p := data[10:]
	if n < 0 || n > int64(len(p))/entryFixed {
		return nil, fmt.Errorf("%w: %d entries in %d bytes", ErrSnapshot, n, len(p))
	}
	// One allocation each for the entries, their batches (the five a
	// producer keeps, so Apply appends in place) and the map: a restart
	// loads a snapshot per partition.
	s := newState(n)
	entries, metas := make([]Entry, n), make([]BatchMeta, n*BatchesToRetain)
	for i := range n {
		if len(p) < entryFixed {
			return nil, fmt.Errorf("%w: truncated entry", ErrSnapshot)
		}
		e := &entries[i]
		*e = Entry{
			ProducerID:       int64(be.Uint64(p)),
			Epoch:            int16(be.Uint16(p[8:])),
			CoordinatorEpoch: int32(be.Uint32(p[10:])),
			TxnFirstOffset:   int64(be.Uint64(p[14:])),
			LastTimestamp:    int64(be.Uint64(p[22:])),
		}
		nb := int(p[30])
		p = p[entryFixed:]
		if nb > BatchesToRetain || len(p) < nb*batchSize {
			return nil, fmt.Errorf("%w: producer %d has %d batches", ErrSnapshot, e.ProducerID, nb)
		}
		e.Batches = metas[i*BatchesToRetain : i*BatchesToRetain : (i+1)*BatchesToRetain]
		for range nb {
			e.Batches = append(e.Batches, BatchMeta{
				FirstSeq: int32(be.Uint32(p)), LastSeq: int32(be.Uint32(p[4:])),
				FirstOffset: int64(be.Uint64(p[8:])), LastOffset: int64(be.Uint64(p[16:])),
				Timestamp: int64(be.Uint64(p[24:])),
			})
			p = p[batchSize:]
		}
		if e.ProducerID < 0 || s.producers[e.ProducerID] != nil {
			return nil, fmt.Errorf("%w: producer id %d invalid or repeated", ErrSnapshot, e.ProducerID)
		}
		s.producers[e.ProducerID] = e
		if e.TxnFirstOffset >= 0 {
			s.ongoing = insertTxn(s.ongoing, Txn{ProducerID: e.ProducerID, FirstOffset: e.TxnFirstOffset, LastOffset: -1})
		}
	}
	if len(p) != 0 {
		return nil, fmt.Errorf("%w: %d trailing bytes", ErrSnapshot, len(p))
	}
	return s, nil
}
