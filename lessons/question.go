package lessons

import (
	"fmt"
	"strings"
)

// Question is a prediction the learner makes before a step runs: the
// step's output reveals the answer. A script writes it among the step's
// narration lines:
//
//	#? The retry of pay-B arrives. Which base_offset does the broker answer?
//	#?[zh] pay-B 的重试到达了。broker 回复的 base_offset 是多少？
//	#= base_offset={}
//	#- 1
//	#- 2
//
// `#?` is the question (`#?[TAG]` in language TAG), `#=` names the output
// field that decides it, as a pattern in which {} stands for a choice, and
// each `#-` line is a choice. The answer is not written down: it is the
// one choice whose pattern the step's golden output contains, so a
// question cannot drift from the engine (TestQuestions fails unless
// exactly one choice matches).
type Question struct {
	Text         string
	Translations Translations
	Field        string // the output pattern, with {} for the choice
	Choices      []string
}

// Matches reports whether output shows choice c in the question's field:
// the pattern with c in place of {} occurs in output, not followed by a
// character that would make it a longer value (offset 1 is not offset 12).
func (q *Question) Matches(output, c string) bool {
	want := strings.Replace(q.Field, "{}", c, 1)
	for rest := output; ; {
		i := strings.Index(rest, want)
		if i < 0 {
			return false
		}
		rest = rest[i+len(want):]
		if rest == "" || !isValueByte(rest[0]) {
			return true
		}
	}
}

// Answer is the index of the choice that output shows, or -1 when none or
// more than one does.
func (q *Question) Answer(output string) int {
	answer := -1
	for i, c := range q.Choices {
		if q.Matches(output, c) {
			if answer >= 0 {
				return -1
			}
			answer = i
		}
	}
	return answer
}

func isValueByte(b byte) bool {
	return b == '_' || b == '.' || b == '-' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

// addQuestionLine reads one `#?`, `#=` or `#-` line into q, creating it.
func addQuestionLine(q **Question, line string) error {
	if *q == nil {
		*q = &Question{}
	}
	kind, text := line[1], strings.TrimSpace(line[2:])
	switch kind {
	case '?':
		if tag, rest, ok := strings.Cut(text, "]"); ok && strings.HasPrefix(tag, "[") && !strings.ContainsAny(tag, " \t") {
			if (*q).Translations == nil {
				(*q).Translations = Translations{}
			}
			(*q).Translations[tag[1:]] = strings.TrimSpace(rest)
			return nil
		}
		(*q).Text = text
	case '=':
		if !strings.Contains(text, "{}") {
			return fmt.Errorf("question field %q has no {} for the choice", text)
		}
		(*q).Field = text
	case '-':
		(*q).Choices = append((*q).Choices, text)
	}
	return nil
}

// writeQuestion is the inverse of addQuestionLine, for Format.
func writeQuestion(sb *strings.Builder, q *Question) {
	if q == nil {
		return
	}
	sb.WriteString("#? " + q.Text + "\n")
	for _, lang := range sortedKeys(q.Translations) {
		sb.WriteString("#?[" + lang + "] " + q.Translations[lang] + "\n")
	}
	sb.WriteString("#= " + q.Field + "\n")
	for _, c := range q.Choices {
		sb.WriteString("#- " + c + "\n")
	}
}
