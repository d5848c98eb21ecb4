package sim

import (
	"fmt"
	"strings"

	"github.com/gregor-kafka/gregor/core/view"
)

// Usage is one command's synopsis and what it does, for help and the
// playground's command reference.
type Usage struct {
	Name     string // the command word, as the command table knows it
	Synopsis string // e.g. "topic NAME [partitions=N] [rf=N] [config=value ...]"
	Does     string
}

// usages documents every entry of the command table, in the order help
// lists them (a test checks that none is missing and none is stale). A
// command word with several forms (commit for transactions and groups)
// has one entry per form.
var usages = []Usage{
	{"help", "help", "list every command with its usage"},
	{"broker", "broker [setting=value ...]", "start the next broker (b0, b1, ...) with Kafka settings"},
	{"cluster", "cluster N [racks=R0,R1,...] [setting=value ...]", "instead, start N brokers on a raft metadata quorum (loads a larger engine); racks=: each broker's broker.rack"},
	{"topic", "topic NAME [partitions=N] [rf=N] [config=value ...]", "create a topic (CreateTopics)"},
	{"add-partitions", "add-partitions TOPIC count=N", "grow a topic (CreatePartitions)"},
	{"reassign", "reassign TOPIC-P replicas=bN,bM,... | reassign TOPIC-P cancel", "move a partition to other brokers, or cancel the move in progress (AlterPartitionReassignments)"},
	{"delete-topic", "delete-topic TOPIC", "delete a topic and its logs (DeleteTopics)"},
	{"quota", "quota user=U|client-id=C|ip=A ... KEY=N|remove ...", "set or remove client quotas (AlterClientQuotas; <default> names the default entity; a client's client-id is its name): producer_byte_rate, consumer_byte_rate, controller_mutation_rate, ..."},
	{"producer", "producer NAME [idempotent] [acks=all|1|0] [retries=N] [batch.size=BYTES] | producer NAME transactional.id=ID [timeout=D] [tv=2]", "a simulated producer, plain, idempotent or transactional (tv=2: transaction version 2, KIP-890 part 2: the epoch goes up at every commit or abort)"},
	{"produce", "produce PRODUCER TOPIC [key=K] value=V|tombstone [partition=N] [count=N [interval=D]]", "send records (Produce); with neither key nor partition, to the sticky partition; tombstone sends a null value"},
	{"consumer", "consumer NAME [read_committed] [rack=R]", "a simulated consumer; rack= is its client.rack (KIP-392)"},
	{"fetch", "fetch CONSUMER TOPIC-P [offset=N] [wait=MS]", "read records (Fetch)"},
	{"list-offsets", "list-offsets TOPIC-P timestamp=earliest|latest|max|MS", "find an offset (ListOffsets)"},
	{"delete-records", "delete-records TOPIC-P before=N", "move the log start offset (DeleteRecords)"},
	{"begin", "begin PRODUCER", "begin a transaction (local: nothing is sent)"},
	{"commit", "commit PRODUCER | commit MEMBER [TOPIC-P=OFFSET ...]", "end a transaction (EndTxn), or commit a group member's offsets (OffsetCommit)"},
	{"abort", "abort PRODUCER", "abort a transaction (EndTxn)"},
	{"send-offsets", "send-offsets PRODUCER group=G TOPIC-P=OFFSET ...", "commit consumer offsets inside the transaction (AddOffsetsToTxn, TxnOffsetCommit)"},
	{"describe-txn", "describe-txn ID ... | describe-txn list", "the coordinator's view of transactions (DescribeTransactions, ListTransactions)"},
	{"member", "member NAME group=G topics=T1,T2 [assignor=range|roundrobin|sticky|cooperative-sticky] [session=D] [rebalance=D] [heartbeat=D] [instance=ID] [metadata=D]", "start a consumer in a group (JoinGroup, SyncGroup, heartbeats)"},
	{"subscribe", "subscribe MEMBER topics=T1,T2", "change what a group member subscribes to: it rejoins (a rebalance)"},
	{"poll", "poll MEMBER", "read once from each partition the member owns"},
	{"leave", "leave MEMBER", "close a group member (LeaveGroup, unless static)"},
	{"share", "share join NAME group=G topics=T1,T2 | share poll NAME [max=N] [wait=MS] | share ack NAME accept|release|reject [offsets=N,M] | share leave NAME", "a share group member (KIP-932): join (ShareGroupHeartbeat), acquire records (ShareFetch), acknowledge what it holds (ShareAcknowledge), leave"},
	{"group-config", "group-config GROUP KEY=VALUE|delete ...", "set or delete a group's configs, as share.auto.offset.reset=earliest (IncrementalAlterConfigs on the GROUP resource)"},
	{"offsets", "offsets GROUP", "every offset the group committed (OffsetFetch)"},
	{"committed", "committed GROUP TOPIC-P", "the group's committed offset, as read_committed consumers ask (OffsetFetch require_stable)"},
	{"assign", "assign STRATEGY members=C1-0,C2-0 topics=T1:10,T2:10", "run an assignor as a pure function and print its result"},
	{"kill", "kill CLIENT", "end a client process at once: what it had in flight is answered to no one"},
	{"show", "show log|records|producers|replicas TOPIC-P | show files [BROKER] | show txn ID | show txn-log ID | show group G | show offsets-log G | show share G TOPIC-P | show metadata [from=INDEX] | show quorum | show controller", "print a partition's segments, batches or producer state, a broker's files, a transaction's or a group's state, a share partition's in-flight records, a transactional id's or a group's records in its internal topic, the metadata log, the quorum's voters, the controller's broker sessions"},
	{"lookup", "lookup TOPIC-P offset=N | timestamp=T", "how the broker finds a record through its indexes"},
	{"advance", "advance DURATION", "move the virtual clock (500ms, 30s, 5m)"},
	{"crash", "crash BROKER [process]", "lose what was not synced (with process, only the process dies)"},
	{"stop", "stop BROKER", "stop a clustered broker gracefully: its leaderships move away first (controlled shutdown)"},
	{"restart", "restart BROKER", "recover a crashed broker from its storage"},
	{"compact", "compact BROKER TOPIC-P", "run the log cleaner over a compacted partition now: the latest record of each key stays"},
	{"disk", "disk BROKER fail write|sync|rename FILE [nth=N] [err=EIO|ENOSPC] | disk BROKER full [room=BYTES] | disk BROKER tear | disk BROKER flip FILE | disk BROKER [clear]", "make a write, fsync or rename of a broker's disk fail, fill the disk (ENOSPC), tear the unsynced writes at the next crash, flip a byte of a synced file; list or clear the armed faults"},
	{"partition", "partition BROKER [BROKER ...]", "in a cluster: cut those brokers off from the others (clients reach both sides)"},
	{"heal", "heal", "end a network partition"},
	{"fault", "fault drop|duplicate|delay=D [request|response] [from=X] [to=Y]", "arm a fault against the next matching message"},
	{netActor, netActor + " hold | " + netActor + " auto | " + netActor, "hold messages to deliver them by hand; list what is in flight"},
	{"deliver", "deliver [ID|all]", "hand a held message (or all) to its recipient"},
	{"drop", "drop ID", "lose a held message"},
	{"duplicate", "duplicate ID", "deliver a held message twice"},
	{"delay", "delay ID DURATION", "hold a message back for a while"},
	{"swap", "swap ID ID", "exchange two held messages' places (reordering)"},
}

func init() { commands["help"] = cmdHelp }

// Commands lists every command with its usage, as help prints them.
func Commands() []Usage { return usages }

// cmdHelp: help lists every command with its usage.
func cmdHelp(w *World, c command) error {
	for _, u := range usages {
		w.emit(view.Event{Kind: "view", Text: u.Synopsis})
		w.emit(view.Event{Kind: "note", Text: "    " + u.Does})
	}
	return nil
}

// unknownCommand says what exists when a command word is not known.
func unknownCommand(name string) error {
	return fmt.Errorf("unknown command %q; the commands are: %s (help shows how to use each)", name, strings.Join(commandNames(), ", "))
}

// StartsCluster reports whether a command (trimmed) starts a multi-broker
// world, which only a build with the quorum runs (HasQuorum).
func StartsCluster(cmd string) bool {
	return cmd == "cluster" || strings.HasPrefix(cmd, "cluster ")
}
