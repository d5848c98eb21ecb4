package config

import (
	"math"
	"strconv"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// GroupConfig is the DescribeConfigs source of a value set on a group
// (the GROUP config resource, KIP-848 / KIP-932).
const GroupConfig Source = 8

// groupDefs are the group configs (Kafka's GroupConfig): a group's own
// value wins over its broker synonym, which wins over the default. Kafka
// names the synonym "group." + name; share.auto.offset.reset and
// share.isolation.level have none in Kafka, and fall back here to the
// broker-wide settings of those names.
var groupDefs = []Def{
	{Name: "consumer.heartbeat.interval.ms", Type: Int, Default: "5000", Doc: "The heartbeat interval given to the members of this consumer group.", Synonyms: []string{"group.consumer.heartbeat.interval.ms"}, Min: 1, Max: math.MaxInt32},
	{Name: "consumer.session.timeout.ms", Type: Int, Default: "45000", Doc: "The timeout to detect client failures of this consumer group's members.", Synonyms: []string{"group.consumer.session.timeout.ms"}, Min: 1, Max: math.MaxInt32},
	{Name: "share.auto.offset.reset", Type: String, Default: "latest", Doc: "Where the group starts reading a share partition it never read: latest, earliest, or by_duration:<ISO-8601 duration> (the first record at most that old).", Synonyms: []string{"share.auto.offset.reset"}, parse: checkShareReset},
	{Name: "share.heartbeat.interval.ms", Type: Int, Default: "5000", Doc: "The heartbeat interval given to the members of this share group.", Synonyms: []string{"group.share.heartbeat.interval.ms"}, Min: 1, Max: math.MaxInt32},
	{Name: "share.isolation.level", Type: String, Default: "read_uncommitted", Doc: "read_committed delivers only committed transactions' records to this share group.", Synonyms: []string{"share.isolation.level"}, Enum: []string{"read_uncommitted", "read_committed"}},
	{Name: "share.record.lock.duration.ms", Type: Int, Default: "30000", Doc: "The record acquisition lock duration of this share group.", Synonyms: []string{"group.share.record.lock.duration.ms"}, Min: 1000, Max: math.MaxInt32},
	{Name: "share.session.timeout.ms", Type: Int, Default: "45000", Doc: "The timeout to detect client failures of this share group's members.", Synonyms: []string{"group.share.session.timeout.ms"}, Min: 1, Max: math.MaxInt32},
}

var groupByName = index(groupDefs)

// GroupDefs lists the group configs in name order.
func GroupDefs() []Def { return groupDefs }

// GroupDef looks up a group config.
func GroupDef(name string) (*Def, bool) { d, ok := groupByName[name]; return d, ok }

// Group resolves a group config for a group with the given overrides, and
// returns the chain of synonyms that could have supplied it (the group's
// own value, the broker's, the default), as Kafka's DescribeConfigs of a
// GROUP resource lists them.
func (b *Broker) Group(overrides map[string]string, name string) (string, Source, []Synonym) {
	return b.resolve(GroupDef, GroupConfig, overrides, name)
}

// GroupInt64 resolves a numeric group config.
func (b *Broker) GroupInt64(overrides map[string]string, name string) int64 {
	v, _, _ := b.Group(overrides, name)
	n, _ := strconv.ParseInt(v, 10, 64)
	return n
}

// groupBounds are the broker settings that bound a group config (Kafka's
// GroupConfig.validateValues): a group may not go outside them.
var groupBounds = map[string][2]string{
	"consumer.heartbeat.interval.ms": {"group.consumer.min.heartbeat.interval.ms", "group.consumer.max.heartbeat.interval.ms"},
	"consumer.session.timeout.ms":    {"group.consumer.min.session.timeout.ms", "group.consumer.max.session.timeout.ms"},
	"share.heartbeat.interval.ms":    {"group.share.min.heartbeat.interval.ms", "group.share.max.heartbeat.interval.ms"},
	"share.session.timeout.ms":       {"group.share.min.session.timeout.ms", "group.share.max.session.timeout.ms"},
	"share.record.lock.duration.ms":  {"group.share.min.record.lock.duration.ms", "group.share.max.record.lock.duration.ms"},
}

// CheckGroup validates a group's configs as a whole, the way Kafka's
// GroupConfigManager.validate does: the broker's values for what the
// group leaves unset, then each bounded value within the broker's min and
// max, then each session timeout above its heartbeat interval. The
// messages are Kafka's (INVALID_CONFIG). Only the group's own values are
// bounded: Kafka refuses to start a broker whose defaults are outside the
// bounds, Gregor's lessons use short broker-wide locks and timeouts, and
// those must not make every group config change fail.
func (b *Broker) CheckGroup(values map[string]string) *AlterError {
	get := func(name string) int64 { return b.GroupInt64(values, name) }
	for _, d := range groupDefs {
		bounds, ok := groupBounds[d.Name]
		if _, set := values[d.Name]; !ok || !set {
			continue
		}
		switch v := get(d.Name); {
		case v < b.Int64(bounds[0]):
			return alterErrorf(kerr.InvalidConfig, "%s must be greater than or equal to %s", d.Name, bounds[0])
		case v > b.Int64(bounds[1]):
			return alterErrorf(kerr.InvalidConfig, "%s must be less than or equal to %s", d.Name, bounds[1])
		}
	}
	for _, kind := range []string{"consumer", "share"} {
		if get(kind+".session.timeout.ms") <= get(kind+".heartbeat.interval.ms") {
			return alterErrorf(kerr.InvalidConfig, "%s.session.timeout.ms must be greater than %s.heartbeat.interval.ms", kind, kind)
		}
	}
	return nil
}

// AlterGroup applies IncrementalAlterConfigs operations to a group's
// configs (current is not modified) and checks the result as a whole
// (CheckGroup). An unknown name is refused with Kafka's message.
func (b *Broker) AlterGroup(current map[string]string, ops []kmsg.IncrementalAlterConfigsRequestResourceConfig) (map[string]string, *AlterError) {
	for _, c := range ops {
		if _, ok := GroupDef(c.Name); !ok {
			return nil, alterErrorf(kerr.InvalidConfig, "Unknown group config name: %s", c.Name)
		}
	}
	next, aerr := Alter(current, GroupTarget, func(string) string { return "" }, ops)
	if aerr != nil {
		return nil, aerr
	}
	if aerr := b.CheckGroup(next); aerr != nil {
		return nil, aerr
	}
	return next, nil
}
