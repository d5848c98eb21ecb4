package cluster

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

func TestAuthorize(t *testing.T) {
	const (
		topic, group = int8(kmsg.ACLResourceTypeTopic), int8(kmsg.ACLResourceTypeGroup)
		literal      = int8(kmsg.ACLResourcePatternTypeLiteral)
		prefixed     = int8(kmsg.ACLResourcePatternTypePrefixed)
		allow, deny  = int8(kmsg.ACLPermissionTypeAllow), int8(kmsg.ACLPermissionTypeDeny)
		read, write  = int8(kmsg.ACLOperationRead), int8(kmsg.ACLOperationWrite)
		describe     = int8(kmsg.ACLOperationDescribe)
		all          = int8(kmsg.ACLOperationAll)
		alter, dcfg  = int8(kmsg.ACLOperationAlterConfigs), int8(kmsg.ACLOperationDescribeConfigs)
		create       = int8(kmsg.ACLOperationCreate)
	)
	acls := map[string]*ACL{}
	for _, a := range []*ACL{
		{topic, "orders-", prefixed, "User:alice", "*", read, allow},
		{topic, "orders-secret", literal, "User:alice", "*", all, deny},
		{topic, "public", literal, "User:*", "*", write, allow},
		{topic, "lab", literal, "User:carol", "10.0.0.1", all, allow},
		{topic, "cfg", literal, "User:carol", "*", alter, allow},
		{group, "*", literal, "User:bob", "*", read, allow},
	} {
		acls[ACLKey(a)] = a
	}
	for _, tc := range []struct {
		name       string
		z          Authorizer
		principal  string
		host       string
		op, rtype  int8
		resource   string
		authorized bool
	}{
		{"prefixed allow", Authorizer{}, "User:alice", "1.2.3.4", read, topic, "orders-eu", true},
		{"prefix does not match", Authorizer{}, "User:alice", "1.2.3.4", read, topic, "order", false},
		{"read implies describe", Authorizer{}, "User:alice", "1.2.3.4", describe, topic, "orders-eu", true},
		{"read does not imply write", Authorizer{}, "User:alice", "1.2.3.4", write, topic, "orders-eu", false},
		{"deny wins over allow", Authorizer{}, "User:alice", "1.2.3.4", read, topic, "orders-secret", false},
		{"wildcard principal", Authorizer{}, "User:dave", "1.2.3.4", write, topic, "public", true},
		{"host must match", Authorizer{}, "User:carol", "10.0.0.2", read, topic, "lab", false},
		{"host matches, ALL", Authorizer{}, "User:carol", "10.0.0.1", create, topic, "lab", true},
		{"alter configs implies describe configs", Authorizer{}, "User:carol", "1.2.3.4", dcfg, topic, "cfg", true},
		{"wildcard resource", Authorizer{}, "User:bob", "1.2.3.4", read, group, "any-group", true},
		{"no binding: denied by default", Authorizer{}, "User:alice", "1.2.3.4", read, topic, "elsewhere", false},
		{"no binding: allowed when asked", Authorizer{AllowIfNoACL: true}, "User:alice", "1.2.3.4", read, topic, "elsewhere", true},
		{"a binding exists: allow.everyone does not apply", Authorizer{AllowIfNoACL: true}, "User:bob", "1.2.3.4", read, topic, "public", false},
		{"super user", Authorizer{SuperUsers: []string{"User:admin"}}, "User:admin", "1.2.3.4", all, topic, "orders-secret", true},
	} {
		if got := tc.z.Authorize(acls, tc.principal, tc.host, tc.op, tc.rtype, tc.resource); got != tc.authorized {
			t.Errorf("%s: Authorize(%s, %s, op %d, %s) = %v, want %v", tc.name, tc.principal, tc.host, tc.op, tc.resource, got, tc.authorized)
		}
	}
	z := Authorizer{}
	if !z.MayAny(acls, "User:dave", "h", write, topic) || z.MayAny(acls, "User:erin", "h", read, topic) {
		t.Error("MayAny: dave may write public (User:*), erin may read no topic")
	}
}

// TestACLRequests: CreateAcls refuses a malformed binding and stores a
// repeated one once; DescribeAcls with MATCH finds the bindings that
// apply to a name; DeleteAcls removes what its filter matches.
func TestACLRequests(t *testing.T) {
	acls := map[string]*ACL{}
	creq := kmsg.NewPtrCreateACLsRequest()
	creq.Version = 3
	mk := func(name string, pattern kmsg.ACLResourcePatternType, principal string) kmsg.CreateACLsRequestCreation {
		c := kmsg.NewCreateACLsRequestCreation()
		c.ResourceType, c.ResourceName, c.ResourcePatternType = kmsg.ACLResourceTypeTopic, name, pattern
		c.Principal, c.Host, c.Operation, c.PermissionType = principal, "*", kmsg.ACLOperationRead, kmsg.ACLPermissionTypeAllow
		return c
	}
	creq.Creations = []kmsg.CreateACLsRequestCreation{
		mk("orders-", kmsg.ACLResourcePatternTypePrefixed, "User:alice"),
		mk("orders-", kmsg.ACLResourcePatternTypePrefixed, "User:alice"),
		mk("orders-eu", kmsg.ACLResourcePatternTypeLiteral, "User:bob"),
		mk("x", kmsg.ACLResourcePatternTypeLiteral, "alice"),
		mk("x", kmsg.ACLResourcePatternTypeMatch, "User:alice"),
	}
	resp, recs := CreateACLs(creq, acls)
	if len(recs) != 2 || resp.Results[3].ErrorCode == 0 || resp.Results[4].ErrorCode == 0 || resp.Results[0].ErrorCode != 0 {
		t.Fatalf("CreateAcls: %d records, results %+v", len(recs), resp.Results)
	}
	for i := range recs {
		ApplyACL(acls, &recs[i])
	}
	dreq := kmsg.NewPtrDescribeACLsRequest()
	dreq.Version = 3
	name := "orders-eu"
	dreq.ResourceType, dreq.ResourceName, dreq.ResourcePatternType = kmsg.ACLResourceTypeAny, &name, kmsg.ACLResourcePatternTypeMatch
	dreq.Operation, dreq.PermissionType = kmsg.ACLOperationAny, kmsg.ACLPermissionTypeAny
	if d := DescribeACLs(dreq, acls); len(d.Resources) != 2 {
		t.Errorf("DescribeAcls MATCH orders-eu: %+v, want the prefixed and the literal binding", d.Resources)
	}
	del := kmsg.NewPtrDeleteACLsRequest()
	del.Version = 3
	f := kmsg.NewDeleteACLsRequestFilter()
	alice := "User:alice"
	f.ResourceType, f.ResourcePatternType, f.Principal = kmsg.ACLResourceTypeAny, kmsg.ACLResourcePatternTypeAny, &alice
	f.Operation, f.PermissionType = kmsg.ACLOperationAny, kmsg.ACLPermissionTypeAny
	del.Filters = append(del.Filters, f)
	dresp, drecs := DeleteACLs(del, acls)
	for i := range drecs {
		ApplyACL(acls, &drecs[i])
	}
	if len(dresp.Results) != 1 || len(dresp.Results[0].MatchingACLs) != 1 || len(acls) != 1 {
		t.Errorf("DeleteAcls of alice's: %+v, %d left, want 1 deleted and bob's left", dresp.Results, len(acls))
	}
}
