package broker

import (
	"maps"
	"slices"
	"strconv"

	"github.com/gregor-kafka/gregor/core/config"
)

// describedConfig is one setting as DescribeConfigs and CreateTopics v5+
// report it.
type describedConfig struct {
	Name        string
	Value       *string
	ReadOnly    bool
	Source      config.Source
	IsSensitive bool
	Type        config.Type
	Doc         string
	Synonyms    []config.Synonym
}

func wanted(names []string, name string) bool {
	return names == nil || slices.Contains(names, name)
}

// topicConfigs resolves every topic setting for a topic's overrides.
func (b *Broker) topicConfigs(overrides map[string]string, names []string, synonyms, docs bool) []describedConfig {
	return resolveAll(config.TopicDefs(), func(name string) (string, config.Source, []config.Synonym) {
		return b.cfg.Settings.Topic(overrides, name)
	}, names, synonyms, docs)
}

// resolveAll describes the wanted settings of defs, each resolved with
// its synonyms by resolve.
func resolveAll(defs []config.Def, resolve func(string) (string, config.Source, []config.Synonym), names []string, synonyms, docs bool) []describedConfig {
	var out []describedConfig
	for _, d := range defs {
		if !wanted(names, d.Name) {
			continue
		}
		v, src, syns := resolve(d.Name)
		c := describedConfig{Name: d.Name, Value: &v, Source: src, Type: d.Type}
		if synonyms {
			c.Synonyms = syns
		}
		if docs {
			c.Doc = d.Doc
		}
		out = append(out, c)
	}
	return out
}

// brokerConfigs resolves every broker setting, and the custom ones a
// client set (Kafka keeps broker settings it does not know). A password's
// value is never shown (IsSensitive).
func (b *Broker) brokerConfigs(names []string, synonyms, docs bool) []describedConfig {
	var out []describedConfig
	for _, d := range config.BrokerDefs() {
		if wanted(names, d.Name) {
			out = append(out, b.brokerConfig(d, synonyms, docs))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(b.cfg.Settings.Dynamic)) {
		if _, known := config.BrokerDef(name); !known && wanted(names, name) {
			v := b.cfg.Settings.Dynamic[name]
			c := describedConfig{Name: name, Value: &v, Source: config.DynamicDefaultBroker, Type: config.String}
			if synonyms {
				c.Synonyms = []config.Synonym{{Name: name, Value: v, Source: config.DynamicDefaultBroker}}
			}
			out = append(out, c)
		}
	}
	return out
}

func (b *Broker) brokerConfig(d config.Def, synonyms, docs bool) describedConfig {
	v, src := b.cfg.Settings.Value(d.Name)
	if d.Name == "node.id" {
		v, src = strconv.Itoa(int(b.cfg.NodeID)), config.StaticBroker
	}
	c := describedConfig{Name: d.Name, Source: src, Type: d.Type, ReadOnly: d.ReadOnly, IsSensitive: d.Type == config.Password}
	if (v != "" || d.Default != "") && !c.IsSensitive {
		c.Value = &v
	}
	if synonyms && !c.IsSensitive {
		if dv, ok := b.cfg.Settings.Dynamic[d.Name]; ok {
			c.Synonyms = append(c.Synonyms, config.Synonym{Name: d.Name, Value: dv, Source: config.DynamicDefaultBroker})
		}
		if sv, ok := b.cfg.Settings.Static[d.Name]; ok {
			c.Synonyms = append(c.Synonyms, config.Synonym{Name: d.Name, Value: sv, Source: config.StaticBroker})
		}
		if d.Default != "" {
			c.Synonyms = append(c.Synonyms, config.Synonym{Name: d.Name, Value: d.Default, Source: config.Default})
		}
	}
	if docs {
		c.Doc = d.Doc
	}
	return c
}

// reconfigure pushes the resolved log settings to every partition of t, or
// of every topic when t is nil (a broker default changed).
func (b *Broker) reconfigure(t *Topic) {
	for _, name := range b.topicNames() {
		if t != nil && b.topics[name] != t {
			continue
		}
		cfg := b.logConfig(b.topics[name].Configs)
		for _, p := range b.topics[name].Partitions {
			p.log.SetConfig(cfg)
		}
	}
}
