package wire

import (
	"encoding/binary"
	"errors"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// frameOf encodes a request as a client would, without the size prefix.
func frameOf(req kmsg.Request, corr int32, clientID string) []byte {
	var b []byte
	b = binary.BigEndian.AppendUint16(b, uint16(req.Key()))
	b = binary.BigEndian.AppendUint16(b, uint16(req.GetVersion()))
	b = binary.BigEndian.AppendUint32(b, uint32(corr))
	b = binary.BigEndian.AppendUint16(b, uint16(len(clientID)))
	b = append(b, clientID...)
	if req.IsFlexible() {
		b = append(b, 0)
	}
	return req.AppendTo(b)
}

func TestParseRequestRoundTrip(t *testing.T) {
	meta := kmsg.NewPtrMetadataRequest()
	topic := "orders"
	meta.Topics = []kmsg.MetadataRequestTopic{{Topic: &topic}}
	for _, v := range []int16{0, 4, 9, 12} { // v9+ is flexible (KIP-482)
		meta.SetVersion(v)
		h, req, err := ParseRequest(frameOf(meta, 42, "cli"))
		if err != nil {
			t.Fatalf("v%d: %v", v, err)
		}
		if h.CorrelationID != 42 || h.ClientID != "cli" || h.Key != 3 || h.Version != v {
			t.Fatalf("v%d: header %+v", v, h)
		}
		got := req.(*kmsg.MetadataRequest)
		if len(got.Topics) != 1 || *got.Topics[0].Topic != "orders" {
			t.Fatalf("v%d: topics %+v", v, got.Topics)
		}
	}
}

func TestParseRequestErrors(t *testing.T) {
	av := kmsg.NewPtrApiVersionsRequest()
	av.SetVersion(3)
	good := frameOf(av, 7, "x")
	tooNew := append([]byte(nil), good...)
	binary.BigEndian.PutUint16(tooNew[2:], 99)
	unknown := append([]byte(nil), good...)
	binary.BigEndian.PutUint16(unknown[0:], 9999)
	cases := []struct {
		name  string
		frame []byte
		want  error
	}{
		{"empty", nil, ErrShortHeader},
		{"client id past end", []byte{0, 18, 0, 3, 0, 0, 0, 1, 0, 50, 'a'}, ErrShortHeader},
		{"bad tags", append(good[:11:11], 0xff), ErrBadTags},
		{"body cut", good[:len(good)-2], ErrBody},
	}
	for _, c := range cases {
		if _, _, err := ParseRequest(c.frame); !errors.Is(err, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, err, c.want)
		}
	}
	for _, f := range [][]byte{tooNew, unknown} {
		h, _, err := ParseRequest(f)
		var verr *VersionError
		if !errors.As(err, &verr) || h.CorrelationID != 7 {
			t.Errorf("version error: got %v, header %+v", err, h)
		}
	}
}

func TestAppendResponseHeader(t *testing.T) {
	av := kmsg.NewPtrApiVersionsResponse()
	av.SetVersion(3) // flexible body, but a v0 response header (KIP-511)
	frame := AppendResponse(nil, 5, av)
	if got := int(binary.BigEndian.Uint32(frame)); got != len(frame)-4 {
		t.Fatalf("size prefix %d, frame %d", got, len(frame)-4)
	}
	body := kmsg.NewPtrApiVersionsResponse()
	body.SetVersion(3)
	if err := body.ReadFrom(frame[8:]); err != nil {
		t.Fatalf("ApiVersions body must follow the correlation id directly: %v", err)
	}
	md := kmsg.NewPtrMetadataResponse()
	md.SetVersion(9)
	frame = AppendResponse(nil, 5, md)
	if frame[8] != 0 {
		t.Fatalf("flexible response must carry an empty tag section")
	}
	if e := AppendErrorOnly(nil, 9, 35); len(e) != 10 || binary.BigEndian.Uint32(e) != 6 {
		t.Fatalf("error-only frame % x", e)
	}
}

// FuzzParseRequest: no input may panic the decoder.
func FuzzParseRequest(f *testing.F) {
	for _, req := range []kmsg.Request{kmsg.NewPtrApiVersionsRequest(), kmsg.NewPtrMetadataRequest(), kmsg.NewPtrProduceRequest(), kmsg.NewPtrFetchRequest()} {
		for _, v := range []int16{0, req.MaxVersion()} {
			req.SetVersion(v)
			f.Add(frameOf(req, 1, "seed"))
		}
	}
	f.Fuzz(func(t *testing.T, frame []byte) {
		h, req, err := ParseRequest(frame)
		if err == nil && (req == nil || req.Key() != h.Key) {
			t.Fatalf("parsed without a request: %+v", h)
		}
	})
}
