package browsertest

import (
	"encoding/json"
	"fmt"
	"testing"
)

// morphJS checks index.html's gregorMorph on pairs of markups: each pair
// is morphed in a detached element, which must then hold exactly the
// second markup (its serialization equal to a fresh parse of it, the open
// state of details[data-keep] aside, which the morph keeps on purpose).
// It returns one line per pair that came out wrong.
const morphJS = `((pairs) => {
  const norm = (el) => {
    el.querySelectorAll("details[data-keep]").forEach(d => d.removeAttribute("open"));
    return el.innerHTML;
  };
  const want = (html) => { const d = document.createElement("div"); d.innerHTML = html; return norm(d); };
  const bad = [];
  pairs.forEach(([a, b], i) => {
    const el = document.createElement("div");
    el.innerHTML = a;
    gregorMorph(el, b);
    if (norm(el) !== want(b)) bad.push(i + ": " + JSON.stringify(a).slice(0, 80) + " -> " + JSON.stringify(b).slice(0, 80) + " gave " + JSON.stringify(norm(el)).slice(0, 160));
  });
  return bad.join("\n");
})`

// TestMorph: the page's morph turns any markup into any other. Handmade
// cases first (a part inserted above the rest, one removed, a kind
// changed, the diagram and form controls replaced), then the steps of two
// lessons as the page showed them, morphed into each other forward,
// backward and across.
func TestMorph(t *testing.T) {
	t.Parallel()
	p := openStatic(t, "/en/transactions/")
	cases := [][2]string{
		{`<p>a</p><p>b</p>`, `<p>a</p><p>b</p><p>c</p>`},
		{`<section class="x">1</section><section class="y">2</section>`, `<h3>new</h3><section class="x">1</section><section class="y">2</section>`},
		{`<h3>old</h3><section class="x">1</section><section class="y">2</section>`, `<section class="x">1</section><section class="y">2</section>`},
		{`<ul><li class="a">1</li><li class="b">2</li><li class="c">3</li></ul>`, `<ul><li class="a">1</li><li class="c">3</li></ul>`},
		{`<ul><li class="a">1</li><li class="c">3</li></ul>`, `<ul><li class="a">1</li><li class="b">2</li><li class="c">3</li></ul>`},
		{`<div id="x">1</div>text<div id="y">2</div>`, `<div id="y">2</div>text<div id="x">1</div>`},
		{`<p>text</p>`, `text<p>text</p>`},
		{`<span class="a">1</span><b>2</b>`, `<b>2</b><span class="a">1</span>`},
		{`<input value="1"><select><option>a</option></select>`, `<input value="2"><select><option selected>b</option></select>`},
		{`<figure class="diagram"><svg><g class="msg"></g></svg></figure>`, `<figure class="diagram dense"><svg><g class="node"></g><g class="msg"></g></svg></figure>`},
		{`<details data-keep="seq" open><summary>s</summary>x</details>`, `<details data-keep="seq"><summary>s</summary>y</details>`},
		{`<div class="a b">1</div>`, `<div class="a c" data-n="2">1</div>`},
	}
	var pairs [][2]string
	pairs = append(pairs, cases...)
	for _, lesson := range []string{"transactions", "consumer-groups"} {
		p.route(fmt.Sprintf("/en/%s/", lesson))
		var steps []string
		for i := 1; i <= 10; i++ {
			steps = append(steps, p.eval(`document.getElementById("app").innerHTML`))
			if p.count("#next") == 0 {
				break
			}
			p.click("#next")
			p.waitText("#pos", fmt.Sprintf("Step %d of", i+1))
		}
		for i := range steps {
			for _, j := range []int{i + 1, i - 1, len(steps) - 1 - i} {
				if j >= 0 && j < len(steps) && j != i {
					pairs = append(pairs, [2]string{steps[i], steps[j]})
				}
			}
		}
	}
	if len(pairs) < len(cases)+20 {
		t.Fatalf("only %d pairs to morph", len(pairs))
	}
	data, err := json.Marshal(pairs)
	if err != nil {
		t.Fatal(err)
	}
	if bad := p.eval(morphJS + "(" + string(data) + ")"); bad != "" {
		t.Errorf("gregorMorph left the wrong markup:\n%s", bad)
	}
	t.Logf("%d pairs morphed", len(pairs))
}
