package broker

import (
	"errors"
	"fmt"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/gregor-kafka/gregor/core/cluster"
)

// A clustered broker's cluster id (KIP-78) is the metadata quorum's: the
// first active controller writes it once into the metadata log
// (cluster.ClusterIDRecord), and the broker keeps it in its metadata file
// next to its logs, as Kafka keeps it in meta.properties.
//
//   - A broker with empty storage adopts the id of the first image that has
//     one; it registers only once it has an id.
//   - It registers with the id its storage carries; the controller refuses
//     a broker of another cluster with INCONSISTENT_CLUSTER_ID, and the
//     broker stays fenced, asking again now and then as Kafka's
//     BrokerLifecycleManager does.
//   - Whatever the controller answers, a broker whose storage belongs to
//     another cluster opens no replica of this one: its logs are left as
//     they are, not mixed with this cluster's records. ApplyMetadata
//     returns ErrInconsistentClusterID, on which the native server refuses
//     to start, as Kafka does when meta.properties names another cluster.
//
// Metadata and DescribeCluster report the stored id, so every broker of a
// cluster reports the same one.

// ErrInconsistentClusterID is ApplyMetadata's error for an image of a
// cluster other than the one the broker's storage belongs to.
var ErrInconsistentClusterID = errors.New("broker: inconsistent cluster id")

// adoptClusterID checks an image's cluster id against the stored one and
// adopts it when the storage has none yet.
func (b *Broker) adoptClusterID(im *cluster.Image) error {
	switch {
	case im.ClusterID == "" || im.ClusterID == b.meta.ClusterID:
		return nil
	case b.meta.ClusterID == "":
		b.meta.ClusterID = im.ClusterID
		if err := b.saveMetadata(); err != nil {
			b.meta.ClusterID = ""
			return fmt.Errorf("broker: storing the cluster id: %w", err)
		}
		b.cfg.Logf("joined cluster %s", im.ClusterID)
		return nil
	}
	return fmt.Errorf("%w: this broker's storage belongs to cluster %s, the metadata quorum's is %s",
		ErrInconsistentClusterID, b.meta.ClusterID, im.ClusterID)
}

// registrationRefused handles a BrokerRegistration answered with an error:
// the broker tries again at its next tick, or after a heartbeat interval
// when it belongs to another cluster (that will not change by itself).
func (b *Broker) registrationRefused(code int16) {
	if code != kerr.InconsistentClusterID.Code {
		return
	}
	b.cl.registerAt = b.now + b.cfg.Settings.Int64("broker.heartbeat.interval.ms")
	b.cfg.Logf("registration refused: this broker's storage belongs to cluster %s, not the controller's (INCONSISTENT_CLUSTER_ID)", b.meta.ClusterID)
}

// clusterIDField is the cluster id as Metadata reports it: null while a
// clustered broker has not learnt it.
func (b *Broker) clusterIDField() *string {
	if b.meta.ClusterID == "" {
		return nil
	}
	id := b.meta.ClusterID
	return &id
}
