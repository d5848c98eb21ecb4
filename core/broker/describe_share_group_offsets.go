package broker

import (
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// DescribeShareGroupOffsets v0-1 (KIP-932; share_offsets.go).
func init() {
	register(90, api{min: 0, max: 1, serve: handleShareOffsets, acl: describeShareOffsetsACL{}})
}

// describeShareOffsetsACL: each share group needs DESCRIBE, each
// topic asked DESCRIBE; asked for all topics, a group's answer lists only
// the describable ones (KIP-932).
type describeShareOffsetsACL struct{}

func (describeShareOffsetsACL) authorize(b *Broker, r *Request) (kmsg.Response, func(kmsg.Response)) {
	q := r.Msg.(*kmsg.DescribeShareGroupOffsetsRequest)
	deny, trim := partial(r, &q.Groups, b.ofResource(r, kmsg.ACLResourceTypeGroup, kmsg.ACLOperationDescribe, kerr.GroupAuthorizationFailed), addGroups)
	if deny != nil {
		return deny, nil
	}
	topics := b.topicParts(r, kmsg.ACLOperationDescribe)
	trims := []func(kmsg.Response){trim}
	for i := range q.Groups {
		g := &q.Groups[i]
		if g.Topics != nil {
			t, _ := split(&g.Topics, topics, addGroupTopic(g.GroupID))
			trims = append(trims, t)
			continue
		}
		id := g.GroupID
		trims = append(trims, func(resp kmsg.Response) {
			dr := resp.(*kmsg.DescribeShareGroupOffsetsResponse)
			for j := range dr.Groups {
				if rg := &dr.Groups[j]; rg.GroupID == id {
					rg.Topics = slices.DeleteFunc(rg.Topics, func(t kmsg.DescribeShareGroupOffsetsResponseGroupTopic) bool { return topics(t.Topic) != nil })
				}
			}
		})
	}
	return nil, both(trims...)
}
