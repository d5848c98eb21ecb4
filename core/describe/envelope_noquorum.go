//go:build noquorum

package describe

import "github.com/twmb/franz-go/pkg/kmsg"

// describeEnvelope: the single-broker bundle has no cluster and sees no
// Envelope (envelope.go describes the cluster's).
func describeEnvelope(*kmsg.EnvelopeRequest) string { return "Envelope" }
