package describe

import "github.com/twmb/franz-go/pkg/kmsg"

// Envelope (key 58, KIP-590), the answer: the forwarded answer inside is
// read by the forwarding broker and passed on to its client, where it is
// described. The request is described where clusters are built
// (envelope.go); the single-broker bundle sees none and names it
// generically.
func init() { describes(envelopeResponse) }

func envelopeResponse(m *kmsg.EnvelopeResponse) string {
	return "Envelope answer" + errField(m.ErrorCode)
}
