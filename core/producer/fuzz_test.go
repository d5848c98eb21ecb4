package producer

import (
	"reflect"
	"testing"

	"github.com/gregor-kafka/gregor/core/record"
)

type seqKey struct {
	pid   int64
	epoch int16
	seq   int32
}

// FuzzProducers drives a few producers with retries, gaps, epoch bumps,
// transactions and snapshot reloads chosen by the input, and checks:
//   - no (producer id, epoch, sequence) is ever appended twice;
//   - in one epoch, the appended sequences of a producer are contiguous;
//   - a retry of any of the last five appended batches is a duplicate
//     answered with its original offset;
//   - a state loaded from a snapshot, or rebuilt by replaying the log,
//     equals the live one;
//   - the LSO never passes an open transaction.
func FuzzProducers(f *testing.F) {
	f.Add([]byte{0, 0, 1, 2, 3, 4, 5, 6, 7, 0, 0, 9, 10, 11})
	f.Add([]byte{0x10, 0x21, 0x32, 0x43, 0x54, 0x65, 0x76, 0x87, 0x98, 0xa9})
	f.Fuzz(func(t *testing.T, ops []byte) {
		type prod struct {
			epoch int16
			next  int32
			sent  []record.Batch // appended batches of this epoch, newest last
			txn   bool
		}
		s := New()
		var logBatches []record.Batch
		prods := [3]prod{}
		appended := map[seqKey]bool{}
		var offset int64
		for _, op := range ops {
			pid := int64(op % 3)
			p := &prods[pid]
			n := int(op>>6) + 1
			switch (op >> 2) % 8 {
			case 0, 1, 2: // next batch, maybe transactional
				b := batch(pid, p.epoch, p.next, n, offset, p.txn)
				v := s.CheckAppend(b)
				if v.ErrorCode != 0 || v.Duplicate != nil {
					t.Fatalf("in-sequence batch %d refused: %+v", p.next, v)
				}
				for i := range n {
					k := seqKey{pid, p.epoch, p.next + int32(i)}
					if appended[k] {
						t.Fatalf("%v appended twice", k)
					}
					appended[k] = true
				}
				applyAll(t, s, b)
				logBatches = append(logBatches, b)
				p.sent = append(p.sent, b)
				p.next += int32(n)
				offset += int64(n)
			case 3: // retry one of the last five
				if len(p.sent) == 0 {
					continue
				}
				k := int(op>>5) % min(5, len(p.sent))
				old := p.sent[len(p.sent)-1-k]
				retry := batch(pid, p.epoch, old.BaseSequence(), int(old.LastOffsetDelta())+1, 999, old.IsTransactional())
				v := s.CheckAppend(retry)
				if v.Duplicate == nil || v.Duplicate.FirstOffset != old.BaseOffset() {
					t.Fatalf("retry of seq %d: %+v", old.BaseSequence(), v)
				}
			case 4: // a gap (a producer the state does not know may start anywhere)
				if _, known := s.Get(pid); !known {
					continue
				}
				if v := s.CheckAppend(batch(pid, p.epoch, p.next+1, 1, offset, p.txn)); v.ErrorCode == 0 {
					t.Fatalf("gap accepted: %+v", v)
				}
			case 5: // epoch bump (KIP-360) when no transaction is open
				if p.txn {
					continue
				}
				p.epoch++
				p.next, p.sent = 0, nil
			case 6: // begin or end a transaction
				if !p.txn {
					p.txn = true
					continue
				}
				m := marker(pid, p.epoch, op&0x20 != 0, 0, offset)
				if code, msg := s.CheckMarker(Marker{ProducerID: pid, ProducerEpoch: p.epoch}); code != 0 {
					t.Fatal(msg)
				}
				applyAll(t, s, m)
				logBatches = append(logBatches, m)
				offset++
				p.txn = false
			case 7: // reload from a snapshot; replay equals live
				loaded, err := Load(s.Snapshot())
				if err != nil {
					t.Fatal(err)
				}
				replayed := New()
				applyAll(t, replayed, logBatches...)
				if !reflect.DeepEqual(loaded.Entries(), s.Entries()) || !reflect.DeepEqual(replayed.Entries(), s.Entries()) {
					t.Fatalf("snapshot/replay differ from live state")
				}
				s = loaded
			}
			lso := s.LastStableOffset(offset)
			for _, o := range s.Ongoing() {
				if lso > o.FirstOffset {
					t.Fatalf("LSO %d passes open transaction at %d", lso, o.FirstOffset)
				}
			}
		}
	})
}

// FuzzLoad: a snapshot decoder never panics, and what it loads encodes
// back to the same bytes.
func FuzzLoad(f *testing.F) {
	s := New()
	s.Apply(batch(1, 0, 0, 3, 0, true))
	f.Add(s.Snapshot())
	f.Add([]byte{0, 2, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		st, err := Load(data)
		if err != nil {
			return
		}
		if got := st.Snapshot(); string(got) != string(data) {
			t.Fatalf("re-encoded %x, loaded %x", got, data)
		}
	})
}
