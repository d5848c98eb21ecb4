//go:build noquorum

package sim

import (
	"errors"

	"github.com/gregor-kafka/gregor/core/broker"
)

// Without the quorum (the noquorum tag, used for the browser's
// single-broker bundle so that it carries no raft), a world has single
// brokers only: there is no `cluster` command, so w.cl stays nil and none
// of these is reached but for the no-ops.

// HasQuorum says whether this build can run multi-broker worlds.
const HasQuorum = false

var errNoQuorum = errors.New("this build has no metadata quorum: multi-broker worlds need the full build")

type (
	quorumNode  struct{}
	raftMessage struct{}
	simCluster  struct{ nextTick int64 }
)

func (*quorumNode) Close() error                                  { return nil }
func (w *World) startClustered(*Node, broker.Config) error        { return errNoQuorum }
func (w *World) tickCluster()                                     {}
func (w *World) deliverInternal(*Message) bool                    { return false }
func (w *World) brokerSend(*Node, broker.Send)                    {} // a single broker sends nothing
func (w *World) visible(*Message) bool                            { return true }
func (w *World) showReplicas(topic string, partition int32) error { return errNoQuorum }
func (w *World) showMetadata(command) error                       { return errNoQuorum }
func (w *World) showQuorum() error                                { return errNoQuorum }
func (w *World) showController() error                            { return errNoQuorum }
func (w *World) Leader(string, int32) *Node                       { return nil }
