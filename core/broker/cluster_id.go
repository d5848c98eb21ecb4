package broker

import (
	"errors"
	"fmt"
	"slices"

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
//
// Storage written before cluster ids were the quorum's (a metadata file
// without "format") carries an id each broker drew for itself. A
// clustered broker migrates it in place when it starts: it forgets the
// drawn id and adopts the quorum's as empty storage does, unless a
// partition directory it would open names another topic id than the
// quorum's image (partition.metadata): that storage is another cluster's
// and is refused as above. The file takes the new format at its next
// write, once the logs are open (writing it earlier would drop their
// start offsets); until then each start migrates again. A single broker
// keeps its id: it was always its own.

// metadataFormat is the metadata file's format: 2 since cluster ids are
// the quorum's (no field: 1).
const metadataFormat = 2

// ErrInconsistentClusterID is ApplyMetadata's error for an image of a
// cluster other than the one the broker's storage belongs to.
var ErrInconsistentClusterID = errors.New("broker: inconsistent cluster id")

// adoptClusterID checks an image's cluster id against the stored one and
// adopts it when the storage has none yet.
func (b *Broker) adoptClusterID(im *cluster.Image) error {
	switch {
	case im.ClusterID == "" || im.ClusterID == b.meta.ClusterID:
		return nil
	case b.meta.drawnID != "":
		if dir, err := b.contradicts(im); err != nil || dir != "" {
			return fmt.Errorf("%w: %s names another topic id than the metadata quorum's (cluster %s): this storage belongs to another cluster%v",
				ErrInconsistentClusterID, dir, im.ClusterID, errSuffix(err))
		}
		b.cfg.Logf("migrated storage: adopted the quorum's cluster id %s in place of %s, drawn by an earlier Gregor", im.ClusterID, b.meta.drawnID)
		b.meta.ClusterID, b.meta.drawnID = im.ClusterID, ""
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

// contradicts names a partition directory this broker would open for
// the image that belongs to another topic id.
func (b *Broker) contradicts(im *cluster.Image) (string, error) {
	for _, name := range im.TopicNames() {
		it := im.Topics[name]
		for i, ip := range it.Partitions {
			if !slices.Contains(ip.Replicas, b.cfg.NodeID) {
				continue
			}
			dir := fmt.Sprintf("%s-%d", name, i)
			id, ok, err := readTopicID(b.st, dir)
			if err != nil {
				return dir, err
			}
			if ok && id != it.ID {
				return dir, nil
			}
		}
	}
	return "", nil
}

func errSuffix(err error) string {
	if err == nil {
		return ""
	}
	return " (" + err.Error() + ")"
}

// migrateMetadata brings a metadata file of an earlier format up to
// metadataFormat, in memory (see above).
func (b *Broker) migrateMetadata() error {
	switch {
	case b.meta.Format > metadataFormat:
		return fmt.Errorf("broker: %s has format %d, newer than this Gregor's %d", metadataFile, b.meta.Format, metadataFormat)
	case b.meta.Format < metadataFormat && b.cfg.Cluster != nil && b.meta.ClusterID != "":
		b.cfg.Logf("%s predates cluster ids of the quorum: migrating it, the broker adopts the quorum's id in place of %s", metadataFile, b.meta.ClusterID)
		b.meta.drawnID, b.meta.ClusterID = b.meta.ClusterID, ""
	}
	b.meta.Format = metadataFormat
	if b.bootstrapFeatures(false) {
		return b.saveMetadata()
	}
	return nil
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
