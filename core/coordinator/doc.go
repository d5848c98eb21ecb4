// Package coordinator is the coordinators' glue in a broker: it builds the
// group coordinator (core/group, Groups) and the transaction coordinator
// (core/txn, Transactions) from the broker's settings, rebuilds their
// state from __consumer_offsets and __transaction_state, runs the groups'
// timers, and answers which broker coordinates a group or a transactional
// id. The share coordinator (Shares, KIP-932) is here whole: the share
// partitions' state, kept in __share_group_state. The state machines live
// in core/group, core/txn and core/share; the broker
// (core/broker) routes the APIs, authorizes them, carries the markers to
// the partition leaders and holds the answers until the appends are
// durable. The broker reaches this package, never the other way: what a
// coordinator needs of its broker is a Host.
//
// # Invariants
//
//   - Every record a coordinator writes goes through Host.Append, to an
//     internal partition this broker leads, in the coordinator step in
//     progress; the broker holds the step's answers until it is durable.
//   - A coordinator's state is rebuilt only from its internal partition's
//     log (Host.Scan), at startup on a single broker or when this broker
//     becomes the partition's leader; nothing else loads it.
//   - A transaction's markers go out only once its Prepare record is
//     durable: in a cluster once the ISR has it (Host.Durable), on a
//     single broker after the Commit that synced it (the broker calls
//     WriteMarkers then).
//   - A key (group, transactional id or share partition) belongs to the
//     partition it hashes to, and its coordinator is that partition's
//     leader (Host.Owns); on a single broker that is always this one. The
//     share coordinator serves only where its partition is also online
//     (Host.Leads), on a single broker too.
package coordinator
