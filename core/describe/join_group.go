package describe

import (
	"fmt"
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// JoinGroup (key 11): the member, its static instance id (KIP-345) and
// protocols; the answer's generation, leader and chosen protocol.
func init() {
	describes(joinGroupRequest)
	describes(joinGroupResponse)
}

func joinGroupRequest(m *kmsg.JoinGroupRequest) string {
	var protos []string
	for _, p := range m.Protocols {
		protos = append(protos, p.Name)
	}
	inst := ""
	if m.InstanceID != nil {
		inst = " instance=" + *m.InstanceID
	}
	return fmt.Sprintf("JoinGroup group=%s member=%s%s protocols=%s", m.Group, orDash(m.MemberID), inst, strings.Join(protos, ","))
}

func joinGroupResponse(m *kmsg.JoinGroupResponse) string {
	proto := ""
	if m.Protocol != nil {
		proto = *m.Protocol
	}
	return fmt.Sprintf("JoinGroup generation=%d member=%s leader=%s protocol=%s members=%d%s", m.Generation, orDash(m.MemberID), orDash(m.LeaderID), orDash(proto), len(m.Members), errField(m.ErrorCode))
}
