package cluster

import (
	"fmt"
	"sort"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// ACLs with Kafka's model (KIP-11, prefixed patterns KIP-290): a binding
// allows or denies a principal, from a host, an operation on the
// resources a pattern names (a literal name, "*" for all, or a prefix).
// They are managed with CreateAcls, DescribeAcls and DeleteAcls and
// stored as KRaft stores them (AccessControlEntryRecord), in the single
// broker's metadata file or the cluster's metadata log.
//
// Authorize decides as Kafka's StandardAuthorizer: super users may do
// anything; a resource with no binding at all is allowed to everyone only
// with allow.everyone.if.no.acl.found; a matching DENY wins over any
// ALLOW; READ, WRITE, DELETE and ALTER imply DESCRIBE, and ALTER_CONFIGS
// implies DESCRIBE_CONFIGS; ALL matches every operation.
//
// Invariants: a stored binding has a known resource type (not ANY), a
// LITERAL or PREFIXED pattern, a known operation (not ANY), ALLOW or
// DENY, a principal of the form Type:name and a host; ACLKey(a) keys it,
// so the same binding is stored once.

// ACL is one binding: Kafka's AccessControlEntryRecord.
type ACL struct {
	ResourceType int8   `json:"resource_type"`
	ResourceName string `json:"resource_name"`
	PatternType  int8   `json:"pattern_type"`
	Principal    string `json:"principal"`
	Host         string `json:"host"`
	Operation    int8   `json:"operation"`
	Permission   int8   `json:"permission"`
}

// RemoveACL is a RemoveAccessControlEntryRecord, by ACLKey.
type RemoveACL struct {
	Key string `json:"key"`
}

// ACLKey keys a binding in the maps that hold them.
func ACLKey(a *ACL) string {
	return fmt.Sprintf("%d|%d|%s|%s|%s|%d|%d", a.ResourceType, a.PatternType, a.ResourceName, a.Principal, a.Host, a.Operation, a.Permission)
}

// ClusterResource is the name of the one cluster resource.
const ClusterResource = "kafka-cluster"

// ApplyACL applies an ACL record to acls; other records are ignored.
func ApplyACL(acls map[string]*ACL, r *Record) {
	switch {
	case r.ACL != nil:
		a := *r.ACL
		acls[ACLKey(&a)] = &a
	case r.RemoveACL != nil:
		delete(acls, r.RemoveACL.Key)
	}
}

// CreateACLs validates CreateAcls and returns the answer and the records
// of the new bindings (one already stored is answered as created).
func CreateACLs(req *kmsg.CreateACLsRequest, acls map[string]*ACL) (*kmsg.CreateACLsResponse, []Record) {
	resp := req.ResponseKind().(*kmsg.CreateACLsResponse)
	var recs []Record
	seen := map[string]bool{}
	for _, c := range req.Creations {
		r := kmsg.NewCreateACLsResponseResult()
		a := &ACL{ResourceType: int8(c.ResourceType), ResourceName: c.ResourceName, PatternType: int8(c.ResourcePatternType),
			Principal: c.Principal, Host: c.Host, Operation: int8(c.Operation), Permission: int8(c.PermissionType)}
		if req.Version == 0 {
			a.PatternType = int8(kmsg.ACLResourcePatternTypeLiteral)
		}
		if err := a.validate(); err != "" {
			r.ErrorCode, r.ErrorMessage = kerr.InvalidRequest.Code, &err
		} else if k := ACLKey(a); acls[k] == nil && !seen[k] {
			seen[k] = true
			recs = append(recs, Record{ACL: a})
		}
		resp.Results = append(resp.Results, r)
	}
	return resp, recs
}

func (a *ACL) validate() string {
	switch {
	case a.ResourceType < int8(kmsg.ACLResourceTypeTopic) || a.ResourceType > int8(kmsg.ACLResourceTypeDelegationToken):
		return fmt.Sprintf("resource type %d cannot have ACLs", a.ResourceType)
	case a.PatternType != int8(kmsg.ACLResourcePatternTypeLiteral) && a.PatternType != int8(kmsg.ACLResourcePatternTypePrefixed):
		return "the pattern type must be LITERAL or PREFIXED"
	case a.ResourceName == "":
		return "the resource name cannot be empty"
	case a.ResourceType == int8(kmsg.ACLResourceTypeCluster) && a.ResourceName != ClusterResource:
		return "the cluster resource is named " + ClusterResource
	case a.Operation < int8(kmsg.ACLOperationAll) || a.Operation > int8(kmsg.ACLOperationDescribeTokens):
		return fmt.Sprintf("operation %d is not one a binding can name", a.Operation)
	case a.Permission != int8(kmsg.ACLPermissionTypeAllow) && a.Permission != int8(kmsg.ACLPermissionTypeDeny):
		return "the permission must be ALLOW or DENY"
	case !strings.Contains(a.Principal, ":") || strings.HasPrefix(a.Principal, ":"):
		return fmt.Sprintf("principal %q: want Type:name, e.g. User:alice", a.Principal)
	case a.Host == "":
		return "the host cannot be empty (* is every host)"
	}
	return ""
}

// aclFilter is a DescribeAcls or DeleteAcls filter.
type aclFilter struct {
	resourceType    int8
	name            *string
	pattern         int8
	principal, host *string
	op, perm        int8
}

func (f *aclFilter) matches(a *ACL) bool {
	any := func(v int8) bool { return v == 1 } // ANY in each of Kafka's enums
	if !any(f.resourceType) && f.resourceType != a.ResourceType ||
		!any(f.op) && f.op != a.Operation || !any(f.perm) && f.perm != a.Permission ||
		f.principal != nil && *f.principal != a.Principal || f.host != nil && *f.host != a.Host {
		return false
	}
	switch {
	case f.pattern == int8(kmsg.ACLResourcePatternTypeMatch):
		// The bindings that apply to the named resource (KIP-290).
		return f.name == nil || resourceMatches(a, *f.name)
	case !any(f.pattern) && f.pattern != a.PatternType:
		return false
	}
	return f.name == nil || *f.name == a.ResourceName
}

// resourceMatches reports whether a binding's pattern covers name.
func resourceMatches(a *ACL, name string) bool {
	if a.PatternType == int8(kmsg.ACLResourcePatternTypePrefixed) {
		return strings.HasPrefix(name, a.ResourceName)
	}
	return a.ResourceName == name || a.ResourceName == "*"
}

// sortedACLs lists the bindings a filter matches, in key order.
func sortedACLs(acls map[string]*ACL, f *aclFilter) []*ACL {
	var out []*ACL
	for _, a := range acls {
		if f.matches(a) {
			out = append(out, a)
		}
	}
	sort.Slice(out, func(i, j int) bool { return ACLKey(out[i]) < ACLKey(out[j]) })
	return out
}

// DescribeACLs answers DescribeAcls, the bindings grouped by resource.
func DescribeACLs(req *kmsg.DescribeACLsRequest, acls map[string]*ACL) *kmsg.DescribeACLsResponse {
	resp := req.ResponseKind().(*kmsg.DescribeACLsResponse)
	f := &aclFilter{int8(req.ResourceType), req.ResourceName, int8(req.ResourcePatternType), req.Principal, req.Host, int8(req.Operation), int8(req.PermissionType)}
	if req.Version == 0 {
		f.pattern = int8(kmsg.ACLResourcePatternTypeLiteral)
	}
	for _, a := range sortedACLs(acls, f) {
		n := len(resp.Resources)
		if n == 0 || resp.Resources[n-1].ResourceType != kmsg.ACLResourceType(a.ResourceType) ||
			resp.Resources[n-1].ResourceName != a.ResourceName || resp.Resources[n-1].ResourcePatternType != kmsg.ACLResourcePatternType(a.PatternType) {
			r := kmsg.NewDescribeACLsResponseResource()
			r.ResourceType, r.ResourceName, r.ResourcePatternType = kmsg.ACLResourceType(a.ResourceType), a.ResourceName, kmsg.ACLResourcePatternType(a.PatternType)
			resp.Resources = append(resp.Resources, r)
			n++
		}
		e := kmsg.NewDescribeACLsResponseResourceACL()
		e.Principal, e.Host, e.Operation, e.PermissionType = a.Principal, a.Host, kmsg.ACLOperation(a.Operation), kmsg.ACLPermissionType(a.Permission)
		resp.Resources[n-1].ACLs = append(resp.Resources[n-1].ACLs, e)
	}
	return resp
}

// DeleteACLs answers DeleteAcls and returns the records removing every
// binding a filter matches.
func DeleteACLs(req *kmsg.DeleteACLsRequest, acls map[string]*ACL) (*kmsg.DeleteACLsResponse, []Record) {
	resp := req.ResponseKind().(*kmsg.DeleteACLsResponse)
	var recs []Record
	gone := map[string]bool{}
	for _, fl := range req.Filters {
		f := &aclFilter{int8(fl.ResourceType), fl.ResourceName, int8(fl.ResourcePatternType), fl.Principal, fl.Host, int8(fl.Operation), int8(fl.PermissionType)}
		if req.Version == 0 {
			f.pattern = int8(kmsg.ACLResourcePatternTypeLiteral)
		}
		r := kmsg.NewDeleteACLsResponseResult()
		for _, a := range sortedACLs(acls, f) {
			m := kmsg.NewDeleteACLsResponseResultMatchingACL()
			m.ResourceType, m.ResourceName, m.ResourcePatternType = kmsg.ACLResourceType(a.ResourceType), a.ResourceName, kmsg.ACLResourcePatternType(a.PatternType)
			m.Principal, m.Host, m.Operation, m.PermissionType = a.Principal, a.Host, kmsg.ACLOperation(a.Operation), kmsg.ACLPermissionType(a.Permission)
			r.MatchingACLs = append(r.MatchingACLs, m)
			if k := ACLKey(a); !gone[k] {
				gone[k] = true
				recs = append(recs, Record{RemoveACL: &RemoveACL{Key: k}})
			}
		}
		resp.Results = append(resp.Results, r)
	}
	return resp, recs
}

// Authorizer is what authorizer.class.name turns on.
type Authorizer struct {
	// SuperUsers (super.users) may do anything.
	SuperUsers []string
	// AllowIfNoACL (allow.everyone.if.no.acl.found) allows everyone on a
	// resource that no binding names.
	AllowIfNoACL bool
}

// implied lists the operations an allowed operation also grants.
var implied = map[int8][]int8{
	int8(kmsg.ACLOperationDescribe): {int8(kmsg.ACLOperationRead), int8(kmsg.ACLOperationWrite),
		int8(kmsg.ACLOperationDelete), int8(kmsg.ACLOperationAlter)},
	int8(kmsg.ACLOperationDescribeConfigs): {int8(kmsg.ACLOperationAlterConfigs)},
}

// Authorize decides whether principal, from host, may do op on the named
// resource of type rtype.
func (z *Authorizer) Authorize(acls map[string]*ACL, principal, host string, op, rtype int8, name string) bool {
	for _, s := range z.SuperUsers {
		if s == principal {
			return true
		}
	}
	found, allowed := false, false
	//purity:unordered a matching DENY returns false in any order; else flags
	for _, a := range acls {
		if a.ResourceType != rtype || !resourceMatches(a, name) {
			continue
		}
		found = true
		if a.Principal != principal && a.Principal != "User:*" || a.Host != host && a.Host != "*" {
			continue
		}
		ops := append([]int8{op}, implied[op]...)
		if a.Permission == int8(kmsg.ACLPermissionTypeDeny) {
			if a.Operation == int8(kmsg.ACLOperationAll) || a.Operation == op {
				return false
			}
			continue
		}
		for _, o := range ops {
			if a.Operation == int8(kmsg.ACLOperationAll) || a.Operation == o {
				allowed = true
			}
		}
	}
	if !found {
		return z.AllowIfNoACL
	}
	return allowed
}

// MayAny reports whether principal, from host, may do op on some resource
// of type rtype: a super user, or an ALLOW binding of op (or ALL) for it
// that no DENY of every resource of the type overrides (Kafka's
// authorizeByResourceType, KIP-679: an idempotent producer needs WRITE on
// any topic).
func (z *Authorizer) MayAny(acls map[string]*ACL, principal, host string, op, rtype int8) bool {
	for _, s := range z.SuperUsers {
		if s == principal {
			return true
		}
	}
	allowed := false
	//purity:unordered a matching DENY returns false in any order; else flags
	for _, a := range acls {
		if a.ResourceType != rtype || a.Principal != principal && a.Principal != "User:*" || a.Host != host && a.Host != "*" ||
			a.Operation != op && a.Operation != int8(kmsg.ACLOperationAll) {
			continue
		}
		if a.Permission == int8(kmsg.ACLPermissionTypeDeny) && a.ResourceName == "*" && a.PatternType == int8(kmsg.ACLResourcePatternTypeLiteral) {
			return false
		}
		allowed = allowed || a.Permission == int8(kmsg.ACLPermissionTypeAllow)
	}
	return allowed
}
