// Package cluster is Gregor's cluster metadata: the role seed 004 gives
// ZooKeeper (broker registration and liveness, topics, partition
// assignments, leaders, ISRs) played the way modern Kafka plays it, as a
// replicated log of metadata records (KRaft, KIP-500 and KIP-631). This
// package holds the records, the image they build and the election rules;
// the quorum that replicates them on go.etcd.io/raft/v3 and the controller
// are in cluster/quorum. Brokers depend only on this package, so a build
// without a quorum (the browser's single-broker lessons) carries no raft.
//
// # Pieces
//
//   - Records (records.go) are KRaft's metadata records, simplified:
//     ClusterIDRecord, RegisterBroker, FenceBroker, UnfenceBroker, BrokerChange,
//     UnregisterBroker, TopicRecord, RemoveTopicRecord, PartitionRecord,
//     PartitionChange, ConfigRecord, ProducerIDsBlock and
//     ClientQuotaRecord (KIP-546), and the security records:
//     UserScramCredentialRecord and its removal (scram.go, KIP-554),
//     AccessControlEntryRecord and its removal (acl.go, KIP-11),
//     FeatureLevelRecord (features.go, KIP-584);
//     RegisterBroker carries every listener's endpoint (endpoint.go). A
//     Batch of them
//     is one raft entry, encoded as JSON behind a magic byte.
//   - Image (image.go) is the state machine: brokers, topics, partitions
//     with replicas, ISR, leader, leader epoch and partition epoch, configs
//     (a topic's, and the cluster-wide broker settings every broker
//     applies), the next producer id and the client quotas. Every quorum member applies the same
//     committed batches to it; its JSON is the raft snapshot.
//   - Node (quorum/node.go, process.go, disk.go) wraps raft.RawNode: Tick,
//     Step, Submit, then Process, which persists through a store.Storage
//     (the log under __cluster_metadata-0/), applies, and returns the
//     messages to send, the responses and what was applied.
//   - The controller (quorum/controller.go, requests.go, topics.go) runs on
//     the raft leader once it has applied its own term's first entry. It
//     serves BrokerRegistration, BrokerHeartbeat, UnregisterBroker
//     (KIP-631), AlterPartition (KIP-497), CreateTopics, CreatePartitions
//     (KIP-195), DeleteTopics, AllocateProducerIds (KIP-730),
//     IncrementalAlterConfigs and AlterConfigs (checked by config.Alter),
//     ElectLeaders (ElectLeaders, elect_leaders.go), AlterClientQuotas
//     and UpdateFeatures as kmsg requests; fences brokers whose
//     session expired; and re-elects leaders (Elect, election.go). It
//     decides from the committed image, so a request about a topic that a
//     batch in flight creates, grows or deletes waits for that batch.
//   - Place (placement.go) is seed 004's replica placement: partition i's
//     j-th replica on broker (start+i+j) mod n. Partitions added later
//     continue from the topic's start (PlacementStart).
//
// Broker heartbeats are not records: as in Kafka, the active controller
// keeps the last heartbeat of each broker in memory and writes a record only
// when that changes something (fence, unfence). A new controller gives
// every broker a full session before fencing anyone.
//
// # Cluster id
//
// The cluster id (KIP-78) is in the metadata log: the first active
// controller writes a ClusterIDRecord before anything else it writes
// (quorum.Config.ClusterID, or a random Uuid), and the image keeps the
// first one committed for good. Kafka formats the id into every node's
// meta.properties instead; with no format step the log, which the whole
// cluster shares, is where one id can be agreed. Brokers adopt it and keep
// it with their data, register with it, and the controller refuses a
// broker whose data carries another (INCONSISTENT_CLUSTER_ID), so two
// clusters' logs are never mixed.
//
// # Elections
//
// When a leader's broker is fenced, the new leader is the first replica in
// replica order that is live and in the ISR; fenced brokers leave the ISR,
// but the ISR never becomes empty, so a partition whose in-sync replicas
// are all gone stays offline (leader NoLeader) until one of them returns.
// With unclean.leader.election.enable the first live replica leads instead,
// the ISR becomes just it, the change is marked Unclean, and the partition
// is RECOVERING (KIP-704) until its leader says otherwise: records that only
// the old ISR held are lost. Every PartitionChange bumps the partition
// epoch; a leader change (to NoLeader too) also bumps the leader epoch,
// which fences the old leader and lets a returning replica find where its
// log diverged (KIP-101, KIP-279). An ISR change alone keeps the leader
// epoch, as Kafka does since 3.6, so a leader is not fenced by its own
// AlterPartition.
//
// min.insync.replicas is stored (Image.MinInsyncReplicas) but enforced by
// partition leaders on acks=all produce, not here.
//
// # Availability
//
// A broker cut off from the others is fenced when its session runs out,
// and the batch that fences it also elects new leaders from the ISR and
// takes it out of every ISR: its partitions are unavailable for about
// broker.session.timeout.ms, the others not at all. A new controller
// grants every broker a full session from its activation, so a controller
// failover moves no partition leader; brokers re-send to it at once what
// they had asked the old one (broker.ControllerMoved), so a heartbeat
// lost with the old controller does not get a healthy broker fenced.
// Failures move leadership away from preferred replicas (the first of
// each partition); with auto.leader.rebalance.enable the controller moves
// it back every leader.imbalance.check.interval.seconds, for the brokers
// whose share of preferred partitions led elsewhere exceeds
// leader.imbalance.per.broker.percentage (ElectPreferred,
// quorum/rebalance.go). TestAvailabilityRandom (core/sim) checks the
// bound: once the network heals and the cluster is quiet, every partition
// has a leader and a full ISR, and acks=all succeeds, within 10 s.
//
// # Determinism
//
// etcd raft draws its randomized election timeout from crypto/rand. To keep
// runs reproducible a Node never ticks raft while it is not the leader: it
// keeps the election timer itself, with timeouts from Config.Rand, calls
// ForgetLeader once a leader has been silent for ElectionTicks (ending the
// lease that CheckQuorum gives it) and Campaign when its timeout expires.
// A leader's tick (heartbeats, check quorum) has no randomness. Snapshots
// are reported delivered as soon as they are handed to the transport; a lost
// one is re-sent after the leader's next probe.
//
// # Invariants
//
//   - Every quorum member applies the same batch at each raft index and so
//     holds the same Image at each index (raft's state machine safety).
//   - Every record the controller writes is guarded by the state it was
//     decided on (broker epoch, partition epoch, next producer id); a
//     record whose guard fails is skipped by every member alike, so
//     decisions taken from a stale view, or twice, change nothing.
//   - The image's cluster id, once set, never changes; the controller
//     registers only brokers that carry it.
//   - A partition's leader epoch never decreases and its partition epoch
//     increases with every change; a leader change raises the leader epoch
//     by exactly one.
//   - A partition's ISR is a non-empty subset of its replicas, and its
//     leader is NoLeader or a member of its ISR.
//   - A reassignment (KIP-455) keeps its adding and removing replicas
//     among the partition's replicas, disjoint; it completes only in a
//     change whose ISR holds every target replica, and the ISR it leaves
//     is drawn from the targets; dropping a replica raises the leader
//     epoch. So no acknowledged record is left on fewer replicas than
//     before the move.
//   - A broker in controlled shutdown (KIP-631) stays registered and
//     unfenced, and is told it may stop only once it is fenced and leads
//     no partition; it is fenced only once it leads none.
//   - A preferred-leader election changes only the leader, to the first
//     replica, and only while that replica is live and in the ISR.
//   - A leader from outside the previous ISR is chosen only by an unclean
//     election, only when no ISR member is live and the topic allows it.
//   - Only a usable broker (registered, unfenced, not in controlled
//     shutdown, its log dir online: Image.Usable) is elected, added to an
//     ISR or given new replicas; AlterPartition is accepted only from the current leader at the
//     current leader and partition epochs (KIP-497).
//   - Entries, hard state and snapshots are durable before Process returns
//     the messages that acknowledge them.
//   - Nothing here does I/O, reads a clock, starts goroutines or draws
//     from global randomness: the same seed and inputs give the same run
//     (TestRandomizedIsDeterministic).
package cluster
