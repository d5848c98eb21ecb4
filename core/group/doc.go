// Package group is Kafka's group coordinator as a pure state machine: the
// classic consumer group protocol (JoinGroup, SyncGroup, Heartbeat,
// LeaveGroup), the KIP-848 consumer protocol (ConsumerGroupHeartbeat with
// server-side assignors from package assign), committed offsets
// (OffsetCommit, OffsetFetch, OffsetDelete) and the admin APIs
// (DescribeGroups, ListGroups, DeleteGroups, ConsumerGroupDescribe).
//
// The broker owns a Coordinator and hands it decoded kmsg requests with
// Handle; the answer comes back at once, or later through the Call's Reply
// when it waits: a JoinGroup waits at the rebalance barrier until every
// known member has rejoined or the largest rebalance.timeout.ms passes, a
// follower's SyncGroup waits for the leader's. Tick expires barriers and
// sessions; NextDeadline says when it next has work.
//
// State lives in __consumer_offsets, in Kafka's own record schemas
// (records.go): a group's records go to partition
// Utils.abs(groupId.hashCode()) % offsets.topic.num.partitions
// (PartitionFor), whose leader is the group's coordinator. Offset commits
// are offset records; a classic group's metadata record is written when a
// generation's assignment is set and when the group empties; deletions
// are tombstones. KIP-848 groups write Kafka 4.x's records 3, 5, 6, 7 and
// 8 (consumer_records.go) as their state changes. Replay rebuilds the
// groups at startup and when this broker becomes a partition's leader;
// KIP-848 members go on at their epoch, without a rebalance.
//
// A KIP-848 member subscribes by topic names or by a regular expression
// (regex.go); classic consumers can join a KIP-848 group, a stable
// classic group becomes one when a KIP-848 member joins it, and a group
// left with classic members only becomes classic again
// (consumer_classic.go).
//
// Protocol references: KIP-394 (member id required), KIP-345 (static
// membership), KIP-429 (cooperative rebalancing, client-driven in the
// classic protocol), KIP-496 (OffsetDelete), KIP-518 (ListGroups states
// filter), KIP-559 (protocol type and name in SyncGroup), KIP-814 (skip
// assignment), KIP-848 and KIP-1082 (the consumer protocol).
//
// # Invariants
//
//   - Pure: no I/O but through Log, no clock but the now passed in, no
//     randomness but Config.Rand, no goroutines; maps are read in sorted
//     order wherever the order shows.
//   - Every Call gets exactly one answer: returned from Handle, or given
//     once through Reply (a superseded waiting call is answered with an
//     error, never dropped).
//   - A classic group's generation only grows; a member waiting in
//     JoinGroup or SyncGroup never times out its session; a member that
//     did not rejoin by the end of the barrier is removed.
//   - An offset counts (OffsetFetch sees it) only once its record is
//     appended; a failed append changes nothing and answers a retriable
//     error.
//   - KIP-848: a partition is held by at most one member at a time; a
//     member gives up a partition (revocation acknowledged by a heartbeat
//     that no longer lists it) before its new owner receives it.
package group
