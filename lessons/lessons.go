package lessons

import (
	"embed"
	"fmt"
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
	{"coordinator-failover", "Coordinator failover", "A transaction survives the death of its coordinator's broker."},
}

// Step is one command of a lesson with its narration and expected output.
type Step struct {
	Narration string
	Command   string
	Output    string
	Line      int // line number of the command in the script
}

// Lesson is a parsed script.
type Lesson struct {
	Meta
	Seed  uint64
	Steps []Step
	// Trailer is narration after the last command.
	Trailer string
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
// narration for the next command; `----` opens the expected output, which a
// blank line closes.
func Parse(text string) (*Lesson, error) {
	l := &Lesson{Seed: 1}
	var narr []string
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
		case strings.HasPrefix(line, "#"):
			narr = append(narr, strings.TrimSpace(strings.TrimPrefix(line, "#")))
		case line == "":
			if len(narr) > 0 && narr[len(narr)-1] != "" {
				narr = append(narr, "")
			}
		case line == "----":
			return nil, fmt.Errorf("line %d: ---- without a command", i+1)
		default:
			st := Step{Command: line, Line: i + 1, Narration: strings.TrimSpace(strings.Join(narr, "\n"))}
			narr = nil
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
	l.Trailer = strings.TrimSpace(strings.Join(narr, "\n"))
	return l, nil
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
	return Output(w.Exec(cmd))
}

// Output is what a lesson shows for a command that printed out and failed
// with err (nil if it did not): the printed lines, then the error's.
func Output(out string, err error) string {
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
		for _, n := range strings.Split(st.Narration, "\n") {
			if st.Narration == "" {
				break
			}
			if n == "" {
				sb.WriteString("#\n")
				continue
			}
			sb.WriteString("# " + n + "\n")
		}
		sb.WriteString(st.Command + "\n----\n")
		if outputs[i] != "" {
			sb.WriteString(outputs[i] + "\n")
		}
	}
	if l.Trailer != "" {
		sb.WriteString("\n")
		for _, n := range strings.Split(l.Trailer, "\n") {
			sb.WriteString(strings.TrimRight("# "+n, " ") + "\n")
		}
	}
	return sb.String()
}
