package broker

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// ApiVersions v0-4 (KIP-35, KIP-511). Built from the registered handlers.
func init() { register(18, 0, 4, handleApiVersions) }

func handleApiVersions(b *Broker, r *Request) kmsg.Response {
	resp := r.Msg.ResponseKind().(*kmsg.ApiVersionsResponse)
	resp.ApiKeys = SupportedVersions()
	return resp
}

// ApiVersionsFallback answers an ApiVersions request newer than we serve: a
// v0 response with UNSUPPORTED_VERSION and our versions, which every client
// can decode (KIP-511).
func ApiVersionsFallback() kmsg.Response {
	resp := kmsg.NewPtrApiVersionsResponse()
	resp.Version = 0
	resp.ErrorCode = kerr.UnsupportedVersion.Code
	resp.ApiKeys = SupportedVersions()
	return resp
}
