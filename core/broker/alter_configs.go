package broker

import (
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/config"
	"github.com/gregor-kafka/gregor/core/wire"
)

// AlterConfigs v0-2, the legacy API that Kafka deprecated for
// IncrementalAlterConfigs (KIP-339) but still serves: each resource's
// dynamic values are replaced by the ones the request lists, and a value
// the request leaves out goes back to its default. Topics and brokers
// (this broker by id, or "" for the broker defaults), validate-only
// included; other resource types (GROUP configs among them) are refused
// with INVALID_REQUEST, as Kafka refuses them. Each resource is checked and applied on its own, as Kafka
// does: one bad resource fails alone.
//
// It is served as the incremental API with the operations that make the
// same replacement (wire.AlterConfigsOps), so the two cannot disagree on
// what is valid. In a cluster the controller receives the request
// (KIP-590 forwarding, byController): topics' configs and the broker
// settings are the metadata log's there (the broker settings
// cluster-wide, resource name ""; the controller refuses one broker's
// own).
func init() {
	register(33, api{
		min: 0, max: 2, serve: byController(applyAlterConfigs),
		acl: onConfigs{kmsg.ACLOperationAlterConfigs},
	})
}

// applyAlterConfigs is how a single broker, its own controller, serves it.
func applyAlterConfigs(b *Broker, r *Request) kmsg.Response {
	req := r.Msg.(*kmsg.AlterConfigsRequest)
	ops := make([]kmsg.IncrementalAlterConfigsRequestResource, len(req.Resources))
	for i := range req.Resources {
		rr := &req.Resources[i]
		ops[i] = wire.AlterConfigsOps(b.dynamicConfigs(rr.ResourceType, rr.ResourceName), rr)
	}
	resp := req.ResponseKind().(*kmsg.AlterConfigsResponse)
	for i := range ops {
		ke := b.legacyAlter(&ops[i], req.ValidateOnly)
		sr := kmsg.NewAlterConfigsResponseResource()
		sr.ResourceType, sr.ResourceName = ops[i].ResourceType, ops[i].ResourceName
		sr.ErrorCode, sr.ErrorMessage = ke.errCode(), ke.message()
		resp.Resources = append(resp.Resources, sr)
	}
	return resp
}

// legacyAlter alters one resource of an AlterConfigs request, of the
// types that API serves.
func (b *Broker) legacyAlter(rr *kmsg.IncrementalAlterConfigsRequestResource, validateOnly bool) *kafkaError {
	if aerr := config.LegacyAlterable(rr.ResourceType); aerr != nil {
		return errorf(aerr.Kind, "%s", aerr.Msg)
	}
	return b.alterConfigs(rr, validateOnly)
}

// dynamicConfigs are a resource's values that AlterConfigs replaces: a
// topic's overrides, or the broker's dynamic settings. Nil for a resource
// that does not exist (alterConfigs says why).
func (b *Broker) dynamicConfigs(typ kmsg.ConfigResourceType, name string) map[string]string {
	switch typ {
	case kmsg.ConfigResourceTypeTopic:
		if t := b.topics[name]; t != nil {
			return t.Configs
		}
	case kmsg.ConfigResourceTypeBroker:
		return b.cfg.Settings.Dynamic
	}
	return nil
}
