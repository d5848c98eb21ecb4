package lessons

import (
	"embed"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/gregor-kafka/gregor/core/sim"
)

//go:embed scripts/*.txt
var scripts embed.FS

// Meta names a lesson.
type Meta struct {
	Slug  string
	Title string
	About string
}

// Catalog is every lesson, in teaching order.
var Catalog = []Meta{
	{"segments", "Segments and indexes", "How a partition's log is cut into segments, and how sparse indexes find an offset or a time."},
	{"partitioning", "Partitioning", "Keys hash to partitions; order holds only within one; partitions never shrink."},
	{"delivery-semantics", "Delivery semantics", "At most once, at least once and exactly once through one lost acknowledgement."},
	{"idempotent-producer", "The idempotent producer", "Producer ids and sequence numbers turn a retry into a dropped duplicate."},
	{"transactions", "Transactions", "Every request from InitProducerId to COMPLETE_COMMIT."},
	{"read-committed", "Read committed", "The last stable offset and aborted data filtered."},
	{"zombie-fencing", "Zombie fencing", "Two instances, one transactional id, and the epoch bump."},
	{"exactly-once-pipeline", "Exactly-once pipeline", "Read-process-write with offsets inside the transaction."},
	{"consumer-groups", "Consumer groups", "Coordinator, join, sync, heartbeat, commit, and a rebalance."},
	{"assignors", "Assignors", "Range, roundrobin and sticky side by side."},
	{"replication", "Replication", "LEO, high watermark and acks under a leader crash."},
	{"leader-election", "Leader election", "ISR, clean and unclean election, and what each loses."},
	{"network-partition", "Network partition", "A leader cut off keeps answering: what acks=1 and acks=all get."},
	{"controller-failover", "Controller failover", "A new controller moves no partition leader, and a cut-off follower rejoins the ISR."},
	{"coordinator-failover", "Coordinator failover", "A transaction survives the death of its coordinator's broker."},
}

// Step is one command of a lesson with its narration and expected output.
type Step struct {
	Narration    string // English, the language every script is written in
	Translations Translations
	Question     *Question // asked before the command runs; nil for most steps
	Command      string
	Output       string
	Line         int // line number of the command in the script
}

// Translations is narration in languages other than English, by language
// tag. A script writes them beside the English, one `#[TAG] text` line
// each (`#[zh] 生产者重试……`), so a translation sits next to the command it
// explains. A lesson that has a language has it on every step and in its
// trailer (TestNarration).
type Translations map[string]string

// Lesson is a parsed script.
type Lesson struct {
	Meta
	Seed  uint64
	Steps []Step
	// Trailer is narration after the last command: the lesson's recap, one
	// paragraph per point.
	Trailer             string
	TrailerTranslations Translations
}

// NextAfter is the written lesson that follows slug in Catalog order, or
// nil after the last one (and for a slug not in Catalog).
func NextAfter(slug string) *Meta {
	i := slices.IndexFunc(Catalog, func(m Meta) bool { return m.Slug == slug })
	if i < 0 {
		return nil
	}
	for j := i + 1; j < len(Catalog); j++ {
		if Available(Catalog[j].Slug) {
			return &Catalog[j]
		}
	}
	return nil
}

// Available reports whether a lesson's script exists yet.
func Available(slug string) bool {
	_, err := scripts.Open("scripts/" + slug + ".txt")
	return err == nil
}

// Load parses an embedded lesson by slug.
func Load(slug string) (*Lesson, error) {
	var meta *Meta
	for i := range Catalog {
		if Catalog[i].Slug == slug {
			meta = &Catalog[i]
		}
	}
	if meta == nil {
		return nil, fmt.Errorf("lessons: no lesson %q", slug)
	}
	raw, err := scripts.ReadFile("scripts/" + slug + ".txt")
	if err != nil {
		return nil, fmt.Errorf("lessons: %q is not written yet", slug)
	}
	l, err := Parse(string(raw))
	if err != nil {
		return nil, fmt.Errorf("lessons: %s: %w", slug, err)
	}
	l.Meta = *meta
	return l, nil
}

