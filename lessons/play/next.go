package play

import (
	"github.com/gregor-kafka/gregor/lessons"
	"github.com/gregor-kafka/gregor/ui"
)

// nextLesson is the link at a lesson's last step, in lang: the next
// written lesson in catalog order, or nil after the last one (the page
// then links back to the lesson list).
func nextLesson(slug, lang string) *ui.LessonItem {
	m := lessons.NextAfter(slug)
	if m == nil {
		return nil
	}
	it := lessonItem(*m, lang)
	return &it
}
