package broker

import (
	"maps"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/cluster"
)

// UpdateFeatures v0-2 (KIP-584; v1 upgrade types and validate_only,
// KIP-778; v2 answers with the top-level error only). Features are read
// through ApiVersions (DescribeFeatures is ApiVersions, KIP-584). The
// finalized levels are FeatureLevelRecords (core/cluster features.go): a
// single broker keeps them in its metadata file, a cluster in the
// metadata log, where the controller writes them (UpdateFeatures is
// forwarded to it, KIP-590) and every broker reads them from its image.
// transaction.version decides how the transaction coordinator's clients
// behave (KIP-890 part 2: franz-go and the Java client switch when it is
// 2); the coordinator itself follows each request's version, as Kafka's.
func init() {
	register(57, api{
		min: 0, max: 2, serve: byController(applyUpdateFeatures),
		acl: onCluster{kmsg.ACLOperationAlter},
	})
}

// applyUpdateFeatures is how a single broker, its own controller, serves it.
func applyUpdateFeatures(b *Broker, r *Request) kmsg.Response {
	if b.meta.Features == nil {
		b.meta.Features = map[string]int16{}
	}
	resp, recs := cluster.UpdateFeatures(r.Msg.(*kmsg.UpdateFeaturesRequest), b.meta.Features)
	if len(recs) == 0 {
		return resp
	}
	old := maps.Clone(b.meta.Features)
	b.applyFeatures(recs)
	for _, rec := range recs {
		b.cfg.Logf("feature %s finalized at level %d", rec.FeatureLevel.Name, rec.FeatureLevel.Level)
	}
	if err := b.saveMetadata(); err != nil {
		b.cfg.Logf("saving feature levels: %v", err)
		b.meta.Features = old
		b.meta.FeaturesEpoch--
		resp.ErrorCode = kerr.KafkaStorageError.Code
		for i := range resp.Results {
			resp.Results[i].ErrorCode = kerr.KafkaStorageError.Code
		}
	}
	return resp
}

// applyFeatures applies feature records to a single broker's metadata.
func (b *Broker) applyFeatures(recs []cluster.Record) {
	if b.meta.Features == nil {
		b.meta.Features = map[string]int16{}
	}
	for _, rec := range recs {
		cluster.ApplyFeature(b.meta.Features, rec.FeatureLevel)
	}
	b.meta.FeaturesEpoch++
}

// bootstrapFeatures finalizes, on a single broker, the levels its
// metadata lacks (cluster.BootstrapFeatures): the release's on a new
// data directory (fresh), with Config.Features over them. It reports
// whether it changed anything.
func (b *Broker) bootstrapFeatures(fresh bool) bool {
	if b.cfg.Cluster != nil {
		return false // the controller does it in the metadata log
	}
	recs := cluster.BootstrapFeatures(b.meta.Features, fresh, b.cfg.Features)
	if len(recs) == 0 {
		return false
	}
	b.applyFeatures(recs)
	return true
}
