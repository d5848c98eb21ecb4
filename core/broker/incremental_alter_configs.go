package broker

import (
	"strconv"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/config"
)

// IncrementalAlterConfigs v0-1 (KIP-339) for topics, brokers and groups
// (group_configs.go): SET,
// DELETE, and APPEND/SUBTRACT on list settings. Changes apply to the live
// logs at once and are persisted with the metadata. In a cluster the
// controller alters topics and cluster-wide defaults (byController, alter_configs.go).
func init() {
	register(44, api{
		min: 0, max: 1, serve: byController(applyIncrementalAlterConfigs),
		acl: onConfigs{kmsg.ACLOperationAlterConfigs},
	})
}

// applyIncrementalAlterConfigs is how a single broker, its own controller, serves it.
func applyIncrementalAlterConfigs(b *Broker, r *Request) kmsg.Response {
	req := r.Msg.(*kmsg.IncrementalAlterConfigsRequest)
	resp := req.ResponseKind().(*kmsg.IncrementalAlterConfigsResponse)
	for i, ke := range b.alterEach(req.Resources, req.ValidateOnly) {
		sr := kmsg.NewIncrementalAlterConfigsResponseResource()
		sr.ResourceType, sr.ResourceName = req.Resources[i].ResourceType, req.Resources[i].ResourceName
		sr.ErrorCode, sr.ErrorMessage = ke.errCode(), ke.message()
		resp.Resources = append(resp.Resources, sr)
	}
	return resp
}

// alterEach alters each resource on its own: one refused resource does
// not stop the others (Kafka's ConfigAdminManager does the same).
func (b *Broker) alterEach(resources []kmsg.IncrementalAlterConfigsRequestResource, validateOnly bool) []*kafkaError {
	out := make([]*kafkaError, len(resources))
	for i := range resources {
		out[i] = b.alterConfigs(&resources[i], validateOnly)
	}
	return out
}

func (b *Broker) alterConfigs(rr *kmsg.IncrementalAlterConfigsRequestResource, validateOnly bool) *kafkaError {
	if rr.ResourceType == kmsg.ConfigResourceTypeGroupConfig {
		return b.alterGroupConfigs(rr, validateOnly)
	}
	var (
		current map[string]string
		topic   *Topic
		target  = config.TopicTarget
	)
	switch rr.ResourceType {
	case kmsg.ConfigResourceTypeTopic:
		if topic = b.topics[rr.ResourceName]; topic == nil {
			return errorf(kerr.UnknownTopicOrPartition, "topic %q does not exist", rr.ResourceName)
		}
		current = topic.Configs
	case kmsg.ConfigResourceTypeBroker:
		if rr.ResourceName != "" && rr.ResourceName != strconv.Itoa(int(b.cfg.NodeID)) {
			if _, err := strconv.Atoi(rr.ResourceName); err != nil {
				return errorf(kerr.InvalidRequest, "Node id must be an integer, but it is: %s", rr.ResourceName)
			}
			return errorf(kerr.InvalidRequest, "Unexpected broker id, expected %d, but received %s", b.cfg.NodeID, rr.ResourceName)
		}
		current, target = b.cfg.Settings.Dynamic, config.ClusterTarget
		if rr.ResourceName != "" {
			target = config.BrokerTarget
		}
	default:
		return errorf(kerr.InvalidRequest, "unsupported resource type %d", rr.ResourceType)
	}
	next, aerr := config.Alter(current, target, func(name string) string { return b.currentValue(topic, name) }, rr.Configs)
	if aerr != nil {
		return errorf(aerr.Kind, "%s", aerr.Msg)
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

// currentValue is a setting's effective value where the resource sets
// none itself: the broker's, for a topic or for the broker.
func (b *Broker) currentValue(t *Topic, name string) string {
	if t != nil {
		v, _, _ := b.cfg.Settings.Topic(t.Configs, name)
		return v
	}
	v, _ := b.cfg.Settings.Value(name)
	return v
}
