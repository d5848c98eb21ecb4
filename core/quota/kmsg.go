package quota

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Alter decides an AlterClientQuotas request (KIP-546): each entry is
// checked on its own (NewEntity, Check) and answered INVALID_REQUEST with
// the reason when it fails; apply receives every valid entry's key and
// operations, unless the request only validates. The single broker
// applies them to its quotas, the controller writes them as records.
func Alter(r *kmsg.AlterClientQuotasRequest, apply func(key string, ops []Op)) *kmsg.AlterClientQuotasResponse {
	resp := r.ResponseKind().(*kmsg.AlterClientQuotasResponse)
	resp.SetVersion(r.GetVersion())
	for _, entry := range r.Entries {
		out := kmsg.NewAlterClientQuotasResponseEntry()
		cs := make([]Component, len(entry.Entity))
		for i, c := range entry.Entity {
			cs[i] = Component{Type: c.Type, Name: c.Name}
			oc := kmsg.NewAlterClientQuotasResponseEntryEntity()
			oc.Type, oc.Name = c.Type, c.Name
			out.Entity = append(out.Entity, oc)
		}
		ops := make([]Op, len(entry.Ops))
		for i, op := range entry.Ops {
			ops[i] = Op{Key: op.Key, Value: op.Value, Remove: op.Remove}
		}
		e, err := NewEntity(cs)
		if err == nil {
			err = Check(e, ops)
		}
		if err != nil {
			msg := err.Error()
			out.ErrorCode, out.ErrorMessage = kerr.InvalidRequest.Code, &msg
		} else if !r.ValidateOnly {
			apply(e.Key(), ops)
		}
		resp.Entries = append(resp.Entries, out)
	}
	return resp
}

// Describe answers a DescribeClientQuotas request from q (KIP-546). A
// filter on an unknown entity type, or an exact match without a name, is
// INVALID_REQUEST for the whole request, as Kafka answers.
func Describe(q Quotas, r *kmsg.DescribeClientQuotasRequest) *kmsg.DescribeClientQuotasResponse {
	resp := r.ResponseKind().(*kmsg.DescribeClientQuotasResponse)
	resp.SetVersion(r.GetVersion())
	filters := make([]Filter, len(r.Components))
	for i, c := range r.Components {
		filters[i] = Filter{Type: c.EntityType, Match: Match(c.MatchType), Name: c.Match}
		bad := ""
		switch {
		case c.EntityType != User && c.EntityType != ClientID && c.EntityType != IP:
			bad = "unknown entity type " + c.EntityType
		case filters[i].Match == MatchExact && c.Match == nil:
			bad = "an exact match needs a name"
		case filters[i].Match > MatchAny:
			bad = "unknown match type"
		}
		if bad != "" {
			resp.ErrorCode, resp.ErrorMessage = kerr.InvalidRequest.Code, &bad
			return resp
		}
	}
	for _, e := range q.Describe(filters, r.Strict) {
		entry := kmsg.NewDescribeClientQuotasResponseEntry()
		for _, c := range e {
			ec := kmsg.NewDescribeClientQuotasResponseEntryEntity()
			ec.Type, ec.Name = c.Type, c.Name
			entry.Entity = append(entry.Entity, ec)
		}
		vals := q[e.Key()]
		for _, k := range []string{ConnectionCreationRate, ConsumerByteRate, ControllerMutationRate, ProducerByteRate, RequestPercentage} {
			if v, ok := vals[k]; ok {
				ev := kmsg.NewDescribeClientQuotasResponseEntryValue()
				ev.Key, ev.Value = k, v
				entry.Values = append(entry.Values, ev)
			}
		}
		resp.Entries = append(resp.Entries, entry)
	}
	return resp
}
