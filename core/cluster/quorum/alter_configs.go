package quorum

import (
	"maps"
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/cluster"
	"github.com/gregor-kafka/gregor/core/config"
	"github.com/gregor-kafka/gregor/core/wire"
)

// alterConfigs serves IncrementalAlterConfigs (KIP-339) for topics
// (resource type TOPIC), groups (GROUP) and the cluster-wide broker
// settings (BROKER with an empty name), which brokers forward here (KIP-590) and every broker
// applies from the image. One broker's own settings (BROKER named by its
// id) are not kept in a cluster: INVALID_REQUEST.
func (c *controller) alterConfigs(id uint64, r *kmsg.IncrementalAlterConfigsRequest) {
	resp := newResponse[*kmsg.IncrementalAlterConfigsResponse](r)
	for _, res := range r.Resources {
		out := kmsg.NewIncrementalAlterConfigsResponseResource()
		out.ResourceType, out.ResourceName = res.ResourceType, res.ResourceName
		resp.Resources = append(resp.Resources, out)
	}
	c.proposeConfigs(id, r, r.ValidateOnly, r.Resources, c.configRecords, resp, func(i int, code int16, msg *string) {
		resp.Resources[i].ErrorCode, resp.Resources[i].ErrorMessage = code, msg
	})
}

// replaceConfigs serves the legacy AlterConfigs: each resource's dynamic
// values become exactly the ones listed, as the incremental operations
// wire.AlterConfigsOps derives from the committed image.
func (c *controller) replaceConfigs(id uint64, r *kmsg.AlterConfigsRequest) {
	resp := newResponse[*kmsg.AlterConfigsResponse](r)
	ops := make([]kmsg.IncrementalAlterConfigsRequestResource, len(r.Resources))
	for i := range r.Resources {
		res := &r.Resources[i]
		current, _, _, _ := c.configTarget(res.ResourceType, res.ResourceName)
		ops[i] = wire.AlterConfigsOps(current, res)
		out := kmsg.NewAlterConfigsResponseResource()
		out.ResourceType, out.ResourceName = res.ResourceType, res.ResourceName
		resp.Resources = append(resp.Resources, out)
	}
	c.proposeConfigs(id, r, r.ValidateOnly, ops, c.legacyRecords, resp, func(i int, code int16, msg *string) {
		resp.Resources[i].ErrorCode, resp.Resources[i].ErrorMessage = code, msg
	})
}

// legacyRecords are configRecords for the legacy AlterConfigs, which
// serves topics and brokers only.
func (c *controller) legacyRecords(res *kmsg.IncrementalAlterConfigsRequestResource) ([]cluster.Record, *config.AlterError) {
	if aerr := config.LegacyAlterable(res.ResourceType); aerr != nil {
		return nil, aerr
	}
	return c.configRecords(res)
}

// proposeConfigs checks every resource on its own with records
// (config.Alter, the single broker's rules) and writes one ConfigRecord per value that
// changes, all in one batch; set records a resource's error. A resource
// whose topic is deleted before the batch commits gets that record's
// error. Validate-only requests write nothing.
func (c *controller) proposeConfigs(id uint64, req kmsg.Request, validateOnly bool,
	resources []kmsg.IncrementalAlterConfigsRequestResource,
	records func(*kmsg.IncrementalAlterConfigsRequestResource) ([]cluster.Record, *config.AlterError),
	resp kmsg.Response, set func(i int, code int16, msg *string)) {
	type span struct{ res, from, to int }
	var (
		recs  []cluster.Record
		spans []span
	)
	for i := range resources {
		mine, aerr := records(&resources[i])
		if aerr != nil {
			set(i, aerr.Kind.Code, &aerr.Msg)
			continue
		}
		if !validateOnly && len(mine) > 0 {
			spans = append(spans, span{i, len(recs), len(recs) + len(mine)})
			recs = append(recs, mine...)
		}
	}
	if len(recs) == 0 {
		c.n.respond(id, resp)
		return
	}
	c.propose(recs, &pending{id: id, req: req, done: func(errs []error) kmsg.Response {
		for _, s := range spans {
			for _, err := range errs[s.from:s.to] {
				if err != nil {
					msg := err.Error()
					set(s.res, recordError(err), &msg)
					break
				}
			}
		}
		return resp
	}}, nil)
}

