package sim

import (
	"fmt"
	"slices"
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/broker"
)

func init() {
	commands["broker"] = cmdBroker
	commands["topic"] = cmdTopic
	commands["add-partitions"] = cmdAddPartitions
	commands["delete-topic"] = cmdDeleteTopic
	commands["producer"] = cmdProducer
	commands["produce"] = cmdProduce
	commands["consumer"] = cmdConsumer
	commands["fetch"] = cmdFetch
	commands["list-offsets"] = cmdListOffsets
	commands["delete-records"] = cmdDeleteRecords
	commands["advance"] = cmdAdvance
	commands["crash"] = cmdCrash
	commands["restart"] = cmdRestart
}

// cmdBroker: broker [setting=value ...] starts the next broker.
func cmdBroker(w *World, c command) error {
	if w.cl != nil {
		return fmt.Errorf("broker: this world is a cluster; its brokers started with the cluster command")
	}
	settings := map[string]string{}
	for _, k := range c.keys {
		settings[k] = c.kv[k]
	}
	n, err := w.addNode(settings)
	if err != nil {
		return err
	}
	w.notef(n.Name, "state", "broker %d started", n.ID)
	return nil
}

// adminClient is the implicit client that sends administrative requests.
func (w *World) adminClient() *admin {
	if a, ok := w.clients["admin"].(*admin); ok {
		return a
	}
	a := &admin{}
	a.init(w, "admin")
	w.clients["admin"] = a
	return a
}

func (w *World) firstBroker(c command) (string, error) {
	if b, ok := c.kv["broker"]; ok {
		_, err := w.node(b)
		return b, err
	}
	if len(w.nodes) == 0 {
		return "", fmt.Errorf("%s: start a broker first (command: broker)", c.name)
	}
	return w.nodes[0].Name, nil
}

// coordinatorNode is the node a view of a coordinator's state asks: the
// one named by broker=, else in a cluster the leader of the internal
// partition (topic, partition of idFor's id), else the first broker.
func (w *World) coordinatorNode(c command, topic string, partition func(*Node) int32) (*Node, error) {
	name, err := w.firstBroker(c)
	if err != nil {
		return nil, err
	}
	n, _ := w.node(name)
	if _, named := c.kv["broker"]; !named && w.cl != nil {
		if l := w.Leader(topic, partition(n)); l != nil {
			n = l
		}
	}
	if !n.Up {
		return nil, fmt.Errorf("show: %s is down", n.Name)
	}
	return n, nil
}

// adminTopic reads an admin command's topic argument and the broker it
// goes to (the first one, unless broker=).
func (w *World) adminTopic(c command) (topic, to string, err error) {
	if topic, err = c.arg(0, "topic name"); err != nil {
		return "", "", err
	}
	to, err = w.firstBroker(c)
	return topic, to, err
}

// adminPartition reads an admin command's topic-partition argument and the
// broker it goes to.
func (w *World) adminPartition(c command) (topic string, part int32, to string, err error) {
	tpArg, err := c.arg(0, "topic-partition")
	if err != nil {
		return "", 0, "", err
	}
	if topic, part, err = splitTP(tpArg); err != nil {
		return "", 0, "", err
	}
	to, err = w.firstBroker(c)
	return topic, part, to, err
}

// cmdTopic: topic NAME [partitions=N] [rf=N] [config=value ...]
func cmdTopic(w *World, c command) error {
	name, to, err := w.adminTopic(c)
	if err != nil {
		return err
	}
	parts, err := c.int("partitions", 1)
	if err != nil {
		return err
	}
	rf, err := c.int("rf", 1)
	if err != nil {
		return err
	}
	req := kmsg.NewPtrCreateTopicsRequest()
	req.SetVersion(5)
	rt := kmsg.NewCreateTopicsRequestTopic()
	rt.Topic, rt.NumPartitions, rt.ReplicationFactor = name, int32(parts), int16(rf)
	for _, k := range c.keys {
		if k == "partitions" || k == "rf" || k == "broker" {
			continue
		}
		v := c.kv[k]
		rt.Configs = append(rt.Configs, kmsg.CreateTopicsRequestTopicConfig{Name: k, Value: &v})
	}
	req.Topics = append(req.Topics, rt)
	w.adminClient().send(w, to, req, nil)
	return nil
}

// cmdAddPartitions: add-partitions TOPIC count=N
func cmdAddPartitions(w *World, c command) error {
	name, to, err := w.adminTopic(c)
	if err != nil {
		return err
	}
	count, err := c.int("count", 0)
	if err != nil {
		return err
	}
	req := kmsg.NewPtrCreatePartitionsRequest()
	rt := kmsg.NewCreatePartitionsRequestTopic()
	rt.Topic, rt.Count = name, int32(count)
	req.Topics = append(req.Topics, rt)
	w.adminClient().send(w, to, req, nil)
	return nil
}

