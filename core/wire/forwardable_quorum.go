//go:build !noquorum

package wire

import "github.com/twmb/franz-go/pkg/kmsg"

// forwardable: what a broker of a cluster forwards to the controller.
var forwardable = map[int16]codec{
	kmsg.CreateTopics.Int16():               codecOf[kmsg.CreateTopicsRequest, kmsg.CreateTopicsResponse](),
	kmsg.DeleteTopics.Int16():               codecOf[kmsg.DeleteTopicsRequest, kmsg.DeleteTopicsResponse](),
	kmsg.CreatePartitions.Int16():           codecOf[kmsg.CreatePartitionsRequest, kmsg.CreatePartitionsResponse](),
	kmsg.AlterConfigs.Int16():               codecOf[kmsg.AlterConfigsRequest, kmsg.AlterConfigsResponse](),
	kmsg.IncrementalAlterConfigs.Int16():    codecOf[kmsg.IncrementalAlterConfigsRequest, kmsg.IncrementalAlterConfigsResponse](),
	kmsg.CreateACLs.Int16():                 codecOf[kmsg.CreateACLsRequest, kmsg.CreateACLsResponse](),
	kmsg.DeleteACLs.Int16():                 codecOf[kmsg.DeleteACLsRequest, kmsg.DeleteACLsResponse](),
	kmsg.AlterClientQuotas.Int16():          codecOf[kmsg.AlterClientQuotasRequest, kmsg.AlterClientQuotasResponse](),
	kmsg.AlterUserSCRAMCredentials.Int16():  codecOf[kmsg.AlterUserSCRAMCredentialsRequest, kmsg.AlterUserSCRAMCredentialsResponse](),
	kmsg.ElectLeaders.Int16():               codecOf[kmsg.ElectLeadersRequest, kmsg.ElectLeadersResponse](),
	kmsg.AlterPartitionAssignments.Int16():  codecOf[kmsg.AlterPartitionAssignmentsRequest, kmsg.AlterPartitionAssignmentsResponse](),
	kmsg.ListPartitionReassignments.Int16(): codecOf[kmsg.ListPartitionReassignmentsRequest, kmsg.ListPartitionReassignmentsResponse](),
	kmsg.UpdateFeatures.Int16():             codecOf[kmsg.UpdateFeaturesRequest, kmsg.UpdateFeaturesResponse](),
}

// codecOf is the codec of one forwardable API, through its concrete types.
func codecOf[Req, Resp any, PReq interface {
	*Req
	kmsg.Request
}, PResp interface {
	*Resp
	kmsg.Response
}]() codec {
	return codec{
		newReq:     func() kmsg.Request { return PReq(new(Req)) },
		readReq:    func(r kmsg.Request, b []byte) error { return r.(PReq).ReadFrom(b) },
		appendReq:  func(r kmsg.Request, b []byte) []byte { return r.(PReq).AppendTo(b) },
		readResp:   func(r kmsg.Response, b []byte) error { return r.(PResp).ReadFrom(b) },
		appendResp: func(r kmsg.Response, b []byte) []byte { return r.(PResp).AppendTo(b) },
	}
}
