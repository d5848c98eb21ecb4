package record

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"reflect"
	"testing"

	"github.com/klauspost/compress/snappy"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

func sampleRecords() []Record {
	return []Record{
		{OffsetDelta: 0, TimestampDelta: 0, Key: []byte("k0"), Value: []byte("v0")},
		{OffsetDelta: 1, TimestampDelta: 5, Key: nil, Value: []byte("no key")},
		{OffsetDelta: 2, TimestampDelta: -3, Key: []byte{}, Value: nil,
			Headers: []Header{{Key: "h", Value: []byte("x")}, {Key: "", Value: nil}}},
	}
}

func TestBuilderRoundTrip(t *testing.T) {
	h := NewBatchHeader(1000)
	h.ProducerID, h.ProducerEpoch, h.BaseSequence = 7, 2, 40
	h.Transactional = true
	bl := NewBuilder(h)
	for _, r := range sampleRecords() {
		bl.AddRecord(r)
	}
	b := bl.Build()
	if err := Validate(b); err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{"RecordCount", b.RecordCount(), int32(3)},
		{"LastOffsetDelta", b.LastOffsetDelta(), int32(2)},
		{"BaseTimestamp", b.BaseTimestamp(), int64(1000)},
		{"MaxTimestamp", b.MaxTimestamp(), int64(1005)},
		{"ProducerID", b.ProducerID(), int64(7)},
		{"ProducerEpoch", b.ProducerEpoch(), int16(2)},
		{"BaseSequence", b.BaseSequence(), int32(40)},
		{"LastSequence", b.LastSequence(), int32(42)},
		{"Transactional", b.IsTransactional(), true},
		{"Control", b.IsControl(), false},
		{"Size", b.Size(), len(b)},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	recs, err := b.Records()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(recs, sampleRecords()) {
		t.Fatalf("Records = %+v\nwant %+v", recs, sampleRecords())
	}
}

