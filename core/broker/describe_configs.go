package broker

import (
	"strconv"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// DescribeConfigs v0-4 for topics, brokers and groups (group_configs.go),
// with synonyms (KIP-226), types and documentation (KIP-569).
func init() {
	register(32, api{
		min: 0, max: 4, serve: handleDescribeConfigs,
		acl: onConfigs{kmsg.ACLOperationDescribeConfigs},
	})
}

func handleDescribeConfigs(b *Broker, r *Request) kmsg.Response {
	req := r.Msg.(*kmsg.DescribeConfigsRequest)
	resp := req.ResponseKind().(*kmsg.DescribeConfigsResponse)
	for _, rr := range req.Resources {
		sr := kmsg.NewDescribeConfigsResponseResource()
		sr.ResourceType, sr.ResourceName = rr.ResourceType, rr.ResourceName
		var cfgs []describedConfig
		switch rr.ResourceType {
		case kmsg.ConfigResourceTypeTopic:
			if overrides, ok := b.topicOverrides(rr.ResourceName); ok {
				cfgs = b.topicConfigs(overrides, rr.ConfigNames, req.IncludeSynonyms, req.IncludeDocumentation)
			} else {
				sr.ErrorCode = kerr.UnknownTopicOrPartition.Code
			}
		case kmsg.ConfigResourceTypeBroker:
			if rr.ResourceName == "" || rr.ResourceName == strconv.Itoa(int(b.cfg.NodeID)) {
				cfgs = b.brokerConfigs(rr.ConfigNames, req.IncludeSynonyms, req.IncludeDocumentation)
			} else {
				sr.ErrorCode = kerr.InvalidRequest.Code
			}
		case kmsg.ConfigResourceTypeGroupConfig:
			if rr.ResourceName == "" {
				sr.ErrorCode, sr.ErrorMessage = kerr.InvalidRequest.Code, &emptyGroupName
			} else {
				cfgs = b.groupConfigs(b.image.groupConfigs(rr.ResourceName), rr.ConfigNames, req.IncludeSynonyms, req.IncludeDocumentation)
			}
		default:
			sr.ErrorCode = kerr.InvalidRequest.Code
		}
		for _, c := range cfgs {
			rc := kmsg.NewDescribeConfigsResponseResourceConfig()
			rc.Name, rc.Value, rc.ReadOnly, rc.IsSensitive = c.Name, c.Value, c.ReadOnly, c.IsSensitive
			rc.Source = kmsg.ConfigSource(c.Source)
			rc.IsDefault = c.Source == 5
			rc.ConfigType = kmsg.ConfigType(c.Type)
			if c.Doc != "" {
				doc := c.Doc
				rc.Documentation = &doc
			}
			for _, s := range c.Synonyms {
				syn := kmsg.NewDescribeConfigsResponseResourceConfigConfigSynonym()
				v := s.Value
				syn.Name, syn.Value, syn.Source = s.Name, &v, kmsg.ConfigSource(s.Source)
				rc.ConfigSynonyms = append(rc.ConfigSynonyms, syn)
			}
			sr.Configs = append(sr.Configs, rc)
		}
		resp.Resources = append(resp.Resources, sr)
	}
	return resp
}

// topicOverrides are a topic's own settings, the metadata's: a broker
// without a replica of the topic describes it too.
func (b *Broker) topicOverrides(name string) (map[string]string, bool) {
	t, ok := b.image.topic(name)
	return t.configs, ok
}
