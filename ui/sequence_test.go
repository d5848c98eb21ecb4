package ui

import "testing"

func TestSequenceFoldsBackground(t *testing.T) {
	w, last := world(t, "cluster 3", "topic t partitions=1 rf=3", "producer p1 acks=all", "produce p1 t partition=0 value=a")
	st := w.View()
	var msgs []SeqMsg
	total, background := 0, 0
	for step := 0; step <= last; step++ {
		for _, m := range SeqArrows(st, Exchanges(w.Events(), step), step+1, "cmd") {
			msgs = append(msgs, m)
			total += m.Count
			if m.Folded {
				background += m.Count
			}
		}
	}
	if background == 0 || background == total {
		t.Fatalf("%d background messages of %d: want some of each", background, total)
	}
	rows := func(s Sequence) (shown, folded, current int) {
		for _, r := range s.Rows {
			if r.Heading {
				continue
			}
			shown += r.Msg.Count
			if r.Msg.Folded {
				folded++
			}
			if r.Current {
				current++
			}
		}
		return
	}
	s := NewSequence(st, msgs, last+1, true)
	shown, folded, current := rows(s)
	if folded != 0 || s.Hidden != background || shown != total-background {
		t.Errorf("folded view: %d shown, %d background rows, %d hidden; want %d shown, 0, %d", shown, folded, s.Hidden, total-background, background)
	}
	if current == 0 {
		t.Error("the current step's messages are not highlighted")
	}
	s = NewSequence(st, msgs, last+1, false)
	if shown, folded, _ = rows(s); shown != total || folded == 0 || s.Hidden != 0 {
		t.Errorf("full view: %d of %d shown, %d background rows", shown, total, folded)
	}
	if len(s.Lanes) < 5 { // admin, p1, b0..b2 and controllers
		t.Errorf("lanes: %+v", s.Lanes)
	}
}
