package view

// Actor kinds, one per lane of a diagram: clients on the left, brokers in
// the centre, the controller quorum on the right.
const (
	KindProducer   = "producer"
	KindConsumer   = "consumer"
	KindMember     = "member" // a consumer group member
	KindAdmin      = "admin"
	KindClient     = "client" // a killed client process: what it was is gone
	KindBroker     = "broker"
	KindController = "controller" // a voter of the metadata quorum (KIP-500)
)

// Actor is one party that sends or receives messages: a client, a broker,
// or a voter of the controller quorum.
//
// # Invariants
//
//   - Name is unique among a world's actors, and is the name its messages
//     carry (sim.Event From and To), except for a controller: its
//     messages carry the name of the broker that hosts it (Host), since
//     Gregor's clusters run KRaft's combined mode (a node is a broker and
//     a voter).
//   - Actors are listed clients first (in creation order), then brokers
//     (by id), then controllers (by id): the same world lists them in the
//     same order.
type Actor struct {
	Name string
	Kind string
	Host string // a controller's broker
	Up   bool   // false: a crashed broker, or a killed client
	// Stopped marks a broker (or, in combined mode, its controller) down
	// through a controlled shutdown (stop), not a crash.
	Stopped bool
	// Cut is true for a broker (or its controller) on the side a network
	// partition cuts off from the other brokers.
	Cut bool
	// Roles are what the actor is for the others, as Kafka names them:
	// "active controller", "voter", "group coordinator (shop)",
	// "transaction coordinator (app)", and a broker's "rack az1"
	// (broker.rack, KIP-36). Partition leadership is in
	// Partition.Leader, since it depends on the partition in focus.
	Roles []string
	// Detail is one short line of client state: "group shop: stable",
	// "transactional.id app", "acks=all idempotent".
	Detail string
}
