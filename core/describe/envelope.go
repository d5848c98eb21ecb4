//go:build !noquorum

package describe

import (
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/wire"
)

func init() { describes(describeEnvelope) }

// describeEnvelope names the client's principal, when there is one, and
// the request a broker forwarded in the Envelope (KIP-590).
func describeEnvelope(m *kmsg.EnvelopeRequest) string {
	var p kmsg.DefaultPrincipalData
	who := ""
	if m.RequestPrincipal != nil && p.ReadFrom(m.RequestPrincipal) == nil {
		who = " " + p.Type + ":" + p.Name
	}
	if _, inner, err := wire.ParseForwarded(m.RequestData); err == nil {
		return "Envelope" + who + " [" + message(inner) + "]"
	}
	return "Envelope" + who
}
