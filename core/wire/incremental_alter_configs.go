package wire

import "github.com/twmb/franz-go/pkg/kmsg"

// IncrementalAlterConfigs (key 44, KIP-339): an error answer names every
// resource asked for.
func init() {
	errorAnswer(func(r *kmsg.IncrementalAlterConfigsRequest, out *kmsg.IncrementalAlterConfigsResponse, code int16) {
		for _, res := range r.Resources {
			rr := kmsg.NewIncrementalAlterConfigsResponseResource()
			rr.ResourceType, rr.ResourceName, rr.ErrorCode = res.ResourceType, res.ResourceName, code
			out.Resources = append(out.Resources, rr)
		}
	})
}
