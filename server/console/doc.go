// Package console is the operator's console at /console on the HTTP
// port: the cluster (brokers, controller, racks), its topics (partitions,
// size, configs with their source), a partition drawn as the lessons draw
// one (ui's components on core/view's snapshots), consumer and share
// groups with their lag, transactions, a record browser (at
// read_uncommitted or read_committed, as a consumer reads) and a form that
// produces a test record. Server-rendered with templ; the few lines of
// script only submit a form when a choice changes.
//
// It reaches the broker in two ways (Engine). What it reads of the
// broker's state it reads as snapshots on the engine goroutine, each
// bounded: a page of topics, one partition's tail, the first groups and
// transactions. What a client could ask it asks as a client, on a
// connection of its own, as Principal: DescribeCluster, Metadata,
// DescribeConfigs, CreateTopics, ListOffsets, Fetch and Produce. So with
// an authorizer on, the console's record reads and writes are checked by
// the ACLs like any client's, and its snapshots are filtered by them as
// Metadata, ListGroups and ListTransactions filter their answers.
//
// # Invariants
//
//   - Every snapshot is bounded by a page size (TopicsPerPage,
//     GroupsPerPage, view.MaxBatches, ui.PageSizes), never by the
//     cluster's size, so a large cluster never stalls the engine.
//   - A record page reads at most MaxFetchBytes and shows at most the
//     largest of ui.PageSizes records.
//   - Bad input (an unknown topic, a malformed offset or time, a record
//     the topic refuses, a refused ACL) is answered with a page that says
//     what was wrong, with a 4xx status; nothing is asked of the broker
//     for input that does not parse.
//   - With an authorizer on, a snapshot shows only the topics, groups
//     and transactional ids Principal may DESCRIBE (every group with
//     DESCRIBE on the cluster), and a page of one it may not describe is
//     refused whether or not it exists; a page of the filtered list is
//     as full as an unfiltered one.
//   - The console serves only what package access lets through (server
//     mounts it behind the operator guard, as /live).
package console
