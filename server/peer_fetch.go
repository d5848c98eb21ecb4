package server

import (
	"fmt"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/broker"
	"github.com/gregor-kafka/gregor/core/wire"
	"github.com/gregor-kafka/gregor/server/filestore"
)

// A leader's answer to a follower's Fetch (issue 23). The engine marks
// every peer's request ZeroCopy, so the broker answers a replica fetch
// with the batches pinned in their segment files (broker.Response.Ranged)
// rather than copied out of them; the answer's frame is then laid out
// around them (wire.AppendFetchBody) and each range is read with pread(2)
// straight into its place in one pooled buffer, which the peer link gives
// back once written. So a replicated byte is copied once on its way from
// the leader's page cache to the follower's socket, where it was read
// into a fresh buffer and copied again by kmsg's encoding.
//
// Invariants:
//   - Every range is released once its bytes are in the frame, or the
//     answer is given up.
//   - A range that comes up short (its segment was cut since it was
//     pinned: filestore.ErrShort) drops the answer: the follower asks
//     again after its fetch timeout, and never reads a malformed frame.

// answerPeerFetch sends peer the Fetch answer f to its request id, whose
// ranged partitions are pinned in their segments.
func (e *engine) answerPeerFetch(peer int32, id uint64, f *kmsg.FetchResponse, ranged []wire.Ranged) {
	d := e.cl
	l := d.links[peer]
	if l == nil {
		broker.Release(ranged)
		return
	}
	frame, ok, err := peerFetchFrame(d.id, id, f, ranged)
	if !ok {
		// What the laid-out frame does not carry (a diverging epoch's
		// tagged fields): kmsg encodes it, the ranges read (and
		// released) first.
		if err := materialize(f, ranged); err != nil {
			e.logf("answering node %d's fetch: %v (dropped: it asks again)", peer, err)
			return
		}
		e.answerPeer(peer, id, f)
		return
	}
	broker.Release(ranged)
	if err != nil {
		e.logf("answering node %d's fetch: %v (dropped: it asks again)", peer, err)
		return
	}
	l.send(frame)
}

// peerFetchFrame is the type 3 frame answering request id with f, every
// ranged partition's batches read into it; ok is false when f is not one
// wire.AppendFetchBody lays out. The frame is a pooled buffer from
// minPooledFrame up (recycle gives it back).
func peerFetchFrame(from int32, id uint64, f *kmsg.FetchResponse, ranged []wire.Ranged) (frame []byte, ok bool, err error) {
	body, inserts, total, ok := wire.AppendFetchBody(make([]byte, 0, 256), nil, f, ranged)
	if !ok {
		return nil, false, nil
	}
	n := peerHeaderLen + len(body) + total
	if n >= minPooledFrame && n <= maxPooledFrame {
		frame = (*getFrame(n))[:0]
	} else {
		frame = make([]byte, 0, n)
	}
	frame = appendKmsgHeader(frame, frameResp, from, id, false, f.Key(), f.GetVersion())
	at := 0
	for _, in := range inserts {
		frame, at = append(frame, body[at:in.At]...), in.At
		if in.Span == nil {
			frame = append(frame, in.Bytes...)
			continue
		}
		r, isFile := in.Span.(*filestore.Range)
		if !isFile {
			recycle(frame)
			return nil, true, fmt.Errorf("a fetch answer's span is a %T, not a file range", in.Span)
		}
		k := len(frame)
		frame = frame[:k+r.Len()]
		if err := r.ReadInto(frame[k:]); err != nil {
			recycle(frame)
			return nil, true, err
		}
	}
	return finishFrame(append(frame, body[at:]...)), true, nil
}