// cmdDeleteTopic: delete-topic TOPIC
func cmdDeleteTopic(w *World, c command) error {
	name, to, err := w.adminTopic(c)
	if err != nil {
		return err
	}
	req := kmsg.NewPtrDeleteTopicsRequest()
	req.SetVersion(6)
	req.Topics = append(req.Topics, kmsg.DeleteTopicsRequestTopic{Topic: &name})
	w.adminClient().send(w, to, req, nil)
	return nil
}

// cmdProducer: producer NAME [idempotent] [acks=all|1|0] [retries=N]
// [batch.size=BYTES] or producer NAME transactional.id=ID
// [timeout=DURATION] (txncmds.go)
func cmdProducer(w *World, c command) error {
	name, err := c.arg(0, "producer name")
	if err != nil {
		return err
	}
	if w.clients[name] != nil {
		return fmt.Errorf("producer: %s already exists", name)
	}
	to, err := w.firstBroker(c)
	if err != nil {
		return err
	}
	acks := int16(-1)
	switch c.kv["acks"] {
	case "", "all", "-1":
	case "1":
		acks = 1
	case "0":
		acks = 0
	default:
		return fmt.Errorf("producer: acks must be all, 1 or 0")
	}
	retries, err := c.int("retries", 5)
	if err != nil {
		return err
	}
	if id, ok := c.kv["transactional.id"]; ok {
		return newTxnProducerCmd(w, c, name, to, id) // txncmds.go
	}
	idem := c.has("idempotent")
	if idem && acks != -1 {
		return fmt.Errorf("producer: an idempotent producer needs acks=all")
	}
	batchSize, err := c.int("batch.size", defaultBatchSize)
	if err != nil {
		return err
	}
	if batchSize < 1 {
		return fmt.Errorf("producer: batch.size must be at least 1")
	}
	p := newProducer(w, name, to, acks, int(retries), idem)
	p.batchSize = int(batchSize)
	w.clients[name] = p
	return nil
}

// cmdProduce: produce PRODUCER TOPIC [key=K] value=V [partition=N]
// [count=N [interval=DURATION]]; count numbers the values, interval moves
// the clock between records so their timestamps differ. A record with
// neither key nor partition goes to the sticky partition (sticky.go).
func cmdProduce(w *World, c command) error {
	name, err := c.arg(0, "producer name")
	if err != nil {
		return err
	}
	p, ok := w.clients[name].(*producer)
	if !ok {
		return fmt.Errorf("produce: no producer %q", name)
	}
	if p.txn != nil && !p.txn.begun {
		return fmt.Errorf("produce: %s is transactional: begin %s first", name, name)
	}
	if p.txn != nil && p.txn.end != nil {
		// As the Java client refuses send() while committing or aborting:
		// a record sent now would open a transaction the coordinator
		// never hears of.
		return fmt.Errorf("produce: %s is ending its transaction: wait for it, then begin %s", name, name)
	}
	topic, err := c.arg(1, "topic")
	if err != nil {
		return err
	}
	part, err := c.int("partition", -1)
	if err != nil {
		return err
	}
	_, hasKey := c.kv["key"]
	count, err := c.int("count", 1)
	if err != nil {
		return err
	}
	interval := int64(0)
	if v, ok := c.kv["interval"]; ok {
		if interval, err = duration(v); err != nil {
			return err
		}
	}
	for i := range count {
		if i > 0 && interval > 0 {
			if err := w.advance(interval); err != nil {
				return err
			}
		}
		value := c.kv["value"]
		if count > 1 {
			value = fmt.Sprintf("%s%d", value, i)
		}
		r := &pendingRecord{topic: topic, partition: int32(part), value: []byte(value)}
		if slices.Contains(c.args[2:], "tombstone") {
			r.value = nil // a delete for a compacted topic: a null value
		}
		if hasKey {
			r.key = []byte(c.kv["key"])
		}
		p.produce(w, r)
		w.settle()
	}
	return nil
}

// cmdConsumer: consumer NAME [read_committed] [rack=R]
func cmdConsumer(w *World, c command) error {
	name, err := c.arg(0, "consumer name")
	if err != nil {
		return err
	}
	if w.clients[name] != nil {
		return fmt.Errorf("consumer: %s already exists", name)
	}
	to, err := w.firstBroker(c)
	if err != nil {
		return err
	}
	w.clients[name] = newConsumer(w, name, to, c.has("read_committed"), c.kv["rack"])
	return nil
}

// cmdFetch: fetch CONSUMER TOPIC-P [offset=N] [wait=MS]
func cmdFetch(w *World, c command) error {
	name, err := c.arg(0, "consumer name")
	if err != nil {
		return err
	}
	cons, ok := w.clients[name].(*consumer)
	if !ok {
		return fmt.Errorf("fetch: no consumer %q", name)
	}
	tpArg, err := c.arg(1, "topic-partition")
	if err != nil {
		return err
	}
	topic, part, err := splitTP(tpArg)
	if err != nil {
		return err
	}
	offset, err := c.int("offset", -1)
	if err != nil {
		return err
	}
	wait := int64(0)
	if v, ok := c.kv["wait"]; ok {
		if wait, err = duration(v); err != nil {
			return err
		}
	}
	cons.fetch(w, topic, part, offset, int32(wait))
	return nil
}

