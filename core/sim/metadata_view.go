//go:build !noquorum

package sim

import (
	"fmt"
	"strings"

	"github.com/gregor-kafka/gregor/core/cluster"
	"github.com/gregor-kafka/gregor/core/cluster/quorum"
)

// The metadata log as a learner reads it. In KRaft every piece of cluster
// metadata that ZooKeeper used to hold in znodes (/brokers/ids,
// /brokers/topics, /controller, ISR state) is a record in one replicated
// log, __cluster_metadata (KIP-500, KIP-631): `show metadata` lists the
// committed records under Kafka's record names, `show quorum` the raft
// state of each voter and which one is the active controller.

// metadataEntry is one committed batch of the metadata log.
type metadataEntry struct {
	index, term uint64
	records     []cluster.Record
	errs        []error
}

// remember keeps a committed batch for `show metadata`, once per index.
func (c *simCluster) remember(a quorum.Applied) {
	if a.Batch != nil && len(a.Batch.Records) > 0 {
		c.metadata = append(c.metadata, metadataEntry{a.Index, a.Term, a.Batch.Records, a.Errs})
	}
}

// showMetadata: show metadata [from=INDEX] lists the committed records.
func (w *World) showMetadata(c command) error {
	if w.cl == nil {
		return fmt.Errorf("show metadata: this world is not a cluster")
	}
	from, err := c.int("from", 0)
	if err != nil {
		return err
	}
	for _, e := range w.cl.metadata {
		if e.index < uint64(from) {
			continue
		}
		for i, r := range e.records {
			line := fmt.Sprintf("index %d term %d: %s", e.index, e.term, describeMetadataRecord(r, e.index))
			if i < len(e.errs) && e.errs[i] != nil {
				line += " (not applied: " + e.errs[i].Error() + ")"
			}
			w.notef("quorum", "view", "%s", line)
		}
	}
	return nil
}

// describeMetadataRecord names a record as Kafka's metadata records are
// named; index is its entry's, which is a registration's broker epoch.
func describeMetadataRecord(r cluster.Record, index uint64) string {
	switch {
	case r.ClusterID != nil:
		return "ClusterIdRecord " + r.ClusterID.ID
	case r.RegisterBroker != nil:
		return fmt.Sprintf("RegisterBrokerRecord b%d epoch=%d", r.RegisterBroker.ID, index)
	case r.FenceBroker != nil:
		return fmt.Sprintf("FenceBrokerRecord b%d epoch=%d", r.FenceBroker.ID, r.FenceBroker.Epoch)
	case r.UnfenceBroker != nil:
		return fmt.Sprintf("UnfenceBrokerRecord b%d epoch=%d", r.UnfenceBroker.ID, r.UnfenceBroker.Epoch)
	case r.BrokerChange != nil:
		x := r.BrokerChange
		return fmt.Sprintf("BrokerRegistrationChangeRecord b%d epoch=%d in_controlled_shutdown=%v offline_log_dir=%v", x.ID, x.Epoch, x.InControlledShutdown, x.LogDirOffline)
	case r.UnregisterBroker != nil:
		return fmt.Sprintf("UnregisterBrokerRecord b%d epoch=%d", r.UnregisterBroker.ID, r.UnregisterBroker.Epoch)
	case r.Topic != nil:
		return fmt.Sprintf("TopicRecord %s id=%s", r.Topic.Name, r.Topic.ID)
	case r.RemoveTopic != nil:
		return fmt.Sprintf("RemoveTopicRecord %s id=%s", r.RemoveTopic.Name, r.RemoveTopic.ID)
	case r.Partition != nil:
		p := r.Partition
		return fmt.Sprintf("PartitionRecord %s-%d replicas=%s isr=%s leader=%s", p.Topic, p.Partition, idList(p.Replicas), idList(p.ISR), leaderName(p.Leader))
	case r.PartitionChange != nil:
		p := r.PartitionChange
		s := fmt.Sprintf("PartitionChangeRecord %s-%d", p.Topic, p.Partition)
		if p.Leader != cluster.NoLeaderChange {
			s += " leader=" + leaderName(p.Leader)
		}
		if p.ISR != nil {
			s += " isr=" + idList(p.ISR)
		}
		if p.Unclean {
			s += " unclean"
		}
		if r := p.Reassign; r != nil {
			s += fmt.Sprintf(" replicas=%s adding=%s removing=%s", idList(r.Replicas), idList(r.Adding), idList(r.Removing))
		}
		return s
	case r.Config != nil:
		v := "(deleted)"
		if r.Config.Value != nil {
			v = *r.Config.Value
		}
		if r.Config.Group != "" {
			return fmt.Sprintf("ConfigRecord group %s %s=%s", r.Config.Group, r.Config.Name, v)
		}
		return fmt.Sprintf("ConfigRecord %s %s=%s", r.Config.Topic, r.Config.Name, v)
	case r.ProducerIDs != nil:
		p := r.ProducerIDs
		return fmt.Sprintf("ProducerIdsRecord b%d ids %d..%d", p.BrokerID, p.Start, p.Start+int64(p.Len)-1)
	case r.FeatureLevel != nil:
		return fmt.Sprintf("FeatureLevelRecord %s=%d", r.FeatureLevel.Name, r.FeatureLevel.Level)
	}
	return "(empty record)"
}

// showQuorum: show quorum prints each voter's raft state: its role (the
// leader is the active controller once it has applied its own term), term
// and the last metadata index it applied.
func (w *World) showQuorum() error {
	if w.cl == nil {
		return fmt.Errorf("show quorum: this world is not a cluster")
	}
	for _, n := range w.nodes {
		if !n.Up {
			w.notef(n.Name, "view", "down")
			continue
		}
		st := n.Quorum.Status()
		role := strings.TrimPrefix(st.State.String(), "State")
		if st.Controller {
			role += ", active controller"
		}
		w.notef(n.Name, "view", "%s, term %d, applied index %d", strings.ToLower(role), st.Term, st.Applied)
	}
	return nil
}
