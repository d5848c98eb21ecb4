package cluster

import (
	"fmt"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestElectLeaders: Kafka's answers to ElectLeaders, partition by
// partition, and the changes to write.
func TestElectLeaders(t *testing.T) {
	im := NewImage()
	for _, id := range []int32{1, 2, 3} {
		im.Brokers[id] = &Broker{ID: id, Fenced: id == 3}
	}
	im.Topics["t"] = &Topic{Name: "t", Partitions: []*Partition{
		{Replicas: []int32{1, 2}, ISR: []int32{1, 2}, Leader: 1},        // 0: preferred leads
		{Replicas: []int32{1, 2}, ISR: []int32{1, 2}, Leader: 2},        // 1: preferred in the ISR, not leading
		{Replicas: []int32{3, 1}, ISR: []int32{3, 1}, Leader: 1},        // 2: preferred fenced
		{Replicas: []int32{1, 2}, ISR: []int32{2}, Leader: 2},           // 3: preferred live, out of the ISR
		{Replicas: []int32{3, 2}, ISR: []int32{3}, Leader: NoLeader},    // 4: offline, 2 live out of sync
		{Replicas: []int32{3}, ISR: []int32{3}, Leader: NoLeader},       // 5: offline, nothing live
		{Replicas: []int32{2, 1}, ISR: []int32{2, 1}, Leader: NoLeader}, // 6: offline, in-sync replicas live
	}}
	req := func(typ int8, parts ...int32) *kmsg.ElectLeadersRequest {
		r := kmsg.NewPtrElectLeadersRequest()
		r.SetVersion(2)
		r.ElectionType = typ
		if parts != nil {
			r.Topics = []kmsg.ElectLeadersRequestTopic{{Topic: "t", Partitions: parts}, {Topic: "gone", Partitions: []int32{0}}}
		}
		return r
	}
	show := func(resp *kmsg.ElectLeadersResponse, els []ElectionAt) string {
		var out []string
		for _, rt := range resp.Topics {
			for _, p := range rt.Partitions {
				s := fmt.Sprintf("%s-%d:", rt.Topic, p.Partition)
				if p.ErrorCode != 0 {
					s += kerr.ErrorForCode(p.ErrorCode).(*kerr.Error).Message
				} else {
					s += "ok"
				}
				out = append(out, s)
			}
		}
		for _, e := range els {
			out = append(out, fmt.Sprintf("%d/%d->%d%v", e.Topic, e.Position, e.Change.Leader, e.Change.ISR))
		}
		return strings.Join(out, " ")
	}
	for _, c := range []struct {
		name string
		r    *kmsg.ElectLeadersRequest
		want string
	}{
		{"preferred", req(ElectionPreferred, 0, 1, 2, 3, 7),
			"t-0:ELECTION_NOT_NEEDED t-1:ok t-2:PREFERRED_LEADER_NOT_AVAILABLE t-3:PREFERRED_LEADER_NOT_AVAILABLE t-7:UNKNOWN_TOPIC_OR_PARTITION gone-0:UNKNOWN_TOPIC_OR_PARTITION 0/1->1[]"},
		{"unclean", req(ElectionUnclean, 0, 4, 5, 6),
			"t-0:ELECTION_NOT_NEEDED t-4:ok t-5:ELIGIBLE_LEADERS_NOT_AVAILABLE t-6:ok gone-0:UNKNOWN_TOPIC_OR_PARTITION 0/1->2[2] 0/3->2[]"},
		{"preferred, all partitions", req(ElectionPreferred),
			"t-1:ok t-2:PREFERRED_LEADER_NOT_AVAILABLE t-3:PREFERRED_LEADER_NOT_AVAILABLE t-4:PREFERRED_LEADER_NOT_AVAILABLE t-5:PREFERRED_LEADER_NOT_AVAILABLE t-6:ok 0/0->1[] 0/5->2[]"},
	} {
		resp, els := ElectLeaders(im, c.r)
		if got := show(resp, els); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
	}
}
