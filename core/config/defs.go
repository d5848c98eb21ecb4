package config

import (
	"math"
	"strconv"
)

// Type is a setting's type, numbered as DescribeConfigs v3+ reports it.
type Type int8

const (
	Bool     Type = 1
	String   Type = 2
	Int      Type = 3
	Short    Type = 4
	Long     Type = 5
	Double   Type = 6
	List     Type = 7
	Class    Type = 8
	Password Type = 9
)

// Def describes one setting.
type Def struct {
	Name    string
	Type    Type
	Default string // "" with Nullable means null
	Doc     string
	// Topic marks a topic-level setting; Synonyms are the broker settings a
	// topic falls back to, in order (Kafka's log.retention.ms before
	// log.retention.minutes before log.retention.hours).
	Topic    bool
	Synonyms []string
	// Scale converts a synonym's unit to this setting's (hours → ms).
	scale    map[string]int64
	Min, Max int64
	Enum     []string
	ReadOnly bool // static: cannot be changed with IncrementalAlterConfigs
	// PerBroker marks a setting Kafka lets only a broker of its own set
	// (resource name = its id), not the cluster-wide defaults.
	PerBroker bool
	// Kept marks a Kafka setting Gregor has no behaviour for (kafka.go).
	Kept bool
	// parse, if set, validates a value instead of Enum.
	parse func(string) error
}

var maxLong = strconv.FormatInt(math.MaxInt64, 10)

const week = "604800000"

