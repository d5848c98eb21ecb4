package play

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/gregor-kafka/gregor/lessons"
	"github.com/gregor-kafka/gregor/ui"
)

// TestNextLessonLink: only the last step of a lesson links onwards, to the
// next lesson in catalog order; the last lesson links back to the list.
func TestNextLessonLink(t *testing.T) {
	render := func(q string) string {
		var sb strings.Builder
		if err := ui.Lesson(Parse(q).Page()).Render(context.Background(), &sb); err != nil {
			t.Fatal(err)
		}
		return sb.String()
	}
	first, second := lessons.Catalog[0], lessons.Catalog[1]
	if html := render("lesson=" + first.Slug + "&step=1"); strings.Contains(html, "next-lesson") {
		t.Errorf("step 1 of %s links to the next lesson", first.Slug)
	}
	html := render("lesson=" + first.Slug + "&step=999")
	if !strings.Contains(html, `href="en/`+second.Slug+`/"`) || !strings.Contains(html, "Next lesson: "+second.Title) {
		t.Errorf("the last step of %s has no link to %s", first.Slug, second.Slug)
	}
	last := lessons.Catalog[len(lessons.Catalog)-1]
	q := "lesson=" + last.Slug + "&step=999"
	if l, _ := lessons.Load(last.Slug); l.Steps[len(l.Steps)-1].Question != nil {
		q += fmt.Sprintf("&answers=%d:0", len(l.Steps)) // shown: the link waits for the reveal
	}
	html = render(q)
	if !strings.Contains(html, `class="next-lesson"`) || !strings.Contains(html, "back to the lesson list") {
		t.Errorf("the last step of the last lesson %s does not link back to the list", last.Slug)
	}
	if strings.Contains(render("playground=1&cmds=broker"), "next-lesson") {
		t.Error("the playground links to a next lesson")
	}
}
