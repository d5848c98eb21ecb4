package ui_test

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/gregor-kafka/gregor/lessons/play"
	"github.com/gregor-kafka/gregor/ui"
)

// render is the page the server renders for a query, as the browser gets
// it before the wasm starts.
func render(t *testing.T, query string) string {
	t.Helper()
	var sb strings.Builder
	if err := ui.Lesson(play.Parse(query).Page()).Render(context.Background(), &sb); err != nil {
		t.Fatal(err)
	}
	return sb.String()
}

var partitionEl = regexp.MustCompile(`<section class="partition[^"]*" data-partition="([^"]+)"`)

func partitions(html string) []string {
	var out []string
	for _, m := range partitionEl.FindAllStringSubmatch(html, -1) {
		out = append(out, m[1])
	}
	return out
}

// The internal topics' 50 partitions used to fill the panel: only those
// holding data are drawn now, and the rest are counted in one line.
func TestStateLeavesOutEmptyInternalPartitions(t *testing.T) {
	for _, c := range []struct {
		query string
		want  string
	}{
		{"lesson=transactions&step=6", "[__transaction_state-1 orders-0 orders-1]"},
		// Three brokers, b1 down: b0 and b2 each hold a replica of each.
		{"lesson=coordinator-failover&step=15", "[__transaction_state-1 orders-0 orders-1 __transaction_state-1 orders-0 orders-1]"},
	} {
		html := render(t, c.query)
		if got := "[" + strings.Join(partitions(html), " ") + "]"; got != c.want {
			t.Errorf("%s draws partitions %s, want %s", c.query, got, c.want)
		}
		if !strings.Contains(html, "empty partitions not shown") {
			t.Errorf("%s does not say it left partitions out", c.query)
		}
		if strings.Contains(html, "__transaction_state-0/") || strings.Contains(html, "__transaction_state-2/") {
			t.Errorf("%s lists the files of empty internal partitions", c.query)
		}
	}
}

func TestStateDrawsCellsAndTransaction(t *testing.T) {
	html := render(t, "lesson=transactions&step=13")
	for _, want := range []string{
		`data-txn="app" data-state="CompleteCommit"`,
		`data-offset="0" data-kind="txn"`, `data-offset="1" data-kind="commit"`,
		`<span class="g" aria-hidden="true">C</span>`, // the marker has a glyph, not only a colour
		`<span class="ts ts-d here">● CompleteCommit</span>`,
		`data-producer="p1"`, "orders-0→1",
		`<span class="role leader"`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("transactions step 13 lacks %s", want)
		}
	}
}

// owned is the text of the assignment grid's cell for partition tp, and
// its classes.
func owned(html, tp string) (class, text string) {
	m := regexp.MustCompile(`<li class="(own[^"]*)" data-partition="` + tp + `">(.*?)</li>`).FindStringSubmatch(html)
	if m == nil {
		return "", ""
	}
	return m[1], strings.Join(strings.Fields(regexp.MustCompile(`<[^>]+>`).ReplaceAllString(m[2], " ")), " ")
}

func TestStateDrawsGroupGrid(t *testing.T) {
	html := render(t, "lesson=consumer-groups&step=19")
	if !strings.Contains(html, `data-group="shop"`) || !strings.Contains(html, `<li class="here" aria-current="true">● Stable</li>`) {
		t.Error("consumer-groups step 19 lacks the group in state Stable")
	}
	for _, c := range []struct{ tp, class, text string }{
		{"orders-0", "own c0", "orders-0 C1"},
		{"orders-2", "own c0 moved", "orders-2 C1 ↻ was C2"},
		{"orders-3", "own c1 moved", "orders-3 C3 ↻ was C2"},
		{"orders-5", "own c1", "orders-5 C3"},
	} {
		if class, text := owned(html, c.tp); class != c.class || text != c.text {
			t.Errorf("grid cell %s: class %q text %q, want %q %q", c.tp, class, text, c.class, c.text)
		}
	}
}

func TestStateDrawsLookup(t *testing.T) {
	html := render(t, "lesson=segments&step=8&answers=8:0") // answered: step 8 asks a question
	for _, want := range []string{
		`data-lookup="offset 7"`, `<li class="probed chosen">▸ 7→222</li>`,
		`data-offset="7" data-kind="data"`, "★ found",
	} {
		if !strings.Contains(html, want) {
			t.Errorf("segments step 8 lacks %s", want)
		}
	}
	if html := render(t, "lesson=segments&step=9"); strings.Contains(html, "data-lookup") || strings.Contains(html, "★ found") {
		t.Error("segments step 9 still marks step 8's lookup")
	}
}

// A move in progress marks its adding and removing replicas (KIP-455).
func TestStateMarksReassignment(t *testing.T) {
	html := render(t, "lesson=reassignment&step=20")
	for _, want := range []string{`<small>out of ISR, adding</small>`, `<small>removing</small>`} {
		if !strings.Contains(html, want) {
			t.Errorf("reassignment step 20 lacks %s", want)
		}
	}
	if strings.Contains(render(t, "lesson=reassignment&step=22"), "adding<") {
		t.Error("reassignment step 22 (cancelled) still marks a move")
	}
}

// A broker that stopped through a controlled shutdown reads as stopped,
// in the diagram and in the state panel, not as crashed.
func TestStateStoppedBroker(t *testing.T) {
	html := render(t, "lesson=controlled-shutdown-and-racks&step=5")
	for _, want := range []string{"Stopped by a controlled shutdown", ">stopped<"} {
		if !strings.Contains(html, want) {
			t.Errorf("controlled-shutdown-and-racks step 5 lacks %s", want)
		}
	}
	if strings.Contains(html, "Crashed. Its storage") {
		t.Error("the stopped b1 reads as crashed")
	}
}