// topicDefs are topic settings, Gregor's own (each with a broker synonym)
// and then Kafka's others.
var topicDefs = withKafka([]Def{
	{Name: "cleanup.policy", Type: List, Default: "delete", Doc: "What happens to old segments: delete (retention.ms, retention.bytes), compact (keep the latest record of each key), or compact,delete (both).", Topic: true, Synonyms: []string{"log.cleanup.policy"}, Enum: []string{"delete", "compact"}},
	{Name: "compression.type", Type: String, Default: "producer", Doc: "Final compression of the topic's batches; producer keeps what the producer sent.", Topic: true, Synonyms: []string{"compression.type"}, Enum: []string{"producer", "uncompressed", "gzip", "snappy", "lz4", "zstd"}},
	{Name: "delete.retention.ms", Type: Long, Default: "86400000", Doc: "How long a compacted topic keeps a tombstone (and a marker of a transaction with no data left) after the cleaner first met it.", Topic: true, Synonyms: []string{"log.cleaner.delete.retention.ms"}, Min: 0, Max: math.MaxInt64},
	{Name: "file.delete.delay.ms", Type: Long, Default: "60000", Doc: "Time to wait before deleting a file from the filesystem.", Topic: true, Synonyms: []string{"log.segment.delete.delay.ms"}, Min: 0, Max: math.MaxInt64},
	{Name: "flush.messages", Type: Long, Default: maxLong, Doc: "Fsync the log after this many messages (1 = every batch, group-committed).", Topic: true, Synonyms: []string{"log.flush.interval.messages"}, Min: 1, Max: math.MaxInt64},
	{Name: "flush.ms", Type: Long, Default: maxLong, Doc: "Fsync the log when this much time has passed since the last fsync.", Topic: true, Synonyms: []string{"log.flush.interval.ms"}, Min: 0, Max: math.MaxInt64},
	{Name: "index.interval.bytes", Type: Int, Default: "4096", Doc: "Bytes of log between two entries of the sparse offset index.", Topic: true, Synonyms: []string{"log.index.interval.bytes"}, Min: 0, Max: math.MaxInt32},
	{Name: "max.message.bytes", Type: Int, Default: "1048588", Doc: "Largest record batch the topic accepts.", Topic: true, Synonyms: []string{"message.max.bytes"}, Min: 0, Max: math.MaxInt32},
	{Name: "message.timestamp.type", Type: String, Default: "CreateTime", Doc: "CreateTime keeps the producer's timestamps; LogAppendTime stamps the broker's.", Topic: true, Synonyms: []string{"log.message.timestamp.type"}, Enum: []string{"CreateTime", "LogAppendTime"}},
	{Name: "max.compaction.lag.ms", Type: Long, Default: maxLong, Doc: "Oldest a record may get before the cleaner compacts it whatever the dirty ratio; a compacted topic's active segment rolls at this age if segment.ms is longer (KIP-354).", Topic: true, Synonyms: []string{"log.cleaner.max.compaction.lag.ms"}, Min: 1, Max: math.MaxInt64},
	{Name: "min.cleanable.dirty.ratio", Type: Double, Default: "0.5", Doc: "Share of a compacted log's cleanable bytes that must be new since the last cleaning before the cleaner runs again.", Topic: true, Synonyms: []string{"log.cleaner.min.cleanable.ratio"}, Min: 0, Max: 1},
	{Name: "min.compaction.lag.ms", Type: Long, Default: "0", Doc: "Youngest a segment's records may be for the cleaner to compact it (KIP-58).", Topic: true, Synonyms: []string{"log.cleaner.min.compaction.lag.ms"}, Min: 0, Max: math.MaxInt64},
	{Name: "min.insync.replicas", Type: Int, Default: "1", Doc: "Replicas that must acknowledge an acks=all write.", Topic: true, Synonyms: []string{"min.insync.replicas"}, Min: 1, Max: math.MaxInt32},
	{Name: "retention.bytes", Type: Long, Default: "-1", Doc: "Largest size a partition keeps before deleting old segments (-1: no limit).", Topic: true, Synonyms: []string{"log.retention.bytes"}, Min: -1, Max: math.MaxInt64},
	{Name: "retention.ms", Type: Long, Default: week, Doc: "Age after which a whole segment is deleted (-1: keep forever).", Topic: true, Synonyms: []string{"log.retention.ms", "log.retention.minutes", "log.retention.hours"}, scale: map[string]int64{"log.retention.minutes": 60000, "log.retention.hours": 3600000}, Min: -1, Max: math.MaxInt64},
	{Name: "segment.bytes", Type: Int, Default: "1073741824", Doc: "Size at which the active segment rolls.", Topic: true, Synonyms: []string{"log.segment.bytes"}, Min: 14, Max: math.MaxInt32},
	{Name: "segment.index.bytes", Type: Int, Default: "10485760", Doc: "Largest offset index a segment may have before it rolls.", Topic: true, Synonyms: []string{"log.index.size.max.bytes"}, Min: 8, Max: math.MaxInt32},
	{Name: "segment.ms", Type: Long, Default: week, Doc: "Age at which the active segment rolls even if not full.", Topic: true, Synonyms: []string{"log.roll.ms", "log.roll.hours"}, scale: map[string]int64{"log.roll.hours": 3600000}, Min: 1, Max: math.MaxInt64},
	{Name: "unclean.leader.election.enable", Type: Bool, Default: "false", Doc: "Allow an out-of-sync replica to become leader, losing data.", Topic: true, Synonyms: []string{"unclean.leader.election.enable"}},
}, kafkaTopicTSV, true)

