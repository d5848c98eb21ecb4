package cli

import (
	"fmt"
	"strings"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kmsg"
)

var securityVerbs = map[string]func(*env) error{
	"user": securityUser,
	"acl":  securityACL,
}

// securityUser manages SCRAM users (AlterUserScramCredentials,
// DescribeUserScramCredentials, KIP-554):
//
//	gregor security user create NAME --password SECRET [--mechanism SCRAM-SHA-512]
//	gregor security user delete NAME [--mechanism ...]
//	gregor security user list
func securityUser(e *env) error {
	password := e.fs.String("password", "", "create: the user's password")
	mech := e.fs.String("mechanism", "SCRAM-SHA-256", "SCRAM-SHA-256 or SCRAM-SHA-512")
	iterations := e.fs.Int("iterations", 8192, "create: SCRAM iterations (4096 to 16384)")
	e.withFormat()
	if err := e.parse(1, 2, "create|delete NAME | list"); err != nil {
		return err
	}
	var m kadm.ScramMechanism
	switch *mech {
	case "SCRAM-SHA-256":
		m = kadm.ScramSha256
	case "SCRAM-SHA-512":
		m = kadm.ScramSha512
	default:
		return usagef("--mechanism %s: want SCRAM-SHA-256 or SCRAM-SHA-512", *mech)
	}
	action := e.args[0]
	if action != "list" && len(e.args) != 2 {
		return usagef("security user %s: give the user's NAME", action)
	}
	adm, ctx, err := e.client()
	if err != nil {
		return err
	}
	switch action {
	case "create", "delete":
		var del []kadm.DeleteSCRAM
		var up []kadm.UpsertSCRAM
		if action == "create" {
			if *password == "" {
				return usagef("security user create: give --password")
			}
			up = []kadm.UpsertSCRAM{{User: e.args[1], Mechanism: m, Iterations: int32(*iterations), Password: *password}}
		} else {
			del = []kadm.DeleteSCRAM{{User: e.args[1], Mechanism: m}}
		}
		rs, err := adm.AlterUserSCRAMs(ctx, del, up)
		if err != nil {
			return err
		}
		if r := rs[e.args[1]]; r.Err != nil {
			e.refused("user "+e.args[1], r.Err, r.ErrMessage)
			return nil
		}
		fmt.Fprintf(e.stdout, "%sd %s user %s\n", action, *mech, e.args[1])
		return nil
	case "list":
		ds, err := adm.DescribeUserSCRAMs(ctx)
		if err != nil {
			return err
		}
		type user struct {
			Name       string   `json:"name"`
			Mechanisms []string `json:"mechanisms"`
		}
		out := []user{}
		for _, name := range sortedKeys(ds) {
			u := user{Name: name}
			for _, c := range ds[name].CredInfos {
				u.Mechanisms = append(u.Mechanisms, c.String())
			}
			out = append(out, u)
		}
		return e.show(out, func() [][]string {
			rows := [][]string{{"USER", "MECHANISMS"}}
			for _, u := range out {
				rows = append(rows, []string{u.Name, strings.Join(u.Mechanisms, ",")})
			}
			return rows
		})
	}
	return usagef("security user %s: want create, delete or list", action)
}

// aclFlags are the flags that name ACLs, as rpk's.
type aclFlags struct {
	allow, deny, allowHosts, denyHosts, ops repeated
	topics, groups, txnIDs                  repeated
	cluster                                 bool
	pattern                                 string
}

func (a *aclFlags) register(e *env) {
	e.fs.Var(&a.allow, "allow-principal", "User:NAME to allow, repeatable")
	e.fs.Var(&a.deny, "deny-principal", "User:NAME to deny, repeatable")
	e.fs.Var(&a.allowHosts, "allow-host", "a host to allow from (default *), repeatable")
	e.fs.Var(&a.denyHosts, "deny-host", "a host to deny from (default *), repeatable")
	e.fs.Var(&a.ops, "operation", "read, write, create, delete, alter, describe, describe_configs, alter_configs, cluster_action, idempotent_write or all, repeatable")
	e.fs.Var(&a.topics, "topic", "a topic, repeatable")
	e.fs.Var(&a.groups, "group", "a group, repeatable")
	e.fs.Var(&a.txnIDs, "transactional-id", "a transactional id, repeatable")
	e.fs.BoolVar(&a.cluster, "cluster", false, "the cluster resource")
	e.fs.StringVar(&a.pattern, "resource-pattern-type", "", "literal or prefixed (create; default literal); also any or match (list, delete; default any)")
}