// cmdListOffsets: list-offsets TOPIC-P timestamp=earliest|latest|max|MS
func cmdListOffsets(w *World, c command) error {
	topic, part, to, err := w.adminPartition(c)
	if err != nil {
		return err
	}
	ts := int64(-1)
	switch v := c.kv["timestamp"]; v {
	case "", "latest":
	case "earliest":
		ts = -2
	case "max":
		ts = -3
	default:
		if ts, err = c.int("timestamp", -1); err != nil {
			return err
		}
	}
	req := kmsg.NewPtrListOffsetsRequest()
	req.SetVersion(7)
	rt := kmsg.NewListOffsetsRequestTopic()
	rt.Topic = topic
	rp := kmsg.NewListOffsetsRequestTopicPartition()
	rp.Partition, rp.Timestamp = part, ts
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	w.adminClient().send(w, to, req, nil)
	return nil
}

// cmdDeleteRecords: delete-records TOPIC-P before=N
func cmdDeleteRecords(w *World, c command) error {
	topic, part, to, err := w.adminPartition(c)
	if err != nil {
		return err
	}
	before, err := c.int("before", -1)
	if err != nil {
		return err
	}
	req := kmsg.NewPtrDeleteRecordsRequest()
	rt := kmsg.NewDeleteRecordsRequestTopic()
	rt.Topic = topic
	rt.Partitions = []kmsg.DeleteRecordsRequestTopicPartition{{Partition: part, Offset: before}}
	req.Topics = append(req.Topics, rt)
	w.adminClient().send(w, to, req, nil)
	return nil
}

// cmdAdvance: advance DURATION moves the virtual clock.
func cmdAdvance(w *World, c command) error {
	d, err := c.arg(0, "duration")
	if err != nil {
		return err
	}
	ms, err := duration(d)
	if err != nil {
		return err
	}
	return w.advance(ms)
}

// cmdCrash: crash BROKER [process] stops it as a power loss would:
// whatever was not synced is gone, and so are the messages in flight to and
// from it. With process, only the process dies: the machine's page cache
// keeps what was written.
func cmdCrash(w *World, c command) error {
	n, err := w.brokerArg(c)
	if err != nil {
		return err
	}
	if !n.Up {
		return fmt.Errorf("crash: %s is already down", n.Name)
	}
	w.takeDown(n, c.has("process"))
	return nil
}

// takeDown stops a node: its quorum member closes, its store loses what
// was not synced (only the process dies: the page cache keeps it), and
// what was in flight to or from it is lost.
func (w *World) takeDown(n *Node, process bool) {
	name := n.Name
	n.stopping, n.stopped = false, false
	lost, torn := 0, n.Store.TearArmed()
	for _, f := range n.Store.Names() {
		lost += n.Store.Unsynced(f)
	}
	if n.Quorum != nil {
		_ = n.Quorum.Close()
	}
	if process {
		n.Store.Kill()
	} else {
		size := func() (sum int) {
			for _, f := range n.Store.Names() {
				sum += n.Store.Size(f)
			}
			return sum
		}
		before := size()
		n.Store.Crash()
		lost = before - size() // a torn crash keeps part of the unsynced bytes
	}
	n.Up = false
	kept := w.net.queue[:0]
	for _, m := range w.net.queue {
		if m.From == name || m.To == name {
			continue
		}
		kept = append(kept, m)
	}
	w.net.queue = kept
	if process {
		w.notef(name, "state", "process killed: the page cache keeps its %d unsynced bytes", lost)
	} else {
		how := ""
		if torn {
			how = " (the rest reached the disk, the last write of each file torn)"
		}
		w.notef(name, "state", "crashed: %d unsynced bytes lost%s", lost, how)
	}
}

// cmdRestart: restart BROKER recovers it from its storage.
func cmdRestart(w *World, c command) error {
	name, err := c.arg(0, "broker")
	if err != nil {
		return err
	}
	n, err := w.node(name)
	if err != nil {
		return err
	}
	if n.Up {
		return fmt.Errorf("restart: %s is running (crash it first)", name)
	}
	if err := w.start(n); err != nil {
		return err
	}
	w.notef(name, "state", "%s", restartedLine(n.Broker.Topics()))
	return nil
}

// restartedLine says what a restarted broker recovered: the log end
// offset of each partition with records, and how many are empty (the 50
// partitions of an internal topic would otherwise fill the line).
func restartedLine(topics []*broker.Topic) string {
	var parts []string
	empty := 0
	for _, t := range topics {
		for _, p := range t.Partitions {
			if leo := p.Log().EndOffset(); leo > 0 {
				parts = append(parts, fmt.Sprintf("%s leo=%d", p, leo))
			} else {
				empty++
			}
		}
	}
	if empty > 0 {
		parts = append(parts, fmt.Sprintf("%d empty partitions", empty))
	}
	if len(parts) == 0 {
		return "restarted"
	}
	return "restarted: " + strings.Join(parts, ", ")
}