// Parse reads a script. `#!seed: N` sets the seed; other `#` lines are
// narration for the next command (`#[TAG]` lines in language TAG, see
// Translations); `----` opens the expected output, which a blank line
// closes.
func Parse(text string) (*Lesson, error) {
	l := &Lesson{Seed: 1}
	var narr narration
	var q *Question
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		line := strings.TrimRight(lines[i], " \t\r")
		switch {
		case strings.HasPrefix(line, "#!"):
			k, v, _ := strings.Cut(strings.TrimPrefix(line, "#!"), ":")
			if strings.TrimSpace(k) == "seed" {
				n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
				if err != nil {
					return nil, fmt.Errorf("line %d: bad seed %q", i+1, v)
				}
				l.Seed = n
			}
		case strings.HasPrefix(line, "#?"), strings.HasPrefix(line, "#="), strings.HasPrefix(line, "#-"):
			if err := addQuestionLine(&q, line); err != nil {
				return nil, fmt.Errorf("line %d: %w", i+1, err)
			}
		case strings.HasPrefix(line, "#"):
			narr.add(line)
		case line == "":
			narr.breakParagraph()
		case line == "----":
			return nil, fmt.Errorf("line %d: ---- without a command", i+1)
		default:
			st := Step{Command: line, Line: i + 1}
			st.Narration, st.Translations = narr.texts()
			st.Question, narr, q = q, nil, nil
			if i+1 < len(lines) && strings.TrimSpace(lines[i+1]) == "----" {
				i += 2
				var out []string
				for ; i < len(lines) && strings.TrimRight(lines[i], " \r") != ""; i++ {
					out = append(out, strings.TrimRight(lines[i], "\r"))
				}
				st.Output = strings.Join(out, "\n")
			}
			l.Steps = append(l.Steps, st)
		}
	}
	if q != nil {
		return nil, fmt.Errorf("a question after the last command: it needs a step to reveal its answer")
	}
	l.Trailer, l.TrailerTranslations = narr.texts()
	return l, nil
}

// narration collects the `#` lines before a command, by language ("" is
// English).
type narration map[string][]string

func (n *narration) add(line string) {
	if *n == nil {
		*n = narration{}
	}
	text, lang := strings.TrimPrefix(line, "#"), ""
	if tag, rest, ok := strings.Cut(text, "]"); ok && strings.HasPrefix(tag, "[") && !strings.ContainsAny(tag, " \t") {
		lang, text = tag[1:], rest
	}
	(*n)[lang] = append((*n)[lang], strings.TrimSpace(text))
}

// breakParagraph ends the paragraph in every language.
func (n narration) breakParagraph() {
	for lang, ls := range n {
		if len(ls) > 0 && ls[len(ls)-1] != "" {
			n[lang] = append(ls, "")
		}
	}
}

func (n narration) texts() (string, Translations) {
	var tr Translations
	for lang, ls := range n {
		if lang == "" {
			continue
		}
		if tr == nil {
			tr = Translations{}
		}
		tr[lang] = strings.TrimSpace(strings.Join(ls, "\n"))
	}
	return strings.TrimSpace(strings.Join(n[""], "\n")), tr
}

// Replay runs the first n steps (all when n < 0) in a fresh world and
// returns it with what each step printed.
func (l *Lesson) Replay(n int) (*sim.World, []string) {
	if n < 0 || n > len(l.Steps) {
		n = len(l.Steps)
	}
	w := sim.New(l.Seed)
	outs := make([]string, n)
	for i := range n {
		outs[i] = Exec(w, l.Steps[i].Command)
	}
	return w, outs
}

// Exec runs one command and renders an error as output, as a lesson shows it.
func Exec(w *sim.World, cmd string) string {
	out, err := w.Exec(cmd)
	out = strings.TrimRight(out, "\n")
	if err != nil {
		if out != "" {
			out += "\n"
		}
		out += "error: " + err.Error()
	}
	return out
}

// Format writes the lesson back as a script with the given outputs, the
// inverse of Parse; -rewrite uses it.
func (l *Lesson) Format(outputs []string) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "#!seed: %d\n", l.Seed)
	for i, st := range l.Steps {
		sb.WriteString("\n")
		writeNarration(&sb, st.Narration, st.Translations)
		writeQuestion(&sb, st.Question)
		sb.WriteString(st.Command + "\n----\n")
		if outputs[i] != "" {
			sb.WriteString(outputs[i] + "\n")
		}
	}
	if l.Trailer != "" || len(l.TrailerTranslations) > 0 {
		sb.WriteString("\n")
		writeNarration(&sb, l.Trailer, l.TrailerTranslations)
	}
	return sb.String()
}

func sortedKeys(tr Translations) []string { return slices.Sorted(maps.Keys(tr)) }

// writeNarration writes the English lines, then each translation's, in
// the order of their tags.
func writeNarration(sb *strings.Builder, english string, tr Translations) {
	write := func(prefix, text string) {
		if text == "" {
			return
		}
		for _, n := range strings.Split(text, "\n") {
			sb.WriteString(strings.TrimRight(prefix+" "+n, " ") + "\n")
		}
	}
	write("#", english)
	for _, lang := range sortedKeys(tr) {
		write("#["+lang+"]", tr[lang])
	}
}
