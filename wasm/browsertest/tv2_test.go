package browsertest

import (
	"fmt"
	"strings"
	"testing"
)

// TestTransactionVersion2Step: in the zombie-fencing lesson, after c's
// EndTxn v5 (transaction version 2) the next step shows c at the bumped
// epoch, in English and in Chinese.
func TestTransactionVersion2Step(t *testing.T) {
	t.Parallel()
	n := firstCommand(t, "zombie-fencing", "commit c") + 1 // begin c: no question hides it
	p := open(t, fmt.Sprintf("/?lesson=zombie-fencing&step=%d", n))
	p.checkStep()
	body := p.text("body")
	// The producer's card and the coordinator's state, both at epoch 1,
	// and both on transaction version 2.
	for _, want := range []string{"tv=2 pid=1 epoch=1", "app2 pid 1, epoch 1", "transaction version 2"} {
		if !strings.Contains(body, want) {
			t.Errorf("step %d lacks %q", n, want)
		}
	}
	p.shot("tv2-en")
	p.route(fmt.Sprintf("/?lesson=zombie-fencing&step=%d&lang=zh", n))
	p.checkLanguage("zh")
	p.shot("tv2-zh")
}
