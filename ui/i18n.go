package ui

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/a-h/templ"
)

// The page's own words in each language. English is written where it is
// used, and is the key: a component says { T(ctx, "Next →") }, Go code
// with a language at hand says Tr(lang, "Next →"), and N("clients") marks
// a word that is looked up later, where it is drawn. Every other language
// has a catalog keyed by the English (catalog_zh.go).
//
// # Invariants
//
//   - Every English text passed to T, Tf, Tr, Trf or N in ui/, lessons/play/
//     and wasm/ has an entry in every catalog, different from the English
//     unless listed in Same, with the same format verbs; and every entry
//     is used (i18n_test.go reads the sources to check both).
//   - Protocol words (API names, fields, error codes, the simulator's
//     printed lines) are never looked up: they stay as Kafka spells them.

// Languages are the languages a page can be shown in, the default first.
var Languages = []string{"en", "zh"}

// LangNames are the switch's labels, each in its own language.
var LangNames = map[string]string{"en": "EN", "zh": "中文"}

// htmlLangs are the <html lang> values.
var htmlLangs = map[string]string{"en": "en", "zh": "zh-Hans"}

// catalogs are the translations of the English texts, by language.
var catalogs = map[string]map[string]string{"zh": zhCatalog}

// Same lists the texts that read the same in every language: names and
// protocol words that the page shows as labels.
var Same = map[string]bool{
	"Gregor": true,
	"LSO":    true,
	"LEO":    true,
}

// HTMLLang is the <html lang> value for a language.
func HTMLLang(lang string) string { return htmlLangs[Lang(lang)] }

// Lang is lang if the page speaks it, English otherwise.
func Lang(lang string) string {
	if _, ok := catalogs[lang]; ok {
		return lang
	}
	return "en"
}

// PickLang chooses a page's language from the browser's preferences: an
// Accept-Language header ("zh-CN,zh;q=0.9,en;q=0.8") or navigator.language
// ("zh-TW"). The most preferred language the page speaks wins; English
// when none is.
func PickLang(prefs string) string {
	best, bestQ := "en", -1.0
	for _, part := range strings.Split(prefs, ",") {
		tag, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		q := 1.0
		if v, ok := strings.CutPrefix(strings.TrimSpace(params), "q="); ok {
			if f, err := strconv.ParseFloat(v, 64); err == nil {
				q = f
			}
		}
		base, _, _ := strings.Cut(strings.ToLower(tag), "-")
		if (base == "en" || Lang(base) == base) && q > bestQ && q > 0 {
			best, bestQ = base, q
		}
	}
	return best
}

// Tr is the English text en in lang.
func Tr(lang, en string) string {
	if s, ok := catalogs[lang][en]; ok {
		return s
	}
	return en
}

// Trf formats the text en, in lang, with args.
func Trf(lang, en string, args ...any) string { return fmt.Sprintf(Tr(lang, en), args...) }

// N marks en for translation where it is drawn (T(ctx, value)); it
// returns en as it is.
func N(en string) string { return en }

type langKey struct{}

// InLang renders c with every T in it speaking lang.
func InLang(lang string, c templ.Component) templ.Component {
	return templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
		return c.Render(context.WithValue(ctx, langKey{}, Lang(lang)), w)
	})
}

// LangOf is the language a component renders in (InLang), English by
// default.
func LangOf(ctx context.Context) string {
	if l, ok := ctx.Value(langKey{}).(string); ok {
		return l
	}
	return "en"
}

// T is the English text en in the language the component renders in.
func T(ctx context.Context, en string) string { return Tr(LangOf(ctx), en) }

// Tf formats the text en, in the component's language, with args.
func Tf(ctx context.Context, en string, args ...any) string { return Trf(LangOf(ctx), en, args...) }

// LangLink is one entry of the language switch: the same page in lang.
type LangLink struct {
	Lang, Label, Href string
	Current           bool
}

// LangLinks is the language switch for a page in lang, href giving the
// same page in another language.
func LangLinks(lang string, href func(lang string) string) []LangLink {
	var out []LangLink
	for _, l := range Languages {
		out = append(out, LangLink{Lang: l, Label: LangNames[l], Href: href(l), Current: l == Lang(lang)})
	}
	return out
}

// homeHref is the lesson list in the component's language, relative to
// the site's root (lessons/play's Paths).
func homeHref(ctx context.Context) string { return LangOf(ctx) + "/" }
