package broker

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/cluster"
)

// ApiVersions v0-4 (KIP-35, KIP-511). Built from the registered handlers;
// v3+ reports the supported and finalized features (KIP-584, features.go).
func init() { register(18, api{min: 0, max: 4, serve: handleApiVersions, acl: noCheck{}}) }

func handleApiVersions(b *Broker, r *Request) kmsg.Response {
	resp := r.Msg.ResponseKind().(*kmsg.ApiVersionsResponse)
	resp.ApiKeys = SupportedVersions()
	if resp.Version >= 3 {
		f, epoch := b.image.features()
		cluster.ApiVersionsFeatures(resp, f, epoch) // features.go
	}
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
