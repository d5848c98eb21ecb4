package broker

import (
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/wire"
)

// OffsetFetch v0-9: the committed offsets of one group, or from v8 of
// many (KIP-709), which are routed group by group (coordinator.Groups.MarkForeign).
func init() {
	register(9, api{
		min: 0, max: 9, serve: handleGroupRead, manyGroups: true,
		group: offsetFetchGroup,
		acl:   offsetFetchACL{},
	})
}

// offsetFetchGroup routes OffsetFetch by its one group (before v8); the
// many-group form is routed group by group.
func offsetFetchGroup(req kmsg.Request) (string, bool) {
	m := req.(*kmsg.OffsetFetchRequest)
	return m.Group, len(m.Groups) == 0
}

// offsetFetchACL: each group needs DESCRIBE (v8+ answer each group
// alone; before, the group refused refuses the request), and each topic
// asked DESCRIBE; asked for all topics, a group's answer lists only the
// describable ones.
type offsetFetchACL struct{}

func (offsetFetchACL) authorize(b *Broker, r *Request) (kmsg.Response, func(kmsg.Response)) {
	q := r.Msg.(*kmsg.OffsetFetchRequest)
	topics := b.topicParts(r, kmsg.ACLOperationDescribe)
	hidden := func(topic string) bool { return topics(topic) != nil }
	if q.Version < 8 {
		if !b.may(r, check{kmsg.ACLResourceTypeGroup, q.Group, kmsg.ACLOperationDescribe}) {
			return wire.ErrorResponse(q, kerr.GroupAuthorizationFailed.Code), nil
		}
		if q.Topics == nil {
			return nil, func(resp kmsg.Response) {
				or := resp.(*kmsg.OffsetFetchResponse)
				or.Topics = slices.DeleteFunc(or.Topics, func(t kmsg.OffsetFetchResponseTopic) bool { return hidden(t.Topic) })
			}
		}
		return partial(r, &q.Topics, topics, addTopics)
	}
	deny, trim := partial(r, &q.Groups, b.ofResource(r, kmsg.ACLResourceTypeGroup, kmsg.ACLOperationDescribe, kerr.GroupAuthorizationFailed), addGroups)
	if deny != nil {
		return deny, nil
	}
	trims := []func(kmsg.Response){trim}
	for i := range q.Groups {
		g := &q.Groups[i]
		if g.Topics == nil {
			id := g.Group
			trims = append(trims, func(resp kmsg.Response) {
				or := resp.(*kmsg.OffsetFetchResponse)
				for j := range or.Groups {
					if rg := &or.Groups[j]; rg.Group == id {
						rg.Topics = slices.DeleteFunc(rg.Topics, func(t kmsg.OffsetFetchResponseGroupTopic) bool { return hidden(t.Topic) })
					}
				}
			})
			continue
		}
		t, _ := split(&g.Topics, topics, addGroupTopic(g.Group))
		trims = append(trims, t)
	}
	return nil, both(trims...)
}
