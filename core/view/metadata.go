package view

// Cluster is the cluster as DescribeCluster answers it: its id, the
// active controller and the registered brokers with their racks.
type Cluster struct {
	ID         string
	Controller int32
	Brokers    []ClusterBroker
}

// ClusterBroker is one broker of the cluster.
type ClusterBroker struct {
	ID   int32
	Host string
	Port int32
	Rack string // "" when broker.rack is not set
}

// TopicMeta is one topic as Metadata and DescribeConfigs answer it: its
// partitions' leaders, replicas and ISRs across the cluster, and its
// configs, each with where its value comes from.
type TopicMeta struct {
	Name       string
	ID         string
	Internal   bool
	Partitions []PartitionMeta
	Configs    []Config
}

// PartitionMeta is one partition as Metadata answers it; Error is the
// partition's error code name ("" for NONE), say LEADER_NOT_AVAILABLE.
type PartitionMeta struct {
	Index, Leader, LeaderEpoch int32
	Replicas, ISR              []int32
	Error                      string
}

// Config is one config of a topic: Source is Kafka's
// (DYNAMIC_TOPIC_CONFIG for a value set on the topic,
// DEFAULT_CONFIG...), and a sensitive value is never sent (Value "").
type Config struct {
	Name, Value, Source string
	Sensitive, ReadOnly bool
}
