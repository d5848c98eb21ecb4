package wire

import (
	"maps"
	"slices"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// AlterConfigs (key 33): an error answer names every resource asked for.
func init() {
	errorAnswer(func(r *kmsg.AlterConfigsRequest, out *kmsg.AlterConfigsResponse, code int16) {
		for _, res := range r.Resources {
			rr := kmsg.NewAlterConfigsResponseResource()
			rr.ResourceType, rr.ResourceName, rr.ErrorCode = res.ResourceType, res.ResourceName, code
			out.Resources = append(out.Resources, rr)
		}
	})
}

// AlterConfigsOps turns one resource of the legacy AlterConfigs request
// (key 33), which replaces every dynamic value of the resource, into the
// IncrementalAlterConfigs operations (KIP-339) that do the same to the
// current values: DELETE for each current key the request leaves out, in
// name order, then SET for each key it names, in request order. A null
// value sets nothing, so its key is deleted as if left out. Serving both
// APIs with one set of rules keeps their validation and their effect the
// same.
func AlterConfigsOps(current map[string]string, rr *kmsg.AlterConfigsRequestResource) kmsg.IncrementalAlterConfigsRequestResource {
	out := kmsg.NewIncrementalAlterConfigsRequestResource()
	out.ResourceType, out.ResourceName = rr.ResourceType, rr.ResourceName
	keep := map[string]bool{}
	for _, c := range rr.Configs {
		if c.Value != nil {
			keep[c.Name] = true
		}
	}
	for _, name := range slices.Sorted(maps.Keys(current)) {
		if !keep[name] {
			out.Configs = append(out.Configs, kmsg.IncrementalAlterConfigsRequestResourceConfig{
				Name: name, Op: kmsg.IncrementalAlterConfigOpDelete})
		}
	}
	for _, c := range rr.Configs {
		if c.Value != nil {
			out.Configs = append(out.Configs, kmsg.IncrementalAlterConfigsRequestResourceConfig{
				Name: c.Name, Op: kmsg.IncrementalAlterConfigOpSet, Value: c.Value})
		}
	}
	return out
}
