package cluster

import (
	"fmt"
	"maps"
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Feature versioning (KIP-584, KIP-1022). A feature is a name with a
// range of levels a broker supports; the cluster finalizes one level per
// feature, which is what clients act on (ApiVersions v3+ reports both,
// with an epoch for the finalized set). Finalized levels are
// FeatureLevelRecords in the metadata: the single broker's metadata file,
// or the cluster's metadata log, written by the controller on
// UpdateFeatures (KIP-778: upgrade, safe and unsafe downgrade) and, when
// the metadata is new, by the format step (kafka-storage format's
// defaults: the release's levels, DefaultFeatures).
//
// Invariants: a finalized level is within its feature's supported range;
// a level of 0 is not finalized (the record removes the feature, as
// Kafka's FeatureLevelRecord with level 0 does); metadata that predates
// features keeps transaction.version at 0 until an operator upgrades it.

// Feature names Gregor knows.
const (
	MetadataVersion    = "metadata.version"
	GroupVersion       = "group.version"
	TransactionVersion = "transaction.version"
)

// SupportedFeature is a feature's range of levels this build serves.
type SupportedFeature struct {
	Name     string
	Min, Max int16
}

// SupportedFeatures are the features Gregor serves, sorted by name:
// metadata.version 25 (Kafka 4.0-IV3: Gregor's metadata has one
// format), group.version 1 (KIP-848 groups are always served), and
// transaction.version 0 to 2 (2 is KIP-890 part 2: the epoch bump per
// transaction and the implicit partition add).
var SupportedFeatures = []SupportedFeature{
	{GroupVersion, 1, 1},
	{MetadataVersion, 25, 25},
	{TransactionVersion, 0, 2},
}

// FeatureLevelRecord finalizes a feature at a level (KRaft's
// FeatureLevelRecord); level 0 removes it.
type FeatureLevelRecord struct {
	Name  string `json:"name"`
	Level int16  `json:"level"`
}

// defaultFeatures are the levels newly formatted metadata starts with:
// Kafka 4.0's kafka-storage format defaults for its release version.
var defaultFeatures = map[string]int16{MetadataVersion: 25, GroupVersion: 1, TransactionVersion: 2}

// BootstrapFeatures are the records that finalize what metadata lacks:
// for new metadata (fresh) the release's defaults, with overrides (the
// format step's --feature name=level); for metadata written before
// features only the features that have no level 0 (metadata.version,
// group.version), so transaction.version stays at 0 until an operator
// upgrades it. Sorted by name.
func BootstrapFeatures(finalized map[string]int16, fresh bool, overrides map[string]int16) []Record {
	var recs []Record
	for _, f := range SupportedFeatures {
		level, ok := defaultFeatures[f.Name]
		if o, set := overrides[f.Name]; set && fresh {
			level, ok = o, true
		}
		if _, done := finalized[f.Name]; done || !ok || level == 0 || (!fresh && f.Min == 0) {
			continue
		}
		recs = append(recs, Record{FeatureLevel: &FeatureLevelRecord{Name: f.Name, Level: level}})
	}
	return recs
}

// CheckFeatureLevels reports a format override Gregor cannot serve.
func CheckFeatureLevels(levels map[string]int16) error {
	for _, name := range slices.Sorted(maps.Keys(levels)) { // the first bad one is reported
		l := levels[name]
		f, ok := supported(name)
		if !ok {
			return fmt.Errorf("cluster: unknown feature %q", name)
		}
		if l < f.Min || l > f.Max {
			return fmt.Errorf("cluster: feature %s supports levels %d-%d, not %d", name, f.Min, f.Max, l)
		}
	}
	return nil
}

// ApplyFeature applies a FeatureLevelRecord to the finalized levels.
func ApplyFeature(finalized map[string]int16, r *FeatureLevelRecord) {
	if r.Level <= 0 {
		delete(finalized, r.Name)
		return
	}
	finalized[r.Name] = r.Level
}

func supported(name string) (SupportedFeature, bool) {
	for _, f := range SupportedFeatures {
		if f.Name == name {
			return f, true
		}
	}
	return SupportedFeature{}, false
}

// Upgrade types of UpdateFeatures v1+ (KIP-778); v0's AllowDowngrade is
// SafeDowngrade.
const (
	UpgradeOnly     int8 = 1
	SafeDowngrade   int8 = 2
	UnsafeDowngrade int8 = 3
)

// UpdateFeatures decides an UpdateFeatures request against the finalized
// levels as Kafka's FeatureControlManager does: the request is atomic (the
// first refused update refuses all, INVALID_UPDATE_VERSION with the
// reason); a level outside the supported range, an unknown feature or
// upgrade type, a duplicate, and a downgrade asked for as an upgrade are
// refused. It returns the records to write (none when validate_only).
func UpdateFeatures(req *kmsg.UpdateFeaturesRequest, finalized map[string]int16) (*kmsg.UpdateFeaturesResponse, []Record) {
	resp := req.ResponseKind().(*kmsg.UpdateFeaturesResponse)
	var recs []Record
	var code int16
	var msg string
	seen := map[string]bool{}
	for _, u := range req.FeatureUpdates {
		reason := refuseFeature(req.Version, u, finalized, seen)
		if reason != "" {
			code, msg = kerr.InvalidUpdateVersion.Code, fmt.Sprintf("invalid update version %d for feature %s: %s", u.MaxVersionLevel, u.Feature, reason)
			recs = nil
			break
		}
		recs = append(recs, Record{FeatureLevel: &FeatureLevelRecord{Name: u.Feature, Level: max(u.MaxVersionLevel, 0)}})
	}
	if req.Version >= 1 && req.ValidateOnly {
		recs = nil
	}
	resp.ErrorCode = code
	if code != 0 {
		resp.ErrorMessage = &msg
	}
	if req.Version < 2 {
		for _, u := range req.FeatureUpdates {
			r := kmsg.NewUpdateFeaturesResponseResult()
			r.Feature, r.ErrorCode = u.Feature, code
			if code != 0 {
				r.ErrorMessage = &msg
			}
			resp.Results = append(resp.Results, r)
		}
	}
	return resp, recs
}

// refuseFeature is why one update is refused, "" when it is not.
func refuseFeature(version int16, u kmsg.UpdateFeaturesRequestFeatureUpdate, finalized map[string]int16, seen map[string]bool) string {
	kind := u.UpgradeType
	if version == 0 {
		kind = UpgradeOnly
		if u.AllowDowngrade {
			kind = SafeDowngrade
		}
	}
	f, ok := supported(u.Feature)
	switch {
	case seen[u.Feature]:
		return "the feature is named twice"
	case kind < UpgradeOnly || kind > UnsafeDowngrade:
		return fmt.Sprintf("unknown upgrade type %d", kind)
	case !ok:
		return "the controller does not support the given feature"
	case u.MaxVersionLevel < 0:
		return "a feature version cannot be less than 0"
	case u.MaxVersionLevel > f.Max || (u.MaxVersionLevel < f.Min && u.MaxVersionLevel != 0) || (u.MaxVersionLevel == 0 && f.Min > 0):
		return fmt.Sprintf("the controller only supports versions %d-%d", f.Min, f.Max)
	case u.MaxVersionLevel < finalized[u.Feature] && kind == UpgradeOnly:
		return "can't downgrade the version of this feature without setting the upgrade type to either safe or unsafe downgrade"
	}
	seen[u.Feature] = true
	return ""
}

// ApiVersionsFeatures fills an ApiVersions response's features (v3+):
// every supported range, and the finalized levels above 0 with their
// epoch (min and max level both the level, as Kafka reports them).
func ApiVersionsFeatures(resp *kmsg.ApiVersionsResponse, finalized map[string]int16, epoch int64) {
	for _, f := range SupportedFeatures {
		sf := kmsg.NewApiVersionsResponseSupportedFeature()
		sf.Name, sf.MinVersion, sf.MaxVersion = f.Name, f.Min, f.Max
		resp.SupportedFeatures = append(resp.SupportedFeatures, sf)
	}
	for _, n := range slices.Sorted(maps.Keys(finalized)) {
		ff := kmsg.NewApiVersionsResponseFinalizedFeature()
		ff.Name, ff.MinVersionLevel, ff.MaxVersionLevel = n, finalized[n], finalized[n]
		resp.FinalizedFeatures = append(resp.FinalizedFeatures, ff)
	}
	resp.FinalizedFeaturesEpoch = epoch
}
