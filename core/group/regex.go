package group

import "slices"

// Regular-expression subscriptions (KIP-848, ConsumerGroupHeartbeat v1's
// SubscribedTopicRegex). Kafka compiles the regex with RE2/J and a topic
// matches when the whole name matches; here Go's regexp, also RE2's
// syntax, is anchored at both ends to the same effect. Both refuse
// backreferences and lookaround; RE2/J follows java.util.regex where RE2
// leaves a choice (it has no \C, and its Unicode classes are Java's), a
// difference no topic name (ASCII letters, digits, '.', '_', '-')
// reaches. A regex Go cannot compile is refused with
// INVALID_REGULAR_EXPRESSION, as Kafka refuses one RE2/J cannot.
//
// Invariants:
//   - a regex member's topics are the sorted names of the existing topics
//     its regex matches, internal ones (__consumer_offsets,
//     __transaction_state) included, as Kafka 4 resolves them
//     (GroupMetadataManager.refreshRegularExpressions matches every topic
//     of the metadata image), and, where an authorizer is on, only those
//     the heartbeating member may DESCRIBE (Kafka filters in the context of
//     the member whose heartbeat refreshed the regexes:
//     filterTopicDescribeAuthorizedTopics);
//   - they are resolved again at every heartbeat of any member of the
//     group, so a topic created or deleted later joins or leaves the
//     subscription, and the group epoch advances, at the group's next
//     heartbeat (Kafka refreshes asynchronously, at most every
//     group.consumer.regex.refresh.interval.ms; here the refresh is
//     synchronous so the engine stays deterministic). A group restored
//     from __consumer_offsets resolves without the filter until its next
//     heartbeat, which assigns nothing before it resolves again.

// validRegex reports whether a SubscribedTopicRegex compiles; "" is
// valid and means no regex.
func validRegex(re string) bool {
	if re == "" {
		return true
	}
	_, err := compileRegex(re)
	return err == nil
}

// topicRegex is a compiled SubscribedTopicRegex (regex_compile.go; the
// browser build has none: regex_js.go).
type topicRegex interface{ MatchString(string) bool }

// resolveRegexes refreshes the topics of every regex member of cg, to
// those the caller may describe (nil: all), and reports whether any
// changed.
func (c *Coordinator) resolveRegexes(cg *consumerGroup, mayDescribe func(string) bool) bool {
	var names []string
	resolved := map[string][]string{}
	changed := false
	for _, id := range sortedKeys(cg.members) {
		m := cg.members[id]
		if m.regex == "" {
			continue
		}
		topics, ok := resolved[m.regex]
		if !ok {
			if names == nil {
				names = c.cfg.Topics.Names()
			}
			topics = matchTopics(m.regex, names, mayDescribe)
			resolved[m.regex] = topics
		}
		if !slices.Equal(topics, m.topics) {
			m.topics = topics
			changed = true
		}
	}
	return changed
}

// matchTopics lists, sorted, the names the regex matches that
// mayDescribe (nil: every name) allows.
func matchTopics(re string, names []string, mayDescribe func(string) bool) []string {
	rx, err := compileRegex(re)
	if err != nil {
		return []string{} // refused at the heartbeat; a restored record may still hold one
	}
	out := []string{}
	for _, n := range names {
		if rx.MatchString(n) && (mayDescribe == nil || mayDescribe(n)) {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}
