package group

import (
	"encoding/binary"
	"errors"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// The wire primitives of the KIP-848 __consumer_offsets records, which
// kmsg does not define: keys use Kafka's classic encoding (int16-length
// strings), values its flexible one (compact strings and arrays, an
// unsigned varint of length+1, and a tagged-field section, always empty
// here; a reader skips the tags it is given).

type recWriter struct{ b []byte }

func (w *recWriter) int8(v int8)   { w.b = append(w.b, byte(v)) }
func (w *recWriter) int16(v int16) { w.b = binary.BigEndian.AppendUint16(w.b, uint16(v)) }
func (w *recWriter) int32(v int32) { w.b = binary.BigEndian.AppendUint32(w.b, uint32(v)) }
func (w *recWriter) int64(v int64) { w.b = binary.BigEndian.AppendUint64(w.b, uint64(v)) }
func (w *recWriter) uvarint(v int) { w.b = binary.AppendUvarint(w.b, uint64(v)) }
func (w *recWriter) uuid(v [16]byte) {
	w.b = append(w.b, v[:]...)
}

// str is a key's string: int16 length and bytes.
func (w *recWriter) str(s string) {
	w.int16(int16(len(s)))
	w.b = append(w.b, s...)
}

// cstr is a compact string; cnstr a compact nullable one ("" is null).
func (w *recWriter) cstr(s string) {
	w.uvarint(len(s) + 1)
	w.b = append(w.b, s...)
}

func (w *recWriter) cnstr(s string) {
	if s == "" {
		w.uvarint(0)
		return
	}
	w.cstr(s)
}

func (w *recWriter) noTags() { w.uvarint(0) }

var (
	errShort     = errors.New("short record")
	errBadVarint = errors.New("bad varint")
	errNoMember  = errors.New("empty member id")
)

type recReader struct {
	b   []byte
	err error
}

func (r *recReader) take(n int) []byte {
	if r.err != nil || n < 0 || len(r.b) < n {
		if r.err == nil {
			r.err = errShort
		}
		return make([]byte, min(max(n, 0), 16)) // the widest fixed read
	}
	v := r.b[:n]
	r.b = r.b[n:]
	return v
}

func (r *recReader) int8() int8   { return int8(r.take(1)[0]) }
func (r *recReader) int16() int16 { return int16(binary.BigEndian.Uint16(r.take(2))) }
func (r *recReader) int32() int32 { return int32(binary.BigEndian.Uint32(r.take(4))) }
func (r *recReader) int64() int64 { return int64(binary.BigEndian.Uint64(r.take(8))) }
func (r *recReader) uuid() (u [16]byte) {
	copy(u[:], r.take(16))
	return u
}

func (r *recReader) uvarint() int {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 || v > 1<<30 {
		r.err = errBadVarint
		return 0
	}
	r.b = r.b[n:]
	return int(v)
}

func (r *recReader) str() string { return string(r.take(int(r.int16()))) }

// cstr reads a compact string, null as "".
func (r *recReader) cstr() string {
	n := r.uvarint()
	if n == 0 {
		return ""
	}
	return string(r.take(n - 1))
}

// alen reads a compact array's length (null as empty); a length beyond
// the bytes left (every element takes one at least) is an error and 0.
func (r *recReader) alen() int {
	n := max(r.uvarint()-1, 0)
	if n > len(r.b) {
		if r.err == nil {
			r.err = errShort
		}
		return 0
	}
	return n
}

// tags skips a tagged-field section.
func (r *recReader) tags() {
	n := r.uvarint()
	if n > len(r.b) {
		r.take(n) // a tag takes two bytes at least: short
		return
	}
	for range n {
		r.uvarint()
		r.take(r.uvarint())
	}
}

// idPartitions is Kafka's TopicPartitions struct of these records: a
// topic id with its partitions.
type idPartitions struct {
	id    [16]byte
	parts []int32
}

func (w *recWriter) idPartitions(tps []idPartitions) {
	w.uvarint(len(tps) + 1)
	for _, tp := range tps {
		w.uuid(tp.id)
		w.uvarint(len(tp.parts) + 1)
		for _, p := range tp.parts {
			w.int32(p)
		}
		w.noTags()
	}
}

func (r *recReader) idPartitions() []idPartitions {
	var out []idPartitions
	for range r.alen() {
		tp := idPartitions{id: r.uuid()}
		for range r.alen() {
			tp.parts = append(tp.parts, r.int32())
		}
		r.tags()
		out = append(out, tp)
		if r.err != nil {
			break
		}
	}
	return out
}

// classicTag writes the tagged fields of record 5's value: none for a
// consumer-protocol member, else tag 0, its ClassicMemberMetadata
// (SessionTimeoutMs, SupportedProtocols of Name and Metadata).
func (w *recWriter) classicTag(ci *classicInfo) {
	if ci == nil {
		w.noTags()
		return
	}
	v := recWriter{}
	v.int32(ci.sessionTimeout)
	v.uvarint(len(ci.protocols) + 1)
	for _, p := range ci.protocols {
		v.cstr(p.Name)
		v.uvarint(len(p.Metadata) + 1)
		v.b = append(v.b, p.Metadata...)
		v.noTags()
	}
	v.noTags()
	w.uvarint(1) // one tagged field
	w.uvarint(0) // tag 0
	w.uvarint(len(v.b))
	w.b = append(w.b, v.b...)
}

// classicTag reads record 5's tagged fields: the ClassicMemberMetadata
// of tag 0, nil without one; other tags are skipped.
func (r *recReader) classicTag() *classicInfo {
	n := r.uvarint()
	if n > len(r.b) {
		r.take(n)
		return nil
	}
	var ci *classicInfo
	for range n {
		tag, size := r.uvarint(), r.uvarint()
		data := r.take(size)
		if tag != 0 || r.err != nil {
			continue
		}
		v := recReader{b: data}
		ci = &classicInfo{sessionTimeout: v.int32()}
		for range v.alen() {
			p := kmsg.JoinGroupRequestProtocol{Name: v.cstr()}
			if m := v.uvarint(); m > 0 {
				p.Metadata = append([]byte{}, v.take(m-1)...)
			}
			v.tags()
			ci.protocols = append(ci.protocols, p)
			if v.err != nil {
				break
			}
		}
		v.tags()
		if v.err != nil {
			r.err = v.err
			return nil
		}
	}
	return ci
}
