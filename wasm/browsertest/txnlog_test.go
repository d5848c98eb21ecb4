package browsertest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestTransactionLogLesson opens the transaction-log lesson where it
// decodes __transaction_state, where the coordinator replays it after a
// restart, and where a cleaned tombstone shows its delete horizon, in
// English and Chinese: each step is the native replay's, the engine's
// lines are on the page as printed, and neither 1280 nor 390 px scrolls
// sideways (the decoded records are long lines).
func TestTransactionLogLesson(t *testing.T) {
	t.Parallel()
	var p *page
	for _, tc := range []struct{ prefix, want string }{
		{"show txn-log shop", "TxnMetadataKey(shop) -> TxnMetadataValue(EMPTY"},
		{"restart b0", "loaded 2 transactional ids from __transaction_state"},
		{"show txn-log export", "TxnMetadataKey(export) -> null (tombstone) delete_horizon="},
	} {
		step := firstCommand(t, "transaction-log", tc.prefix)
		for _, lang := range []string{"en", "zh"} {
			q := fmt.Sprintf("/?lesson=transaction-log&step=%d&lang=%s", step, lang)
			if p == nil {
				p = open(t, q)
				p.reducedMotion(true)
			} else {
				p.do(chromedp.EmulateViewport(1280, 900))
				p.route(q)
			}
			if lang == "en" {
				p.checkStep() // it reads the English page
			}
			p.checkLanguage(lang)
			if got := p.text(".step .output"); !strings.Contains(strings.Join(strings.Fields(got), " "), tc.want) {
				t.Errorf("%s: the output does not show %q:\n%s", q, tc.want, got)
			}
			for _, width := range []int{1280, 390} {
				p.do(chromedp.EmulateViewport(int64(width), 900))
				if over := p.eval(`String(document.documentElement.scrollWidth - window.innerWidth)`); over != "0" && over[0] != '-' {
					t.Errorf("%s at %dpx: the page scrolls sideways by %spx", q, width, over)
				}
				p.shot(fmt.Sprintf("%02d-%s-%dpx", step, lang, width))
			}
		}
	}
}
