package broker

// A coordinator step is the handling of one request, or one timer run, by
// the group, share or transaction coordinator. The answers it gives wait
// for what it appended to their internal topics (answerAfterWrites), and
// for nothing else.
//
// # Invariants
//
//   - collectWrites delimits a step: AppendInternal records each append
//     in the step in progress, none outside every step.
//   - Steps nest: an inner step (a share partition served in-process for
//     the request in progress, the second run of a held request that
//     runs at once) collects apart, and the outer step goes on collecting
//     after it as before; nothing else sets or restores the step.
//   - An answer given in a step waits for what the step appended until
//     then; one given outside every step (a deposed coordinator failing
//     its waiting calls) waits for no append.

// coordinatorWrites is what a step appended to the coordinators'
// internal topics.
type coordinatorWrites struct {
	syncs []ackWait // partitions the next Commit must sync (their flush policy)
	waits []ackWait // in a cluster: appends the ISR must have
}

// collectWrites runs step as a coordinator step and returns what it
// appended.
func (b *Broker) collectWrites(step func()) coordinatorWrites {
	outer := b.step
	w := &coordinatorWrites{}
	b.step = w
	step()
	b.step = outer
	return *w
}

// stepWrites is what the step in progress appended so far; none outside
// every step.
func (b *Broker) stepWrites() coordinatorWrites {
	if b.step == nil {
		return coordinatorWrites{}
	}
	return *b.step
}
