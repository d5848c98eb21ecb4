package browsertest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/gregor-kafka/gregor/core/cluster"
	"github.com/gregor-kafka/gregor/server"
	"github.com/gregor-kafka/gregor/server/cli"
)

// consolePrincipal is who the console acts as in TestConsole: allowed
// everything on the topics named shop-*, to create topics and describe
// the cluster, to describe topic secret and transactional id
// console-txn; nothing on any other topic.
const consolePrincipal = "User:alice"

// TestConsole drives /console on a broker with an authorizer on, as an
// operator would, and checks it against the command line and the
// clients: a topic created from the console is in `gregor topic list`; a
// group's lag on the console and in `gregor group describe` is what was
// produced minus what was committed; the record browser shows exactly
// the records produced, in order; a topic the console's principal may
// describe but not read is refused its records, one it may not describe
// its page; a transaction left open shows as open (its record at
// read_uncommitted, not at read_committed), then as committed; a record
// larger than the topic allows is refused with why; and at 390 px, in
// English and Chinese, no page scrolls sideways, cuts a table off or
// repeats its title in a section heading.
func TestConsole(t *testing.T) {
	t.Parallel()
	exe := chromium(t)
	base, srv := gregorServeWith(t, server.Config{
		Authorizer:       &cluster.Authorizer{SuperUsers: []string{"User:ANONYMOUS"}}, // the test's own clients
		ConsolePrincipal: consolePrincipal,
	})
	kafka := srv.KafkaAddr().String()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cl, err := kgo.NewClient(kgo.SeedBrokers(kafka), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	allow := []*kadm.ACLBuilder{
		kadm.NewACLs().Allow(consolePrincipal).AllowHosts().Topics("shop-").ResourcePatternType(kadm.ACLPatternPrefixed).Operations(kadm.OpAll),
		kadm.NewACLs().Allow(consolePrincipal).AllowHosts().Clusters().Operations(kadm.OpCreate, kadm.OpDescribe),
		kadm.NewACLs().Allow(consolePrincipal).AllowHosts().TransactionalIDs("console-txn").Topics("secret").Operations(kadm.OpDescribe),
	}
	for _, b := range allow {
		if _, err := adm.CreateACLs(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := adm.CreateTopics(ctx, 1, 1, nil, "secret", "hidden"); err != nil {
		t.Fatal(err)
	}

	ctxTab, cancelTab := chromedp.NewContext(browser(t, exe), chromedp.WithNewBrowserContext())
	t.Cleanup(cancelTab)
	if err := chromedp.Do(ctxTab); err != nil {
		t.Fatal(err)
	}
	p := &page{t: t, ctx: ctxTab, base: base}
	p.do(chromedp.EmulateViewport(1280, 900))
	p.do(chromedp.Navigate(base + "/console"))
	p.waitText(".console-bar .who", "acting as "+consolePrincipal)

	// A topic created from the console is the cluster's.
	p.createTopic("shop-orders", 2, "")
	if out := runCLI(t, "topic", "list", "-X", "brokers="+kafka); !strings.Contains(out, "shop-orders") {
		t.Errorf("gregor topic list does not list the topic the console created:\n%s", out)
	}

	// Five records on partition 0; the group commits two of them.
	var produced []string
	for i := range 5 {
		r := &kgo.Record{Topic: "shop-orders", Partition: 0, Key: fmt.Appendf(nil, "k%d", i), Value: fmt.Appendf(nil, `{"n":%d}`, i),
			Headers: []kgo.RecordHeader{{Key: "trace", Value: fmt.Appendf(nil, "t%d", i)}}}
		if err := cl.ProduceSync(ctx, r).FirstErr(); err != nil {
			t.Fatal(err)
		}
		produced = append(produced, fmt.Sprintf("%d k%d %s t%d", i, i, r.Value, i))
	}
	const committed = 2
	commit := kadm.Offsets{}
	commit.Add(kadm.Offset{Topic: "shop-orders", Partition: 0, At: committed, LeaderEpoch: -1})
	if err := adm.CommitAllOffsets(ctx, "billing", commit); err != nil {
		t.Fatal(err)
	}
	p.do(chromedp.Navigate(base + "/console/groups/billing"))
	want := fmt.Sprint(len(produced) - committed)
	if got := p.text(`tr[data-partition="shop-orders-0"] .lag`); got != want {
		t.Errorf("the console shows lag %q on shop-orders-0, want %s (%d produced, %d committed)", got, want, len(produced), committed)
	}
	var described []struct {
		TotalLag   int64 `json:"total_lag"`
		Partitions []struct {
			Topic     string `json:"topic"`
			Partition int32  `json:"partition"`
			Lag       int64  `json:"lag"`
		} `json:"partitions"`
	}
	if err := json.Unmarshal([]byte(runCLI(t, "group", "describe", "billing", "--format", "json", "-X", "brokers="+kafka)), &described); err != nil || len(described) != 1 {
		t.Fatalf("gregor group describe --format json: %v", err)
	}
	if got := fmt.Sprint(described[0].TotalLag); got != want || p.eval(`document.querySelector("[data-total-lag]").dataset.totalLag`) != want {
		t.Errorf("total lag: gregor group describe says %s, the console %s, want %s", got, p.eval(`document.querySelector("[data-total-lag]").dataset.totalLag`), want)
	}
	p.shot("group")

	// The record browser shows the records produced, in order, and no
	// others.
	p.do(chromedp.Navigate(base + "/console/topics/shop-orders/0?from=0&n=10"))
	shown := p.eval(`[...document.querySelectorAll(".record")].map(r => r.dataset.offset + " " + r.querySelector(".key").textContent + " " + r.querySelector(".value").textContent + " " + r.querySelector(".header").textContent).join("\n")`)
	if shown != strings.Join(produced, "\n") {
		t.Errorf("the record browser shows\n%s\nwant\n%s", shown, strings.Join(produced, "\n"))
	}
	p.do(chromedp.Navigate(base + "/console/topics/shop-orders/0?from=3&n=10&format=hex"))
	if got := p.text(`.record[data-offset="3"] .value`); got != fmt.Sprintf("%x", `{"n":3}`) {
		t.Errorf("offset 3's value in hex reads %q", got)
	}
	p.do(chromedp.Navigate(base + "/console/topics/shop-orders/0?from=soon"))
	p.waitText(".problem", `"soon" is not an offset`)

	// A topic the console's principal may not read is refused.
	p.do(chromedp.Navigate(base + "/console/topics/secret/0?from=0"))
	p.waitText("[data-refused]", "Refused: "+consolePrincipal+" may not read topic \"secret\"")
	if !strings.Contains(p.text("[data-refused]"), "TOPIC_AUTHORIZATION_FAILED") {
		t.Errorf("the refusal does not name Kafka's error: %q", p.text("[data-refused]"))
	}
	p.shot("refused")
	// One it may not even describe is neither listed nor shown.
	p.do(chromedp.Navigate(base + "/console/topics/hidden/0?from=0"))
	p.waitText(".problem", "Refused: "+consolePrincipal+" may not describe topic \"hidden\"")
	if p.count(".state") != 0 {
		t.Errorf("the partition's state is drawn for a topic the console may not describe")
	}

	// A transaction left open shows as open, then as committed.
	txc, err := kgo.NewClient(kgo.SeedBrokers(kafka), kgo.TransactionalID("console-txn"), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer txc.Close()
	if err := txc.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	if err := txc.ProduceSync(ctx, &kgo.Record{Topic: "shop-orders", Partition: 1, Value: []byte("pending")}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	p.do(chromedp.Navigate(base + "/console/topics/shop-orders/1?from=0"))
	p.waitText(".open-txns", "Open transactions: 1, holding the LSO at 0.")
	if p.count(`.cells [data-kind="open"]`) != 1 || p.text(`.txn[data-txn="console-txn"]`) == "" {
		t.Errorf("the open transaction's batch is not drawn open, or its coordinator's state is missing")
	}
	if p.count(`.record[data-offset="0"]`) != 1 || p.count(`.record[data-offset="0"] [data-txn-state="open"]`) != 1 {
		t.Errorf("at read_uncommitted the open transaction's record is not shown, or not marked open")
	}
	p.shot("txn-open")
	// Chosen in the form, read_committed stops at the LSO: nothing yet.
	p.submit(`const f = document.getElementById("browse"); f.elements.isolation.value = "read_committed"; f.requestSubmit();`)
	p.waitText(".records", "read_committed: up to the last stable offset, 0")
	if p.count(".record") != 0 || p.eval(`document.getElementById("browse").elements.isolation.value`) != "read_committed" {
		t.Errorf("at read_committed the open transaction's record is shown, or the form forgot the isolation")
	}
	p.do(chromedp.EmulateViewport(390, 844))
	p.do(chromedp.Navigate(base + "/console/topics/shop-orders/1?from=0&lang=zh"))
	p.waitText("h1", "分区")
	if over := p.eval(`String(document.documentElement.scrollWidth - document.documentElement.clientWidth)`); over != "0" {
		t.Errorf("at 390 px the partition's page scrolls %s px sideways", over)
	}
	p.shot("txn-open-phone-zh")
	p.do(chromedp.EmulateViewport(1280, 900))
	if err := txc.EndTransaction(ctx, kgo.TryCommit); err != nil {
		t.Fatal(err)
	}
	p.do(chromedp.Navigate(base + "/console/topics/shop-orders/1?from=0"))
	p.waitText(".open-txns", "No transaction is open")
	if p.count(`.cells [data-kind="txn"]`) != 1 || p.count(`.cells [data-kind="commit"]`) != 1 {
		t.Errorf("after the commit the batch is not drawn committed with its COMMIT marker")
	}
	if p.count(`.record[data-offset="0"] [data-txn-state="committed"]`) != 1 {
		t.Errorf("after the commit the record browser does not mark its record committed")
	}

	// A test record from the form; one larger than its topic allows is
	// refused with the limit.
	p.produce("shop-orders", 1, "from-the-form")
	p.waitText(".notice", "Produced a record at offset 2")
	p.waitText(`.record[data-offset="2"] .value`, "from-the-form")
	p.do(chromedp.Navigate(base + "/console"))
	p.createTopic("shop-small", 1, "max.message.bytes=200")
	p.waitText(`tr[data-config="max.message.bytes"]`, "DYNAMIC_TOPIC_CONFIG")
	p.produce("shop-small", 0, strings.Repeat("x", 300))
	p.waitText(".problem", "larger than topic \"shop-small\" allows")
	p.waitText(".problem", "max.message.bytes is 200")
	p.shot("too-large")
	// A share group's member and its assignment.
	sc, err := kgo.NewClient(kgo.SeedBrokers(kafka), kgo.ShareGroup("pickers"), kgo.ConsumeTopics("shop-orders"), kgo.ClientID("picker-1"))
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	pctx, pcancel := context.WithCancel(ctx)
	defer pcancel()
	go sc.PollRecords(pctx, 1) // joins the group
	p.poll(`(() => { const x = new XMLHttpRequest(); x.open("GET", "/console", false); x.send(); return x.responseText.includes("picker-1"); })()`, "the share group's member on /console")
	p.do(chromedp.Navigate(base + "/console"))
	p.waitText(`[data-txn="console-txn"]`, "console-txn")
	if got := p.text(`tr[data-share-group="pickers"]`); !strings.Contains(got, "picker-1") || !strings.Contains(got, "shop-orders-0") {
		t.Errorf("the share group's row reads %q, want its member picker-1 and its partitions", got)
	}
	if p.count(`tr[data-topic="secret"]`) != 1 || p.count(`tr[data-topic="hidden"]`) != 0 {
		t.Errorf("the home page lists the topics the console may describe and only those: secret %d, hidden %d", p.count(`tr[data-topic="secret"]`), p.count(`tr[data-topic="hidden"]`))
	}
	p.shot("home")
	p.do(chromedp.EmulateViewport(390, 844))
	p.do(chromedp.Reload())
	p.waitText(`[data-txn="console-txn"]`, "console-txn")
	if over := p.eval(`String(document.documentElement.scrollWidth - document.documentElement.clientWidth)`); over != "0" {
		t.Errorf("at 390 px the console's home scrolls %s px sideways", over)
	}
	p.shot("home-phone")

	// Every page at 390 px, in English and in Chinese: none scrolls
	// sideways nor cuts a table off, and the Chinese one has no English
	// left in its headings.
	for _, lang := range []string{"en", "zh"} {
		for _, pg := range []struct{ name, path, open string }{
			{"home", "/console", ""},
			{"topic", "/console/topics/shop-orders", ""},
			{"records", "/console/topics/shop-orders/0?from=0&n=10&isolation=read_committed", ""},
			{"group", "/console/groups/billing", ""},
			{"produce", "/console/topics/shop-orders/1", "details.produce"},
		} {
			sep := "?"
			if strings.Contains(pg.path, "?") {
				sep = "&"
			}
			p.do(chromedp.Navigate(base + pg.path + sep + "lang=" + lang))
			p.waitText("h1", "")
			if pg.open != "" {
				p.eval(`document.querySelector("` + pg.open + `").open = true, ""`)
			}
			if over := p.eval(`String(document.documentElement.scrollWidth - document.documentElement.clientWidth)`); over != "0" {
				t.Errorf("at 390 px the %s page in %s scrolls %s px sideways", pg.name, lang, over)
			}
			// A table scrolls within itself (overflow-x) rather than the
			// page: none may need to, or a column is cut off at the edge.
			if cut := p.eval(`[...document.querySelectorAll("table")].filter(t => t.scrollWidth > t.clientWidth).map(t => t.closest("section")?.className || t.className).join(", ")`); cut != "" {
				t.Errorf("at 390 px the %s page in %s cuts off a table's columns: %s", pg.name, lang, cut)
			}
			// A section's heading names the section, not the page again.
			if dup := p.eval(`(() => { const h1 = document.querySelector("h1").textContent.trim(); return [...document.querySelectorAll("h2")].map(h => h.firstChild?.textContent.trim()).filter(s => s === h1).join(" | ") })()`); dup != "" {
				t.Errorf("the %s page in %s repeats its title %q in a section heading", pg.name, lang, dup)
			}
			if lang == "zh" {
				if en := p.eval(`[...document.querySelectorAll("h1, h2, th, summary, label")].map(e => e.textContent).filter(s => /\b(the|of|on|this|records|partition|topic|group)\b/i.test(s)).join(" | ")`); en != "" {
					t.Errorf("the %s page in Chinese still reads in English: %s", pg.name, en)
				}
			}
			p.shot("phone-" + lang + "-" + pg.name)
		}
	}
}

// createTopic fills in and sends the console's form for a new topic,
// and waits for the topic's page.
func (p *page) createTopic(name string, partitions int, configs string) {
	p.t.Helper()
	p.submit(fmt.Sprintf(`const f = document.getElementById("create-topic"); f.closest("details").open = true;
		const e = f.elements; e.name.value = %q; e.partitions.value = "%d"; e.configs.value = %q; f.requestSubmit();`, name, partitions, configs))
	p.waitText(".notice", "Created topic "+name)
}

// submit runs js, which sends a form, and waits for the page it leads
// to: the old page is marked, and the wait ends once a page without the
// mark has loaded (a wait under way when the page goes is asked again).
func (p *page) submit(js string) {
	p.t.Helper()
	p.eval(`(() => { document.documentElement.dataset.sent = "1"; ` + js + ` return ""; })()`)
	const loaded = `!document.documentElement.dataset.sent && document.readyState === "complete"`
	for range 10 {
		if _, err := chromedp.Run(p.ctx, chromedp.Poll[bool](loaded, chromedp.WithPollingTimeout(waitTimeout))); err == nil {
			return
		} else if !strings.Contains(err.Error(), "navigated or closed") && !strings.Contains(err.Error(), "Cannot find context") {
			p.t.Fatalf("waiting for the page after a form: %v (%s)", err, p.seen())
		}
	}
	p.t.Fatalf("the page after a form did not load (%s)", p.seen())
}

// produce sends the console's produce form on a partition's page.
func (p *page) produce(topic string, partition int, value string) {
	p.t.Helper()
	p.do(chromedp.Navigate(fmt.Sprintf("%s/console/topics/%s/%d", p.base, topic, partition)))
	p.submit(fmt.Sprintf(`const f = document.getElementById("produce"); f.elements.value.value = %q; f.requestSubmit();`, value))
}

// runCLI runs the gregor command line in-process and returns its output;
// the test fails if it exits other than 0.
func runCLI(t *testing.T, args ...string) string {
	t.Helper()
	var out, errs bytes.Buffer
	if code := cli.Run(args, strings.NewReader(""), &out, &errs); code != 0 {
		t.Fatalf("gregor %s: exit %d: %s", strings.Join(args, " "), code, errs.String())
	}
	return out.String()
}
