package broker

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/config"
)

// IncrementalAlterConfigs v0-1 (KIP-339) for topics and brokers: SET,
// DELETE, and APPEND/SUBTRACT on list settings. Changes apply to the live
// logs at once and are persisted with the metadata.
func init() { register(44, 0, 1, handleIncrementalAlterConfigs) }

func handleIncrementalAlterConfigs(b *Broker, r *Request) kmsg.Response {
	req := r.Msg.(*kmsg.IncrementalAlterConfigsRequest)
	resp := req.ResponseKind().(*kmsg.IncrementalAlterConfigsResponse)
	for _, rr := range req.Resources {
		sr := kmsg.NewIncrementalAlterConfigsResponseResource()
		sr.ResourceType, sr.ResourceName = rr.ResourceType, rr.ResourceName
		ke := b.alterConfigs(&rr, req.ValidateOnly)
		sr.ErrorCode, sr.ErrorMessage = ke.errCode(), ke.message()
		resp.Resources = append(resp.Resources, sr)
	}
	return resp
}

func (b *Broker) alterConfigs(rr *kmsg.IncrementalAlterConfigsRequestResource, validateOnly bool) *kafkaError {
	var (
		current map[string]string
		topic   *Topic
		lookup  func(string) (*config.Def, bool)
	)
	switch rr.ResourceType {
	case kmsg.ConfigResourceTypeTopic:
		if topic = b.topics[rr.ResourceName]; topic == nil {
			return errorf(kerr.UnknownTopicOrPartition, "topic %q does not exist", rr.ResourceName)
		}
		current, lookup = topic.Configs, config.TopicDef
	case kmsg.ConfigResourceTypeBroker:
		if rr.ResourceName != "" && rr.ResourceName != strconv.Itoa(int(b.cfg.NodeID)) {
			return errorf(kerr.InvalidRequest, "unknown broker %q", rr.ResourceName)
		}
		current, lookup = b.cfg.Settings.Dynamic, config.BrokerDef
	default:
		return errorf(kerr.InvalidRequest, "unsupported resource type %d", rr.ResourceType)
	}
	next := maps.Clone(current)
	for _, c := range rr.Configs {
		d, ok := lookup(c.Name)
		if !ok {
			return errorf(kerr.InvalidConfig, "unknown config %q", c.Name)
		}
		if d.ReadOnly {
			return errorf(kerr.InvalidConfig, "%s cannot be changed while the broker runs", c.Name)
		}
		val := ""
		if c.Value != nil {
			val = *c.Value
		}
		switch c.Op {
		case kmsg.IncrementalAlterConfigOpSet:
			next[c.Name] = val
		case kmsg.IncrementalAlterConfigOpDelete:
			delete(next, c.Name)
		case kmsg.IncrementalAlterConfigOpAppend, kmsg.IncrementalAlterConfigOpSubtract:
			if d.Type != config.List {
				return errorf(kerr.InvalidConfig, "%s is not a list", c.Name)
			}
			next[c.Name] = editList(b.currentList(topic, c.Name, next), val, c.Op == kmsg.IncrementalAlterConfigOpAppend)
		default:
			return errorf(kerr.InvalidRequest, "unknown operation %d", c.Op)
		}
		if v, ok := next[c.Name]; ok {
			if err := d.Check(v); err != nil {
				return errorf(kerr.InvalidConfig, "%v", err)
			}
		}
	}
	if validateOnly {
		return nil
	}
	if topic != nil {
		topic.Configs = next
		b.meta.Topics[topic.Name].Configs = next
	} else {
		b.cfg.Settings.Dynamic = next
	}
	b.reconfigure(topic)
	if err := b.saveMetadata(); err != nil {
		return errorf(kerr.KafkaStorageError, "%v", err)
	}
	return nil
}

// currentList is a list setting's effective value before an edit.
func (b *Broker) currentList(t *Topic, name string, next map[string]string) string {
	if v, ok := next[name]; ok {
		return v
	}
	if t != nil {
		v, _, _ := b.cfg.Settings.Topic(t.Configs, name)
		return v
	}
	v, _ := b.cfg.Settings.Value(name)
	return v
}

func editList(list, items string, add bool) string {
	var have []string
	for _, s := range strings.Split(list, ",") {
		if s = strings.TrimSpace(s); s != "" {
			have = append(have, s)
		}
	}
	for _, it := range strings.Split(items, ",") {
		it = strings.TrimSpace(it)
		i := slices.Index(have, it)
		switch {
		case add && i < 0 && it != "":
			have = append(have, it)
		case !add && i >= 0:
			have = slices.Delete(have, i, i+1)
		}
	}
	return strings.Join(have, ",")
}