// brokerDefs are broker-only settings and the broker synonyms of topic
// ones, Gregor's own and then Kafka's others.
var brokerDefs = withKafka([]Def{
	{Name: "node.id", Type: Int, Default: "1", Doc: "This broker's id.", Min: 0, Max: math.MaxInt32, ReadOnly: true},
	{Name: "auto.create.topics.enable", Type: Bool, Default: "true", Doc: "Create a topic when a client asks for metadata of one that does not exist.", ReadOnly: true},
	{Name: "delete.topic.enable", Type: Bool, Default: "true", Doc: "Allow DeleteTopics.", ReadOnly: true},
	{Name: "num.partitions", Type: Int, Default: "1", Doc: "Partitions of an auto-created topic, or of one created with -1.", Min: 1, Max: math.MaxInt32},
	{Name: "default.replication.factor", Type: Short, Default: "1", Doc: "Replication factor of an auto-created topic.", Min: 1, Max: math.MaxInt16},
	{Name: "socket.request.max.bytes", Type: Int, Default: "104857600", Doc: "Largest request frame; a larger one closes the connection.", Min: 1, Max: math.MaxInt32, ReadOnly: true},
	{Name: "max.connections", Type: Int, Default: "2147483647", Doc: "Client connections the broker keeps open at once; one more is closed at once, with a log line.", Min: 0, Max: math.MaxInt32, ReadOnly: true},
	{Name: "max.connections.per.ip", Type: Int, Default: "2147483647", Doc: "Client connections one IP address may keep open at once; one more is closed at once, with a log line.", Min: 0, Max: math.MaxInt32, ReadOnly: true},
	{Name: "max.connection.creation.rate", Type: Int, Default: "2147483647", Doc: "New client connections the broker accepts per second, measured as the client quotas are (11 windows of 1 s); one more waits until it fits (KIP-612). The ip quota entity's connection_creation_rate bounds each address.", Min: 0, Max: math.MaxInt32, ReadOnly: true},
	{Name: "log.retention.check.interval.ms", Type: Long, Default: "300000", Doc: "How often retention is enforced.", Min: 1, Max: math.MaxInt64},
	{Name: "offsets.topic.num.partitions", Type: Int, Default: "50", Doc: "Partitions of __consumer_offsets.", Min: 1, Max: math.MaxInt32, ReadOnly: true},
	{Name: "offsets.topic.segment.bytes", Type: Int, Default: "104857600", Doc: "segment.bytes of __consumer_offsets, kept small so that compaction and a coordinator's load are quick.", Min: 14, Max: math.MaxInt32, ReadOnly: true},
	{Name: "offsets.topic.replication.factor", Type: Short, Default: "3", Doc: "Replication factor of __consumer_offsets in a cluster; it is not created until that many brokers are alive.", Min: 1, Max: math.MaxInt16, ReadOnly: true},
	{Name: "offsets.commit.timeout.ms", Type: Int, Default: "5000", Doc: "How long a group coordinator's write to __consumer_offsets may wait for the ISR before the request fails with COORDINATOR_NOT_AVAILABLE.", Min: 1, Max: math.MaxInt32, ReadOnly: true},
	{Name: "offsets.retention.minutes", Type: Int, Default: "10080", Doc: "How long committed offsets are kept after their group became empty, or after their commit for a standalone consumer (KIP-211); expired offsets get tombstones that compaction removes.", Min: 1, Max: math.MaxInt32, ReadOnly: true},
	{Name: "offsets.retention.check.interval.ms", Type: Long, Default: "600000", Doc: "How often the group coordinator looks for expired offsets.", Min: 1, Max: math.MaxInt64, ReadOnly: true},
	{Name: "offset.metadata.max.bytes", Type: Int, Default: "4096", Doc: "Largest metadata string an OffsetCommit may attach to an offset.", Min: 0, Max: math.MaxInt32, ReadOnly: true},
	{Name: "group.initial.rebalance.delay.ms", Type: Int, Default: "3000", Doc: "How long the first rebalance of an empty group waits for more members to join.", Min: 0, Max: math.MaxInt32},
	{Name: "group.min.session.timeout.ms", Type: Int, Default: "6000", Doc: "Smallest session.timeout.ms a classic group member may ask for.", Min: 0, Max: math.MaxInt32},
	{Name: "group.max.session.timeout.ms", Type: Int, Default: "1800000", Doc: "Largest session.timeout.ms a classic group member may ask for.", Min: 0, Max: math.MaxInt32},
	{Name: "group.max.size", Type: Int, Default: "2147483647", Doc: "Most members a classic group may have.", Min: 1, Max: math.MaxInt32},
	{Name: "group.consumer.session.timeout.ms", Type: Int, Default: "45000", Doc: "Session timeout of KIP-848 consumer group members.", Min: 1, Max: math.MaxInt32},
	{Name: "group.consumer.heartbeat.interval.ms", Type: Int, Default: "5000", Doc: "Heartbeat interval the coordinator gives KIP-848 consumer group members.", Min: 1, Max: math.MaxInt32},
	{Name: "group.share.session.timeout.ms", Type: Int, Default: "45000", Doc: "Session timeout of share group members (KIP-932).", Min: 1, Max: math.MaxInt32},
	{Name: "group.share.heartbeat.interval.ms", Type: Int, Default: "5000", Doc: "Heartbeat interval the coordinator gives share group members.", Min: 1, Max: math.MaxInt32},
	{Name: "group.share.record.lock.duration.ms", Type: Int, Default: "30000", Doc: "How long a share group member holds the records it acquired before they are delivered to another member.", Min: 1000, Max: math.MaxInt32},
	{Name: "group.consumer.min.session.timeout.ms", Type: Int, Default: "45000", Doc: "Smallest consumer.session.timeout.ms a consumer group may be given.", Min: 1, Max: math.MaxInt32, ReadOnly: true},
	{Name: "group.consumer.max.session.timeout.ms", Type: Int, Default: "60000", Doc: "Largest consumer.session.timeout.ms a consumer group may be given.", Min: 1, Max: math.MaxInt32, ReadOnly: true},
	{Name: "group.consumer.min.heartbeat.interval.ms", Type: Int, Default: "5000", Doc: "Smallest consumer.heartbeat.interval.ms a consumer group may be given.", Min: 1, Max: math.MaxInt32, ReadOnly: true},
	{Name: "group.consumer.max.heartbeat.interval.ms", Type: Int, Default: "15000", Doc: "Largest consumer.heartbeat.interval.ms a consumer group may be given.", Min: 1, Max: math.MaxInt32, ReadOnly: true},
	{Name: "group.share.min.session.timeout.ms", Type: Int, Default: "45000", Doc: "Smallest share.session.timeout.ms a share group may be given.", Min: 1, Max: math.MaxInt32, ReadOnly: true},
	{Name: "group.share.max.session.timeout.ms", Type: Int, Default: "60000", Doc: "Largest share.session.timeout.ms a share group may be given.", Min: 1, Max: math.MaxInt32, ReadOnly: true},
	{Name: "group.share.min.heartbeat.interval.ms", Type: Int, Default: "5000", Doc: "Smallest share.heartbeat.interval.ms a share group may be given.", Min: 1, Max: math.MaxInt32, ReadOnly: true},
	{Name: "group.share.max.heartbeat.interval.ms", Type: Int, Default: "15000", Doc: "Largest share.heartbeat.interval.ms a share group may be given.", Min: 1, Max: math.MaxInt32, ReadOnly: true},
	{Name: "group.share.min.record.lock.duration.ms", Type: Int, Default: "15000", Doc: "Smallest share.record.lock.duration.ms a share group may be given.", Min: 1000, Max: math.MaxInt32, ReadOnly: true},
	{Name: "group.share.max.record.lock.duration.ms", Type: Int, Default: "60000", Doc: "Largest share.record.lock.duration.ms a share group may be given.", Min: 1000, Max: math.MaxInt32, ReadOnly: true},
	{Name: "group.share.partition.max.record.locks", Type: Int, Default: "2000", Doc: "Most in-flight records of one share partition: acquisition stops there until the oldest are acknowledged.", Min: 1, Max: math.MaxInt32},
	{Name: "group.share.delivery.count.limit", Type: Int, Default: "5", Doc: "Deliveries of a record to a share group after which it is archived instead of delivered again.", Min: 1, Max: 10},
	{Name: "group.share.max.share.sessions", Type: Int, Default: "2000", Doc: "Most share sessions a broker keeps; a new one beyond gets SHARE_SESSION_LIMIT_REACHED.", Min: 1, Max: math.MaxInt32, ReadOnly: true},
	{Name: "share.auto.offset.reset", Type: String, Default: "latest", Doc: "Where a share group starts reading a partition it never read: latest (the high watermark), earliest, or by_duration:<ISO-8601 duration> (the first record at most that old). The default of the group config of that name (a Gregor broker setting: Kafka has only the group config).", parse: checkShareReset},
	{Name: "share.isolation.level", Type: String, Default: "read_uncommitted", Doc: "read_committed delivers share groups only committed transactions' records (up to the last stable offset) and archives aborted ones. The default of the group config of that name (a Gregor broker setting: Kafka has only the group config).", Enum: []string{"read_uncommitted", "read_committed"}},
	{Name: "share.coordinator.state.topic.num.partitions", Type: Int, Default: "50", Doc: "Partitions of __share_group_state.", Min: 1, Max: math.MaxInt32, ReadOnly: true},
	{Name: "share.coordinator.state.topic.replication.factor", Type: Short, Default: "3", Doc: "Replication factor of __share_group_state in a cluster.", Min: 1, Max: math.MaxInt16, ReadOnly: true},
	{Name: "transaction.max.timeout.ms", Type: Int, Default: "900000", Doc: "Largest transaction.timeout.ms a transactional producer may ask for; InitProducerId with more gets INVALID_TRANSACTION_TIMEOUT.", Min: 1, Max: math.MaxInt32, ReadOnly: true},
	{Name: "transaction.abort.timed.out.transaction.cleanup.interval.ms", Type: Int, Default: "10000", Doc: "How often the transaction coordinator aborts transactions that ran past their timeout.", Min: 1, Max: math.MaxInt32, ReadOnly: true},
	{Name: "transactional.id.expiration.ms", Type: Int, Default: "604800000", Doc: "A transactional id whose state has not changed for this long, with no transaction in progress, is forgotten: a tombstone in __transaction_state.", Min: 1, Max: math.MaxInt32, ReadOnly: true},
	{Name: "transaction.remove.expired.transaction.cleanup.interval.ms", Type: Int, Default: "3600000", Doc: "How often the transaction coordinator looks for expired transactional ids.", Min: 1, Max: math.MaxInt32, ReadOnly: true},
	{Name: "transaction.partition.verification.enable", Type: Bool, Default: "true", Doc: "Partition leaders ask the transaction coordinator whether a transactional produce belongs to an ongoing transaction before appending it (KIP-890 part 1).", ReadOnly: true},
	{Name: "transaction.state.log.replication.factor", Type: Short, Default: "3", Doc: "Replication factor of __transaction_state in a cluster; it is not created until that many brokers are alive.", Min: 1, Max: math.MaxInt16, ReadOnly: true},
	{Name: "transaction.state.log.min.isr", Type: Int, Default: "2", Doc: "min.insync.replicas of __transaction_state.", Min: 1, Max: math.MaxInt32, ReadOnly: true},
	{Name: "request.timeout.ms", Type: Int, Default: "30000", Doc: "How long a transaction coordinator's write to __transaction_state may wait for the ISR.", Min: 1, Max: math.MaxInt32, ReadOnly: true},
	{Name: "transaction.state.log.segment.bytes", Type: Int, Default: "104857600", Doc: "segment.bytes of __transaction_state, kept small so that compaction and a coordinator's load are quick.", Min: 14, Max: math.MaxInt32, ReadOnly: true},
	{Name: "transaction.state.log.num.partitions", Type: Int, Default: "50", Doc: "Partitions of __transaction_state.", Min: 1, Max: math.MaxInt32, ReadOnly: true},
	{Name: "log.cleanup.policy", Type: List, Default: "delete", Doc: "Default cleanup.policy.", Enum: []string{"delete", "compact"}},
	{Name: "log.cleaner.delete.retention.ms", Type: Long, Default: "86400000", Doc: "Default delete.retention.ms.", Min: 0, Max: math.MaxInt64},
	{Name: "log.cleaner.min.cleanable.ratio", Type: Double, Default: "0.5", Doc: "Default min.cleanable.dirty.ratio.", Min: 0, Max: 1},
	{Name: "log.cleaner.max.compaction.lag.ms", Type: Long, Default: maxLong, Doc: "Default max.compaction.lag.ms.", Min: 1, Max: math.MaxInt64},
	{Name: "log.cleaner.min.compaction.lag.ms", Type: Long, Default: "0", Doc: "Default min.compaction.lag.ms.", Min: 0, Max: math.MaxInt64},
	{Name: "log.cleaner.enable", Type: Bool, Default: "true", Doc: "Run the log cleaner, which compacts topics with cleanup.policy=compact.", ReadOnly: true},
	{Name: "log.cleaner.io.buffer.size", Type: Int, Default: "524288", Doc: "Bytes of log the cleaner reads per engine tick: it shares the engine's one goroutine with requests, so a pass over a big log is spread over many ticks.", Min: 1024, Max: math.MaxInt32},
	{Name: "log.cleaner.dedupe.buffer.size", Type: Long, Default: "134217728", Doc: "Memory for the cleaner's offset map (about 64 bytes a key); a pass cleans as many dirty segments as their keys fit.", Min: 1 << 20, Max: math.MaxInt64},
	{Name: "log.cleaner.backoff.ms", Type: Long, Default: "15000", Doc: "How long the cleaner waits between checks when no log needs cleaning.", Min: 0, Max: math.MaxInt64},
	{Name: "compression.type", Type: String, Default: "producer", Doc: "Default compression.type.", Enum: []string{"producer", "uncompressed", "gzip", "snappy", "lz4", "zstd"}},
	{Name: "log.segment.delete.delay.ms", Type: Long, Default: "60000", Doc: "Default file.delete.delay.ms.", Min: 0, Max: math.MaxInt64},
	{Name: "log.flush.interval.messages", Type: Long, Default: maxLong, Doc: "Default flush.messages.", Min: 1, Max: math.MaxInt64},
	{Name: "log.flush.interval.ms", Type: Long, Default: maxLong, Doc: "Default flush.ms.", Min: 0, Max: math.MaxInt64},
	{Name: "log.index.interval.bytes", Type: Int, Default: "4096", Doc: "Default index.interval.bytes.", Min: 0, Max: math.MaxInt32},
	{Name: "message.max.bytes", Type: Int, Default: "1048588", Doc: "Default max.message.bytes.", Min: 0, Max: math.MaxInt32},
	{Name: "log.message.timestamp.type", Type: String, Default: "CreateTime", Doc: "Default message.timestamp.type.", Enum: []string{"CreateTime", "LogAppendTime"}},
	{Name: "min.insync.replicas", Type: Int, Default: "1", Doc: "Default min.insync.replicas.", Min: 1, Max: math.MaxInt32},
	{Name: "log.retention.bytes", Type: Long, Default: "-1", Doc: "Default retention.bytes.", Min: -1, Max: math.MaxInt64},
	{Name: "log.retention.ms", Type: Long, Default: "", Doc: "Default retention.ms; unset falls back to log.retention.minutes, then log.retention.hours.", Min: -1, Max: math.MaxInt64},
	{Name: "log.retention.minutes", Type: Int, Default: "", Doc: "Default retention in minutes, used when log.retention.ms is unset.", Min: -1, Max: math.MaxInt32},
	{Name: "log.retention.hours", Type: Int, Default: "168", Doc: "Default retention in hours, used when the finer settings are unset.", Min: -1, Max: math.MaxInt32},
	{Name: "log.segment.bytes", Type: Int, Default: "1073741824", Doc: "Default segment.bytes.", Min: 14, Max: math.MaxInt32},
	{Name: "log.index.size.max.bytes", Type: Int, Default: "10485760", Doc: "Default segment.index.bytes.", Min: 8, Max: math.MaxInt32},
	{Name: "log.roll.ms", Type: Long, Default: "", Doc: "Default segment.ms; unset falls back to log.roll.hours.", Min: 1, Max: math.MaxInt64},
	{Name: "log.roll.hours", Type: Int, Default: "168", Doc: "Default segment roll age in hours.", Min: 1, Max: math.MaxInt32},
	{Name: "unclean.leader.election.enable", Type: Bool, Default: "false", Doc: "Default unclean.leader.election.enable."},
	{Name: "auto.leader.rebalance.enable", Type: Bool, Default: "true", Doc: "The controller moves leadership back to preferred replicas (each partition's first) when leadership is out of balance.", ReadOnly: true},
	{Name: "leader.imbalance.check.interval.seconds", Type: Long, Default: "300", Doc: "How often the controller checks whether leadership is out of balance.", Min: 1, Max: math.MaxInt64, ReadOnly: true},
	{Name: "leader.imbalance.per.broker.percentage", Type: Int, Default: "10", Doc: "The share of a broker's preferred partitions led elsewhere above which the controller moves them back.", Min: 0, Max: 100, ReadOnly: true},
	{Name: "replica.lag.time.max.ms", Type: Long, Default: "30000", Doc: "A follower that has not caught up with the leader for this long leaves the ISR.", Min: 1, Max: math.MaxInt64, ReadOnly: true},
	{Name: "replica.fetch.wait.max.ms", Type: Int, Default: "500", Doc: "How long a follower's fetch waits at the leader for new data.", Min: 0, Max: math.MaxInt32, ReadOnly: true},
	{Name: "replica.fetch.max.bytes", Type: Int, Default: "1048576", Doc: "Bytes a follower asks for per partition.", Min: 0, Max: math.MaxInt32, ReadOnly: true},
	{Name: "replica.fetch.response.max.bytes", Type: Int, Default: "10485760", Doc: "Bytes a follower asks for in all, over the partitions one fetch carries.", Min: 0, Max: math.MaxInt32, ReadOnly: true},
	{Name: "max.incremental.fetch.session.cache.slots", Type: Int, Default: "1000", Doc: "How many incremental fetch sessions (KIP-227) the broker keeps; a fetcher without one sends full fetches.", Min: 0, Max: math.MaxInt32, ReadOnly: true},
	{Name: "replica.fetch.backoff.ms", Type: Int, Default: "1000", Doc: "How long a follower waits after a fetch error.", Min: 0, Max: math.MaxInt32, ReadOnly: true},
	{Name: "broker.rack", Type: String, Default: "", Doc: "The broker's rack (KIP-36): the controller spreads each partition's replicas over racks, and consumers with client.rack read from a replica in theirs (KIP-392).", ReadOnly: true},
	{Name: "replica.selector.class", Type: String, Default: "", Doc: "Which replica a consumer reads from (KIP-392): empty, the leader; org.apache.kafka.common.replica.RackAwareReplicaSelector, an in-sync replica in the consumer's client.rack.", ReadOnly: true, Enum: []string{"", "org.apache.kafka.common.replica.RackAwareReplicaSelector"}},
	{Name: "broker.heartbeat.interval.ms", Type: Int, Default: "2000", Doc: "Interval between a broker's heartbeats to the controller.", Min: 1, Max: math.MaxInt32, ReadOnly: true},
	{Name: "broker.session.timeout.ms", Type: Int, Default: "9000", Doc: "A broker the controller has not heard from for this long is fenced.", Min: 1, Max: math.MaxInt32, ReadOnly: true},
	{Name: "log.dir.failure.timeout.ms", Type: Long, Default: "30000", Doc: "A broker whose log dir failed halts if it could not tell the controller within this long (KIP-858).", Min: 1, Max: math.MaxInt64, ReadOnly: true},
	{Name: "replica.socket.timeout.ms", Type: Int, Default: "30000", Doc: "How long a broker waits for an answer from another broker or the controller.", Min: 1, Max: math.MaxInt32, ReadOnly: true},
	{Name: "replica.high.watermark.checkpoint.interval.ms", Type: Long, Default: "5000", Doc: "How often a clustered broker writes its replicas' high watermarks to replication-offset-checkpoint.", Min: 1, Max: math.MaxInt64, ReadOnly: true},
}, kafkaBrokerTSV, false)

var (
	topicByName  = index(topicDefs)
	brokerByName = index(brokerDefs)
)

func index(defs []Def) map[string]*Def {
	m := make(map[string]*Def, len(defs))
	for i := range defs {
		m[defs[i].Name] = &defs[i]
	}
	return m
}

// TopicDefs lists the topic settings.
func TopicDefs() []Def { return topicDefs }

// BrokerDefs lists the broker settings.
func BrokerDefs() []Def { return brokerDefs }

// TopicDef looks up a topic setting.
func TopicDef(name string) (*Def, bool) { d, ok := topicByName[name]; return d, ok }

// BrokerDef looks up a broker setting.
func BrokerDef(name string) (*Def, bool) { d, ok := brokerByName[name]; return d, ok }