// builder turns the flags into kadm's ACL builder; filter allows the
// wildcards of list and delete.
func (a *aclFlags) builder(filter bool) (*kadm.ACLBuilder, error) {
	b := kadm.NewACLs()
	named := len(a.topics)+len(a.groups)+len(a.txnIDs) > 0 || a.cluster
	switch {
	case !filter:
		b = b.Allow(a.allow...).Deny(a.deny...).AllowHosts(a.allowHosts...).DenyHosts(a.denyHosts...).
			Topics(a.topics...).Groups(a.groups...).TransactionalIDs(a.txnIDs...)
		if a.cluster {
			b = b.Clusters()
		}
	case named: // only the named resources
		b = b.MaybeTopics(a.topics...).MaybeGroups(a.groups...).MaybeTransactionalIDs(a.txnIDs...).MaybeClusters(a.cluster)
	default:
		b = b.AnyResource()
	}
	if filter {
		if len(a.allow)+len(a.deny) == 0 {
			b = b.Allow().Deny() // any principal, allowed or denied
		} else {
			b = b.MaybeAllow(a.allow...).MaybeDeny(a.deny...)
		}
		b = b.AllowHosts(a.allowHosts...).DenyHosts(a.denyHosts...)
	}
	var ops []kadm.ACLOperation
	for _, o := range a.ops {
		op, err := kmsg.ParseACLOperation(strings.ReplaceAll(strings.ToLower(o), "-", "_"))
		if err != nil {
			return nil, usagef("--operation %s: %v", o, err)
		}
		ops = append(ops, op)
	}
	if filter && len(ops) == 0 {
		ops = []kadm.ACLOperation{kadm.OpAny}
	}
	b = b.Operations(ops...)
	name := a.pattern
	if name == "" {
		name = map[bool]string{false: "literal", true: "any"}[filter]
	}
	pattern, err := kmsg.ParseACLResourcePatternType(name)
	if err != nil {
		return nil, usagef("--resource-pattern-type %s: %v", name, err)
	}
	b = b.ResourcePatternType(pattern)
	validate := b.ValidateCreate
	if filter {
		validate = b.ValidateFilter
	}
	if err := validate(); err != nil {
		return nil, usagef("%v", err)
	}
	return b, nil
}

// listedACL is an ACL as acl list and acl delete show it.
type listedACL struct {
	Principal    string `json:"principal"`
	Host         string `json:"host"`
	ResourceType string `json:"resource_type"`
	Resource     string `json:"resource"`
	Pattern      string `json:"pattern"`
	Operation    string `json:"operation"`
	Permission   string `json:"permission"`
}

func (e *env) showACLs(acls []listedACL) error {
	return e.show(acls, func() [][]string {
		rows := [][]string{{"PRINCIPAL", "HOST", "RESOURCE-TYPE", "RESOURCE", "PATTERN", "OPERATION", "PERMISSION"}}
		for _, a := range acls {
			rows = append(rows, []string{a.Principal, a.Host, a.ResourceType, a.Resource, a.Pattern, a.Operation, a.Permission})
		}
		return rows
	})
}

// securityACL manages ACLs (CreateAcls, DescribeAcls, DeleteAcls):
//
//	gregor security acl create --allow-principal User:alice --operation read --topic orders
//	gregor security acl list [--topic orders] [--allow-principal User:alice]
//	gregor security acl delete --allow-principal User:alice --topic orders
func securityACL(e *env) error {
	var a aclFlags
	a.register(e)
	e.withFormat()
	if err := e.parse(1, 1, "create|list|delete"); err != nil {
		return err
	}
	action := e.args[0]
	if action != "create" && action != "list" && action != "delete" {
		return usagef("security acl %s: want create, list or delete", action)
	}
	b, err := a.builder(action != "create")
	if err != nil {
		return err
	}
	adm, ctx, err := e.client()
	if err != nil {
		return err
	}
	var out []listedACL
	switch action {
	case "create":
		rs, err := adm.CreateACLs(ctx, b)
		if err != nil {
			return err
		}
		for _, r := range rs {
			if r.Err != nil {
				e.refused("ACL for "+r.Principal, r.Err, r.ErrMessage)
				continue
			}
			out = append(out, listedACL{r.Principal, r.Host, r.Type.String(), r.Name, r.Pattern.String(), r.Operation.String(), r.Permission.String()})
		}
	case "list":
		rs, err := adm.DescribeACLs(ctx, b)
		if err != nil {
			return err
		}
		for _, r := range rs {
			if r.Err != nil {
				e.refused("listing ACLs", r.Err, r.ErrMessage)
				return nil
			}
			for _, d := range r.Described {
				out = append(out, listedACL{d.Principal, d.Host, d.Type.String(), d.Name, d.Pattern.String(), d.Operation.String(), d.Permission.String()})
			}
		}
	case "delete":
		rs, err := adm.DeleteACLs(ctx, b)
		if err != nil {
			return err
		}
		for _, r := range rs {
			if r.Err != nil {
				e.refused("deleting ACLs", r.Err, r.ErrMessage)
				return nil
			}
			for _, d := range r.Deleted {
				out = append(out, listedACL{d.Principal, d.Host, d.Type.String(), d.Name, d.Pattern.String(), d.Operation.String(), d.Permission.String()})
			}
		}
	}
	if out == nil {
		out = []listedACL{}
	}
	return e.showACLs(out)
}
