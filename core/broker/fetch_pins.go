package broker

import (
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/store"
	"github.com/gregor-kafka/gregor/core/wire"
)

// Zero-copy fetch (issue 23): for a request its driver marked ZeroCopy,
// readFetch leaves the batches a segment file can pin (store.Ranger) in
// the file and holds a store.Span of them here, keyed by the answer,
// until replyThrottled hands them over in Response.Ranged. From then on
// the driver owns them: it sends them (sendfile) and releases each one,
// also when the connection is gone before the answer went out.
//
// # Invariants
//
//   - b.pins is empty whenever Handle or Tick returns: every answer read
//     is either handed over in a Ready, with its pins, or dropped, and an answer that
//     waits (fetch.min.bytes) or is throttled releases its pins at once;
//     a waiting fetch holds none and reads again when it wakes.
//   - A Ranged entry's partition has empty RecordBatches; the entries are
//     in the answer's order (topic, then partition), as the frame wants.

// pin holds span for the answer's partition Topics[t].Partitions[p].
func (b *Broker) pin(resp *kmsg.FetchResponse, t, p int, span store.Span) {
	if b.pins == nil {
		b.pins = map[*kmsg.FetchResponse][]wire.Ranged{}
	}
	b.pins[resp] = append(b.pins[resp], wire.Ranged{Topic: t, Partition: p, Span: span})
}

// takePins hands the pins of resp over to its delivery.
func (b *Broker) takePins(resp *kmsg.FetchResponse) []wire.Ranged {
	ranged, ok := b.pins[resp]
	if ok {
		delete(b.pins, resp)
	}
	return ranged
}

// unpin releases the pins of an answer that is not sent.
func (b *Broker) unpin(resp *kmsg.FetchResponse) { Release(b.takePins(resp)) }

// Release unpins the spans of a Response's Ranged (each a store.Span),
// once the driver sent them or will not (its connection closed, or it
// copied them).
func Release(ranged []wire.Ranged) {
	for _, r := range ranged {
		r.Span.(store.Span).Release()
	}
}
