package quorum

import "fmt"

// describe prints the cluster's state for a failure message.
func (h *harness) describe() string {
	s := ""
	for _, id := range h.ids {
		n := h.nodes[id]
		if n == nil {
			s += fmt.Sprintf("node %d: down\n", id)
			continue
		}
		st := n.Status()
		s += fmt.Sprintf("node %d: %v term %d lead %d applied %d controller %v\n", id, st.State, st.Term, st.Lead, st.Applied, st.Controller)
	}
	for id := int32(1); int(id) <= len(h.brokers); id++ {
		if b := h.brokers[id]; b != nil {
			s += fmt.Sprintf("broker %d: %+v\n", id, *b)
		}
	}
	if c := h.controller(); c != nil {
		s += string(c.Image().Encode()) + "\n"
	}
	return s
}
