// Package assign holds the consumer group partition assignors: "range",
// "roundrobin", "sticky" and "cooperative-sticky", named as in Kafka's
// consumer protocol, as pure functions of the members' subscriptions and
// the topics' partition counts.
//
// Two callers use the same functions. A group leader simulated in core
// decodes the JoinGroup members' metadata, assigns, and encodes the
// SyncGroup assignments (Lead, EncodeSubscription, DecodeAssignment, on
// kmsg.ConsumerMemberMetadata and kmsg.ConsumerMemberAssignment). The
// broker's server-side assignment for the KIP-848 protocol builds Members
// from its own state (Owned = the member's current assignment, Generation =
// its epoch) and calls Assign, or CooperativeRound for the incremental
// hand-over.
//
// Members are ordered as Kafka's AbstractPartitionAssignor.MemberInfo
// orders them: static members (group.instance.id, KIP-345) first, by
// instance id, then the rest by member id. Partitions are ordered by topic
// name, then number. Only topics that some member subscribes to and that
// have at least one partition are assigned.
//
// The worked examples of seed 004, reproduced in the tests: range with 10
// partitions and consumers C1-0, C2-0, C3-0 gives 0-3, 4-6, 7-9; with 11
// partitions 0-3, 4-7, 8-10; with two topics of 10 each, C1-0 ends with 8
// partitions and the others with 6, range's known imbalance. Roundrobin
// deals around the consumers and, with identical subscriptions, is even.
//
// # Invariants
//
//   - Every partition of a topic that some member subscribes to is
//     assigned to exactly one member, and only to a member subscribed to
//     its topic (for cooperative-sticky: at most one, see below).
//   - Every member given has an entry in the Assignment, possibly empty;
//     each entry is sorted by topic, then partition.
//   - Deterministic: the result depends only on the members (as a set: their
//     order in the slice does not matter) and the topic counts; no map is
//     iterated without sorting, nothing random or timed is read.
//   - range: per topic, a subscriber's count is ⌊n/m⌋ or ⌈n/m⌉, the
//     larger ones going to the first n%m subscribers in member order;
//     nothing is promised across topics.
//   - roundrobin: with identical subscriptions, counts differ by at most
//     one.
//   - sticky (KIP-54, with KIP-341's generations): balance first, then
//     stickiness. The sum of squared counts is the least the subscriptions
//     allow, which with identical subscriptions means counts differ by at
//     most one; among such assignments, the number of partitions taken
//     from their previous owner is the least possible. A previous owner is
//     a member whose Owned lists the partition, which still exists, and who
//     still subscribes to its topic; between claims the highest Generation
//     wins, and a tie in the highest generation leaves no previous owner.
//   - cooperative-sticky (KIP-429): the target is sticky's, but a
//     partition goes to a member this round only if that member already
//     claims it or no member claims it; so no round ever gives a partition
//     to a second consumer, and every withheld partition is in its
//     claimants' Revoked set. Once nobody claims what they must give up,
//     the round equals the target.
//   - Decoders never panic and never allocate more than their input
//     justifies (fuzzed); encoders write what the decoders read back.
package assign
