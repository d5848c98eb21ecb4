package play

import (
	"github.com/gregor-kafka/gregor/lessons"
	"github.com/gregor-kafka/gregor/ui"
)

// nextLesson is the link at a lesson's last step: the next written lesson
// in catalog order, or nil after the last one (the page then links back to
// the lesson list).
func nextLesson(slug string) *ui.LessonItem {
	m := lessons.NextAfter(slug)
	if m == nil {
		return nil
	}
	return &ui.LessonItem{Slug: m.Slug, Title: m.Title, About: m.About, Written: true, Href: "?lesson=" + m.Slug}
}
