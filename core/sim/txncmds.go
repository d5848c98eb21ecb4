package sim

import (
	"fmt"
	"sort"

	"github.com/twmb/franz-go/pkg/kmsg"
)

func init() {
	commands["begin"] = cmdBegin
	commands["commit"] = cmdEndTxn
	commands["abort"] = cmdEndTxn
	commands["send-offsets"] = cmdSendOffsets
	commands["kill"] = cmdKill
	commands["committed"] = cmdCommitted
	commands["describe-txn"] = cmdDescribeTxn
}

// newTxnProducerCmd: producer NAME transactional.id=ID [timeout=60s]
// [tv=2] starts a transactional producer (initTransactions); tv=2 runs
// transaction version 2 (txn.go).
func newTxnProducerCmd(w *World, c command, name, to, id string) error {
	timeout := int64(60000)
	if v, ok := c.kv["timeout"]; ok {
		var err error
		if timeout, err = duration(v); err != nil {
			return err
		}
	}
	tv, err := c.int("tv", 1)
	if err != nil {
		return err
	}
	if tv < 0 || tv > 2 {
		return fmt.Errorf("producer: tv must be 0, 1 or 2")
	}
	w.clients[name] = newTxnProducer(w, name, to, id, int32(timeout), tv == 2)
	return nil
}

func (w *World) txnProducer(c command) (*producer, error) {
	name, err := c.arg(0, "producer name")
	if err != nil {
		return nil, err
	}
	p, ok := w.clients[name].(*producer)
	if !ok || p.txn == nil {
		return nil, fmt.Errorf("%s: no transactional producer %q", c.name, name)
	}
	if p.pid < 0 {
		return nil, fmt.Errorf("%s: %s has no producer id yet", c.name, name)
	}
	return p, nil
}

// cmdBegin: begin PRODUCER (beginTransaction: local, nothing is sent).
func cmdBegin(w *World, c command) error {
	p, err := w.txnProducer(c)
	if err != nil {
		return err
	}
	if p.txn.begun {
		return fmt.Errorf("begin: %s already has a transaction open", p.name)
	}
	p.txn.begun = true
	first := "AddPartitionsToTxn"
	if p.txn.tv2 {
		first = "Produce (v12)"
	}
	w.notef(p.name, "note", "beginTransaction: local only, the coordinator hears of it with the first %s", first)
	return nil
}

// cmdEndTxn: commit PRODUCER | abort PRODUCER. EndTxn goes once every
// send and offset commit of the transaction is answered.
func cmdEndTxn(w *World, c command) error {
	if len(c.args) > 0 && c.name == "commit" {
		if _, ok := w.clients[c.args[0]].(*member); ok {
			return cmdMemberCommit(w, c) // group_cmds.go
		}
	}
	p, err := w.txnProducer(c)
	if err != nil {
		return err
	}
	if !p.txn.begun {
		return fmt.Errorf("%s: %s has no transaction open", c.name, p.name)
	}
	commit := c.name == "commit"
	switch {
	case p.txn.fenced:
		return fmt.Errorf("%s: %s was fenced; start a new producer", c.name, p.name)
	case commit && p.txn.abortable:
		return fmt.Errorf("commit: a send of %s failed: the transaction can only abort", p.name)
	}
	p.txn.end = &commit
	if len(p.txn.added) == 0 && !p.txn.busy(p) {
		// Nothing was added: the coordinator never heard of this
		// transaction, and the Java client sends nothing.
		p.txn.end, p.txn.begun = nil, false
		w.notef(p.name, "note", "empty transaction: nothing to send")
		return nil
	}
	p.txn.maybeEnd(w, p)
	return nil
}

// cmdSendOffsets: send-offsets PRODUCER group=G TOPIC-P=OFFSET ...
// (sendOffsetsToTransaction): the consumer positions to commit with the
// transaction.
func cmdSendOffsets(w *World, c command) error {
	p, err := w.txnProducer(c)
	if err != nil {
		return err
	}
	if !p.txn.begun {
		return fmt.Errorf("send-offsets: %s has no transaction open", p.name)
	}
	g := c.kv["group"]
	if g == "" {
		return fmt.Errorf("send-offsets: give group=G")
	}
	o := &txnOffsets{group: g, offsets: map[string]int64{}}
	for _, k := range c.keys {
		if k == "group" {
			continue
		}
		if _, _, err := splitTP(k); err != nil {
			return err
		}
		n, err := c.int(k, 0)
		if err != nil {
			return err
		}
		o.offsets[k] = n
	}
	if len(o.offsets) == 0 {
		return fmt.Errorf("send-offsets: give TOPIC-P=OFFSET")
	}
	p.txn.offsets = o
	p.txn.addOffsets(w, p)
	return nil
}

// cmdKill: kill CLIENT ends a client process at once: what it had in
// flight is answered to no one, and it never sends again.
func cmdKill(w *World, c command) error {
	name, err := c.arg(0, "client name")
	if err != nil {
		return err
	}
	if w.clients[name] == nil {
		return fmt.Errorf("kill: no client %q", name)
	}
	w.clients[name] = deadClient{name}
	w.notef(name, "state", "process killed")
	return nil
}

// cmdCommitted: committed GROUP TOPIC-P asks the group coordinator for
// the group's committed offset (OffsetFetch, require_stable as Java
// consumers set it under read_committed).
func cmdCommitted(w *World, c command) error {
	g, err := c.arg(0, "group")
	if err != nil {
		return err
	}
	tpArg, err := c.arg(1, "topic-partition")
	if err != nil {
		return err
	}
	topic, part, err := splitTP(tpArg)
	if err != nil {
		return err
	}
	to, err := w.firstBroker(c)
	if err != nil {
		return err
	}
	req := kmsg.NewPtrOffsetFetchRequest()
	req.SetVersion(7)
	req.Group, req.RequireStable = g, true
	req.Topics = []kmsg.OffsetFetchRequestTopic{{Topic: topic, Partitions: []int32{part}}}
	w.adminClient().send(w, to, req, nil)
	return nil
}

// cmdDescribeTxn: describe-txn ID... and list (ListTransactions) as an
// operator would with kafka-transactions.sh.
func cmdDescribeTxn(w *World, c command) error {
	to, err := w.firstBroker(c)
	if err != nil {
		return err
	}
	if len(c.args) == 0 {
		req := kmsg.NewPtrListTransactionsRequest()
		w.adminClient().send(w, to, req, nil)
		return nil
	}
	ids := append([]string(nil), c.args...)
	sort.Strings(ids)
	req := kmsg.NewPtrDescribeTransactionsRequest()
	req.TransactionalIDs = ids
	w.adminClient().send(w, to, req, nil)
	return nil
}
