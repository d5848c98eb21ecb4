package view

// Txn is one transactional id as its transaction coordinator holds it
// (Kafka's TransactionMetadata, KIP-98).
type Txn struct {
	ID          string
	Coordinator string // the broker whose coordinator holds it
	Partition   int32  // of __transaction_state
	State       string // as DescribeTransactions spells it: "PrepareCommit"
	ProducerID  int64
	Epoch       int16
	TimeoutMs   int32
	Partitions  []string // in the transaction now
	TV2         bool     // transaction version 2 (KIP-890 part 2): every commit and abort bumps Epoch
	Changed     bool     // its state or epoch differ from the previous step
}

// ClientProducer is what a simulated producer knows: its producer id and
// epoch (-1 before InitProducerId), the next sequence it will send to each
// partition, and its transaction, if transactional. Set it beside each
// partition's view.Producer to see the client and the broker agree.
type ClientProducer struct {
	Name            string
	Idempotent      bool
	TransactionalID string
	ProducerID      int64
	Epoch           int16
	NextSeq         []Seq
	InTxn           []string // partitions added to the open transaction
	Fenced          bool
}

// Seq is the next sequence a producer sends to one partition.
type Seq struct {
	Partition string
	Next      int32
}
