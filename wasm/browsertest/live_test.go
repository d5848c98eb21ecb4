package browsertest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestLiveDiagram: /live draws a real client's exchanges with the
// lessons' views (the client a node named by its client.id and address,
// the request and response cards) while it keeps up: its skipped counter
// stays 0.
func TestLiveDiagram(t *testing.T) {
	exe := chromium(t)
	base, srv := gregorServe(t)
	ctx, cancel := chromedp.NewContext(browser(t, exe))
	t.Cleanup(cancel)
	ctx, cancelTimeout := context.WithTimeout(ctx, 2*time.Minute)
	t.Cleanup(cancelTimeout)
	p := &page{t: t, ctx: ctx, base: base}
	p.do(chromedp.Navigate(base + "/live"))
	p.waitText("#state", "Watching")

	cl, err := kgo.NewClient(kgo.SeedBrokers(srv.KafkaAddr().String()), kgo.ClientID("teach-live"),
		kgo.AllowAutoTopicCreation(), kgo.DefaultProduceTopic("live-orders"))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	pctx, pcancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer pcancel()
	for i := range 5 {
		if err := cl.ProduceSync(pctx, &kgo.Record{Value: fmt.Appendf(nil, "v%d", i)}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	p.waitText("#view svg.dg.wide", "teach-live")
	p.waitText("#view .exchanges", "Produce")
	p.waitText("#view .exchanges", "live-orders-0")
	if got := p.count("#view svg.dg.wide .node.broker"); got != 1 {
		t.Errorf("%d broker nodes, want 1", got)
	}
	if got := p.count("#view svg.dg.wide .node.client"); got != 1 {
		t.Errorf("%d client nodes, want 1: a client's connections are one node", got)
	}
	if got := p.text("#view svg.dg.wide"); !strings.Contains(got, "teach-live 127.0.0.1") || !strings.Contains(got, "broker") {
		t.Errorf("the diagram does not name the client's address and the broker: %q", got)
	}
	if s := p.text("#skipped"); s != "0" {
		t.Errorf("the page skipped %s events", s)
	}
	p.shot("live")
}
