package play

import (
	"github.com/gregor-kafka/gregor/core/view"
	"github.com/gregor-kafka/gregor/ui"
)

// sequence lists the messages of steps 1..pos for the sequence view,
// their ends mapped to the actors of st (the world after step pos).
func (s *Session) sequence(steps []Step, st view.World, pos int) []ui.SeqMsg {
	var out []ui.SeqMsg
	for i := 0; i < pos && i < len(steps); i++ {
		out = append(out, ui.SeqArrows(st, steps[i].Exchanges, i+1, s.Items[i].Cmd)...)
	}
	return out
}