func TestBuilderAddAndAppend(t *testing.T) {
	bl := NewBuilder(NewBatchHeader(5)).Add([]byte("a"), []byte("1"), 0).Add(nil, []byte("2"), 1)
	two := bl.AppendBatch(bl.AppendBatch(nil))
	it := NewIter(two)
	n := 0
	for b, ok := it.Next(); ok; b, ok = it.Next() {
		if err := Validate(b); err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 2 || it.Err() != nil {
		t.Fatalf("iterated %d batches, err %v", n, it.Err())
	}
	if bl.Len() != 2 {
		t.Fatalf("Len = %d", bl.Len())
	}
}

func TestBuilderLogAppendTime(t *testing.T) {
	h := NewBatchHeader(77)
	h.LogAppendTime = true
	b := NewBuilder(h).Add(nil, []byte("x"), 9).Build()
	if !b.LogAppendTime() || b.MaxTimestamp() != 77 {
		t.Fatalf("LogAppendTime=%v MaxTimestamp=%d", b.LogAppendTime(), b.MaxTimestamp())
	}
	if err := Validate(b); err != nil {
		t.Fatal(err)
	}
}

func TestBuilderEmptyIsInvalid(t *testing.T) {
	b := NewBuilder(NewBatchHeader(0)).Build()
	if err := Validate(b); !errors.Is(err, ErrRecordCount) {
		t.Fatalf("Validate(empty) = %v, want ErrRecordCount", err)
	}
}

// compressed rebuilds b with its records section compressed by codec.
func compressed(t testing.TB, b Batch, codec int8, body []byte) Batch {
	t.Helper()
	out := append([]byte(nil), b[:HeaderSize]...)
	out = append(out, body...)
	attrs := uint16(Batch(out).Attributes())&^CompressionMask | uint16(codec)
	binary.BigEndian.PutUint16(out[offAttributes:], attrs)
	binary.BigEndian.PutUint32(out[offBatchLength:], uint32(len(out)-LogOverhead))
	binary.BigEndian.PutUint32(out[offCRC:], crc32.Checksum(out[offAttributes:], castagnoli))
	return out
}

func xerial(raw []byte, blockSize int) []byte {
	out := append([]byte(nil), xerialMagic...)
	out = binary.BigEndian.AppendUint32(out, 1)
	out = binary.BigEndian.AppendUint32(out, 1)
	for len(raw) > 0 {
		n := min(blockSize, len(raw))
		blk := snappy.Encode(nil, raw[:n])
		out = binary.BigEndian.AppendUint32(out, uint32(len(blk)))
		out = append(out, blk...)
		raw = raw[n:]
	}
	return out
}

func encode(t testing.TB, codec string, raw []byte) []byte {
	var buf bytes.Buffer
	switch codec {
	case "gzip":
		w := gzip.NewWriter(&buf)
		w.Write(raw)
		w.Close()
	case "lz4":
		w := lz4.NewWriter(&buf)
		w.Write(raw)
		w.Close()
	case "zstd":
		enc, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
		if err != nil {
			t.Fatal(err)
		}
		return enc.EncodeAll(raw, nil)
	case "snappy-raw":
		return snappy.Encode(nil, raw)
	case "snappy-xerial":
		return xerial(raw, 16)
	}
	return buf.Bytes()
}

func TestRecordsCompressed(t *testing.T) {
	bl := NewBuilder(NewBatchHeader(1))
	for _, r := range sampleRecords() {
		bl.AddRecord(r)
	}
	plain := bl.Build()
	raw := plain[HeaderSize:]
	for _, c := range []struct {
		name  string
		codec int8
	}{{"gzip", CodecGzip}, {"snappy-raw", CodecSnappy}, {"snappy-xerial", CodecSnappy}, {"lz4", CodecLZ4}, {"zstd", CodecZstd}} {
		t.Run(c.name, func(t *testing.T) {
			b := compressed(t, plain, c.codec, encode(t, c.name, raw))
			if err := Validate(b); err != nil {
				t.Fatal(err)
			}
			recs, err := b.Records()
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(recs, sampleRecords()) {
				t.Fatalf("Records = %+v", recs)
			}
		})
	}
}

func TestRecordsBoundsDecompression(t *testing.T) {
	bomb := make([]byte, MaxDecompressedSize+1)
	for _, c := range []struct {
		name  string
		codec int8
	}{{"gzip", CodecGzip}, {"zstd", CodecZstd}, {"lz4", CodecLZ4}, {"snappy-xerial", CodecSnappy}} {
		t.Run(c.name, func(t *testing.T) {
			var body []byte
			if c.name == "snappy-xerial" {
				body = xerial(bomb, 1<<20)
			} else {
				body = encode(t, c.name, bomb)
			}
			b := compressed(t, NewBuilder(NewBatchHeader(0)).Add(nil, nil, 0).Build(), c.codec, body)
			_, err := b.Records()
			if !errors.Is(err, ErrTooLarge) && !errors.Is(err, ErrCompression) {
				t.Fatalf("Records of a bomb = %v, want a size error", err)
			}
		})
	}
}

func TestRecordsMalformed(t *testing.T) {
	good := NewBuilder(NewBatchHeader(0)).Add([]byte("k"), []byte("v"), 0).Build()
	cases := []struct {
		name   string
		mutate func(b []byte) []byte
	}{
		{"short", func(b []byte) []byte { return b[:HeaderSize-1] }},
		{"truncated body", func(b []byte) []byte { return b[:len(b)-2] }},
		{"count too high", func(b []byte) []byte { binary.BigEndian.PutUint32(b[offRecordCount:], 2); return b }},
		{"huge count", func(b []byte) []byte { binary.BigEndian.PutUint32(b[offRecordCount:], 1<<30); return b }},
		{"negative count", func(b []byte) []byte { binary.BigEndian.PutUint32(b[offRecordCount:], 0xffffffff); return b }},
		{"bad key length", func(b []byte) []byte { b[HeaderSize+4] = 0x7e; return b }},
		{"unknown codec", func(b []byte) []byte { b[offAttributes+1] |= 7; return b }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := Batch(c.mutate(append([]byte(nil), good...)))
			if _, err := b.Records(); err == nil {
				t.Fatal("Records accepted a malformed batch")
			}
		})
	}
}

func seedCorpus(f *testing.F) {
	bl := NewBuilder(NewBatchHeader(1))
	for _, r := range sampleRecords() {
		bl.AddRecord(r)
	}
	plain := bl.Build()
	f.Add([]byte(plain))
	f.Add([]byte(NewBuilder(NewBatchHeader(0)).Add(nil, nil, 0).Build()))
	for _, c := range []struct {
		name  string
		codec int8
	}{{"gzip", CodecGzip}, {"snappy-xerial", CodecSnappy}, {"lz4", CodecLZ4}, {"zstd", CodecZstd}} {
		f.Add([]byte(compressed(f, plain, c.codec, encode(f, c.name, plain[HeaderSize:]))))
	}
}

func FuzzValidate(f *testing.F) {
	seedCorpus(f)
	f.Fuzz(func(t *testing.T, p []byte) {
		if err := Validate(p); err == nil {
			b := Batch(p)
			_ = b.LastOffset()
			_ = b.LastSequence()
		}
		it := NewIter(p)
		for _, ok := it.Next(); ok; _, ok = it.Next() {
		}
	})
}

func FuzzRecords(f *testing.F) {
	seedCorpus(f)
	f.Fuzz(func(t *testing.T, p []byte) {
		recs, err := Batch(p).Records()
		if err != nil || Batch(p).Compression() != CodecNone {
			return
		}
		// A decodable uncompressed batch re-encodes to the same records.
		h := NewBatchHeader(Batch(p).BaseTimestamp())
		again, err := Batch(AppendBatch(nil, h, recs)).Records()
		if err != nil || len(again) != len(recs) {
			t.Fatalf("re-encoded records: %v (%d vs %d)", err, len(again), len(recs))
		}
	})
}
