package browsertest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/gregor-kafka/gregor/lessons/play"
	"github.com/gregor-kafka/gregor/server"
)

// openLive serves a broker and opens its /live, connected.
func openLive(t *testing.T) (*page, *server.Server) {
	t.Helper()
	exe := chromium(t)
	base, srv := gregorServe(t)
	ctx, cancel := chromedp.NewContext(browser(t, exe), chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx); err != nil { // the tab, made on its own context (see tab)
		t.Fatal(err)
	}
	p := &page{t: t, ctx: ctx, base: base}
	p.do(chromedp.Navigate(base + "/live"))
	p.waitText("#state", "Watching")
	return p, srv
}

// TestLiveDiagram: /live draws a real client's exchanges with the
// lessons' views (the client a node named by its client.id and address,
// the request and response cards) while it keeps up: its skipped counter
// stays 0; beside them the broker's partitions as the state panel draws
// them. Saved, the trace opens in the playground, one exchange a step,
// drawn the same way.
func TestLiveDiagram(t *testing.T) {
	t.Parallel()
	p, srv := openLive(t)

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
	// The broker's partition, as the lessons' state panel draws it: five
	// records, all below the high watermark.
	p.waitText(`#view .state section[data-partition="live-orders-0"] .leo dd`, "5")
	p.waitText("#view svg.dg.wide", "leader live-orders-0")
	if hw := p.text(`#view .state section[data-partition="live-orders-0"] .hw dd`); hw != "5" {
		t.Errorf("live-orders-0's high watermark shows %q, want 5", hw)
	}
	if s := p.text("#skipped"); s != "0" {
		t.Errorf("the page skipped %s events", s)
	}
	p.shot("live")

	// Save the trace, and step through it in the playground.
	p.click("#save")
	if _, err := chromedp.Run(p.ctx, chromedp.Poll[bool](`!!window.gregorLastTrace`, chromedp.WithPollingTimeout(waitTimeout))); err != nil {
		t.Fatalf("no trace saved: %v", err)
	}
	saved := p.eval(`window.gregorLastTrace`)
	tr, err := play.ParseTrace([]byte(saved))
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "trace.json")
	if err := os.WriteFile(file, []byte(saved), 0o644); err != nil {
		t.Fatal(err)
	}
	p.load("/?trace=1")
	p.waitText("main", "No trace open")
	p.do(chromedp.SetUploadFiles(chromedp.CSS("#tracefile"), []string{file}))
	total := len(tr.Steps)
	if total < 8 {
		t.Fatalf("the trace holds %d exchanges, want the 8 or more the client had", total)
	}
	for n := 1; n <= total; n++ {
		if n > 1 {
			p.click("#next")
		}
		p.waitText("#pos", fmt.Sprintf("Step %d of %d", n, total))
		want := tr.Steps[n-1].Exchange
		if got := p.text(".step .exchanges td.req .api"); want.Req != nil && got != want.Req.Msg.API {
			t.Errorf("trace step %d shows %q, want %s", n, got, want.Req.Msg.API)
		}
		if got := p.count("figure.diagram svg.dg.wide .node.client"); got != 1 {
			t.Errorf("trace step %d: %d client nodes", n, got)
		}
		if want.Req != nil && want.Req.Msg.API == "Produce" {
			p.waitText(".step .exchanges", "live-orders-0")
			if st := tr.Steps[n-1].World.Brokers[0].Partitions; len(st) > 0 {
				p.waitText(`.state section[data-partition="live-orders-0"]`, "live-orders-0")
			}
			p.shot("trace")
			break
		}
	}
}

// TestLiveGroupsAndTxns: with /live open, a transactional producer and a
// consumer in a group show on the broker's state panel as the lessons
// draw them: the transaction Ongoing with its partitions, then
// CompleteCommit, its batch a cell (open, then committed, with the
// COMMIT marker after it); the group Stable, its member owning both partitions.
func TestLiveGroupsAndTxns(t *testing.T) {
	t.Parallel()
	p, srv := openLive(t)

	const topic = "live-pay"
	seeds := kgo.SeedBrokers(srv.KafkaAddr().String())
	pr, err := kgo.NewClient(seeds, kgo.ClientID("teach-txn"), kgo.TransactionalID("pay-app"),
		kgo.AllowAutoTopicCreation(), kgo.DefaultProduceTopic(topic), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	kctx, kcancel := context.WithTimeout(context.Background(), time.Minute)
	defer kcancel()
	if err := pr.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	if err := pr.ProduceSync(kctx, &kgo.Record{Value: []byte("paid")}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	txn := `#view .state .txns [data-txn="pay-app"]`
	p.waitText(txn, "live-pay-0")
	if st := p.eval(fmt.Sprintf(`document.querySelector(%q).dataset.state`, txn)); st != "Ongoing" {
		t.Errorf("the open transaction is drawn %q", st)
	}
	// The panel is drawn from a snapshot at most every 400 ms: the one
	// that showed the partition in the transaction may predate its batch.
	cells := `#view .state section[data-partition="live-pay-0"] .cells`
	p.poll(fmt.Sprintf(`document.querySelectorAll(%q).length === 1`, cells+` li[data-kind="open"]`), "one open transactional batch drawn")
	p.shot("txn-open")
	if err := pr.EndTransaction(kctx, kgo.TryCommit); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(p.ctx, chromedp.Poll[bool](fmt.Sprintf(`document.querySelector(%q)?.dataset.state === "CompleteCommit"`, txn),
		chromedp.WithPollingTimeout(waitTimeout))); err != nil {
		t.Errorf("the committed transaction is drawn %q", p.eval(fmt.Sprintf(`document.querySelector(%q).dataset.state`, txn)))
	}
	p.waitText(cells+` li[data-kind="commit"]`, "C")
	if got := p.count(cells + ` li[data-kind="txn"]`); got != 1 {
		t.Errorf("%d committed transactional batches drawn, want 1", got)
	}

	cl, err := kgo.NewClient(seeds, kgo.ClientID("teach-group"), kgo.ConsumerGroup("pay-shop"), kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if fs := cl.PollFetches(kctx); fs.Err0() != nil || fs.NumRecords() != 1 {
		t.Fatalf("the group consumer read %d records: %v", fs.NumRecords(), fs.Err0())
	}
	group := `#view .state .groups [data-group="pay-shop"]`
	p.waitText(group+" .machine li.here", "Stable")
	p.waitText(group+` .grid [data-partition="live-pay-0"]`, "teach-group")
	if got := p.count(group + " .members li.member"); got != 1 {
		t.Errorf("the group shows %d members, want 1", got)
	}
	p.eval(fmt.Sprintf(`document.querySelector(%q).scrollIntoView({block: "center"}), ""`, group))
	p.shot("group")
}
