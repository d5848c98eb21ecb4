package view

// Group is one consumer group as its coordinator holds it.
type Group struct {
	ID          string
	Coordinator string // the broker whose coordinator holds it
	Partition   int32  // of __consumer_offsets
	Type        string // "classic" or "consumer" (KIP-848)
	State       string // as DescribeGroups spells it: "Stable"
	// Generation is the classic generation, or the KIP-848 group epoch.
	Generation int32
	Protocol   string // the chosen assignor ("range"), while Stable
	Members    []Member
	// Assigned is who owns each partition, in topic-partition order;
	// empty until the group is Stable (classic), as DescribeGroups tells.
	Assigned []Owned
	// Moved counts the partitions whose owner differs from the previous
	// generation's.
	Moved   int
	Changed bool // state or generation differ from the previous step
}

// Member is one group member. Color is its index among the members, so
// its cells in the assignment grid share a colour and carry its Name.
type Member struct {
	ID       string // the member id the coordinator handed out
	Name     string // the client id: the simulated consumer's name
	Instance string // group.instance.id (KIP-345), "" if dynamic
	Leader   bool   // the classic group's leader, which ran the assignor
	Color    int
}

// Owned is one partition of the assignment.
type Owned struct {
	Partition string // "orders-2"
	Member    string // its owner's Name
	Color     int    // its owner's Color
	// Moved marks a partition that had another owner in the previous
	// generation; Was names that owner ("" if it was new to the group).
	Moved bool
	Was   string
}

// States is the state machine of a group of type typ, in the order a
// rebalance walks it (Kafka's GroupState for classic groups,
// ConsumerGroupState for KIP-848 ones).
func States(typ string) []string {
	if typ == "consumer" {
		return []string{"Empty", "Assigning", "Reconciling", "Stable", "Dead"}
	}
	return []string{"Empty", "PreparingRebalance", "CompletingRebalance", "Stable", "Dead"}
}