// configTarget is what a config resource names in the image: its current
// values, the topic ("" for the cluster-wide defaults) and how to look
// the kind of resource it is; ok is false for a resource the controller does not
// keep.
func (c *controller) configTarget(typ kmsg.ConfigResourceType, name string) (current map[string]string, topic string, target config.Target, ok bool) {
	im := c.n.image
	switch {
	case typ == kmsg.ConfigResourceTypeTopic && im.Topics[name] != nil:
		return im.Topics[name].Configs, name, config.TopicTarget, true
	case typ == kmsg.ConfigResourceTypeBroker && name == "":
		return im.Defaults, "", config.ClusterTarget, true
	}
	return nil, "", 0, false
}

// configRecords checks one resource's operations and returns the records
// that make them: a set for each value that changes, a delete for each
// value removed, in name order.
func (c *controller) configRecords(res *kmsg.IncrementalAlterConfigsRequestResource) ([]cluster.Record, *config.AlterError) {
	if res.ResourceType == kmsg.ConfigResourceTypeGroupConfig {
		return c.groupConfigRecords(res)
	}
	current, topic, target, ok := c.configTarget(res.ResourceType, res.ResourceName)
	switch {
	case ok:
	case res.ResourceType == kmsg.ConfigResourceTypeTopic:
		return nil, &config.AlterError{Kind: kerr.UnknownTopicOrPartition, Msg: "topic " + res.ResourceName + " does not exist"}
	case res.ResourceType == kmsg.ConfigResourceTypeBroker:
		return nil, &config.AlterError{Kind: kerr.InvalidRequest,
			Msg: "a cluster keeps no settings of broker " + res.ResourceName + " alone: alter the cluster-wide ones (broker resource \"\")"}
	default:
		return nil, &config.AlterError{Kind: kerr.InvalidRequest, Msg: "unsupported resource type"}
	}
	effective := func(name string) string {
		if v, ok := c.n.image.Config(topic, name); ok {
			return v
		}
		d, _ := config.BrokerDef(name)
		if topic != "" {
			d, _ = config.TopicDef(name)
		}
		return d.Default
	}
	next, aerr := config.Alter(current, target, effective, res.Configs)
	if aerr != nil {
		return nil, aerr
	}
	return diffConfigs(current, next, cluster.ConfigRecord{Topic: topic}), nil
}

// groupConfigRecords checks a GROUP resource's operations (KIP-848,
// KIP-932) against the node's settings and the cluster-wide ones, as
// Kafka's controller validates group configs, and returns their records.
// A group need not exist to be given configs.
func (c *controller) groupConfigRecords(res *kmsg.IncrementalAlterConfigsRequestResource) ([]cluster.Record, *config.AlterError) {
	if res.ResourceName == "" {
		return nil, &config.AlterError{Kind: kerr.InvalidRequest, Msg: "Group name must not be empty"}
	}
	current := c.n.image.Groups[res.ResourceName]
	next, aerr := c.settings().AlterGroup(current, res.Configs)
	if aerr != nil {
		return nil, aerr
	}
	return diffConfigs(current, next, cluster.ConfigRecord{Group: res.ResourceName}), nil
}

// settings are the broker settings the controller checks group configs
// with: the node's static ones and the cluster-wide dynamic ones.
func (c *controller) settings() *config.Broker {
	s := &config.Broker{Dynamic: c.n.image.Defaults}
	if c.n.cfg.Settings != nil {
		s.Static = c.n.cfg.Settings.Static
	}
	return s
}

// diffConfigs is the records that turn current into next: a set for each
// value that changes, a delete for each value removed, in name order, each
// naming the resource as like does.
func diffConfigs(current, next map[string]string, like cluster.ConfigRecord) []cluster.Record {
	var recs []cluster.Record
	names := slices.Collect(maps.Keys(next))
	for k := range current {
		if _, ok := next[k]; !ok {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	for _, name := range names {
		old, had := current[name]
		v, has := next[name]
		rec := like
		rec.Name = name
		switch {
		case has && (!had || old != v):
			rec.Value = &v
			recs = append(recs, cluster.Record{Config: &rec})
		case had && !has:
			recs = append(recs, cluster.Record{Config: &rec})
		}
	}
	return recs
}
