package browsertest

import (
	"fmt"
	"strings"
	"testing"
)

// TestEnvelopeStep: the reassignment lesson's first move, where broker
// b0 forwards the admin's request to the controller in an Envelope
// (KIP-590), shows the Envelope and the request it carries.
func TestEnvelopeStep(t *testing.T) {
	t.Parallel()
	n := firstCommand(t, "reassignment", "reassign ")
	// The step asks a question first; answers=N:0 is "Show me".
	p := open(t, fmt.Sprintf("/?lesson=reassignment&step=%d&answers=%d:0", n, n))
	defer p.shot("envelope")
	p.checkStep()
	page := p.text("body")
	for _, want := range []string{"Envelope [AlterPartitionAssignments orders-0 replicas=[1 4 0]]", "Envelope, KIP-590"} {
		if !strings.Contains(page, want) {
			t.Errorf("the reassign step lacks %q", want)
		}
	}
}
