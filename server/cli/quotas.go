package cli

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// clusterQuotas describes and alters client quotas (KIP-546), as rpk
// cluster quotas and kafka-configs --entity-type users|clients|ips do.
// An entity is named by its parts: --name user=alice --name
// client-id=app is alice's quota for app; --default client-id is every
// client's default.
//
//	gregor cluster quotas describe [--name TYPE=NAME] [--default TYPE] [--any TYPE] [--strict]
//	gregor cluster quotas alter --name client-id=app --add producer_byte_rate=1048576 --delete consumer_byte_rate
func clusterQuotas(e *env) error {
	var names, defaults, anys, adds, deletes repeated
	e.fs.Var(&names, "name", "an entity part TYPE=NAME (user, client-id or ip), repeatable")
	e.fs.Var(&defaults, "default", "an entity part at its default, TYPE, repeatable")
	e.fs.Var(&anys, "any", "describe: any entity with this TYPE, repeatable")
	strict := e.fs.Bool("strict", false, "describe: only entities with exactly the parts given")
	e.fs.Var(&adds, "add", "alter: a quota KEY=VALUE to set, repeatable")
	e.fs.Var(&deletes, "delete", "alter: a quota KEY to remove, repeatable")
	e.withFormat()
	adm, ctx, err := e.open(1, 1, "describe | alter")
	if err != nil {
		return err
	}
	kv, err := keyValues("--name", names)
	if err != nil {
		return err
	}
	switch e.args[0] {
	case "describe":
		var comps []kadm.DescribeClientQuotaComponent
		for _, t := range sortedKeys(kv) {
			name := kv[t]
			comps = append(comps, kadm.DescribeClientQuotaComponent{Type: t, MatchName: &name, MatchType: kmsg.QuotasMatchTypeExact})
		}
		for _, t := range defaults {
			comps = append(comps, kadm.DescribeClientQuotaComponent{Type: t, MatchType: kmsg.QuotasMatchTypeDefault})
		}
		for _, t := range anys {
			comps = append(comps, kadm.DescribeClientQuotaComponent{Type: t, MatchType: kmsg.QuotasMatchTypeAny})
		}
		qs, err := adm.DescribeClientQuotas(ctx, *strict, comps)
		if err != nil {
			return err
		}
		type quota struct {
			Entity string             `json:"entity"`
			Values map[string]float64 `json:"values"`
		}
		out := []quota{}
		for _, q := range qs {
			vs := map[string]float64{}
			for _, v := range q.Values {
				vs[v.Key] = v.Value
			}
			out = append(out, quota{entityName(q.Entity), vs})
		}
		return e.show(out, func() [][]string {
			rows := [][]string{{"ENTITY", "QUOTA", "VALUE"}}
			for _, q := range out {
				for _, k := range sortedKeys(q.Values) {
					rows = append(rows, []string{q.Entity, k, strconv.FormatFloat(q.Values[k], 'f', -1, 64)})
				}
			}
			return rows
		})
	case "alter":
		var entity kadm.ClientQuotaEntity
		for _, t := range sortedKeys(kv) {
			name := kv[t]
			entity = append(entity, kadm.ClientQuotaEntityComponent{Type: t, Name: &name})
		}
		for _, t := range defaults {
			entity = append(entity, kadm.ClientQuotaEntityComponent{Type: t})
		}
		if len(entity) == 0 {
			return usagef("alter: name the entity (--name TYPE=NAME or --default TYPE)")
		}
		add, err := keyValues("--add", adds)
		if err != nil {
			return err
		}
		var ops []kadm.AlterClientQuotaOp
		for _, k := range sortedKeys(add) {
			v, err := strconv.ParseFloat(add[k], 64)
			if err != nil {
				return usagef("--add %s=%s: not a number", k, add[k])
			}
			ops = append(ops, kadm.AlterClientQuotaOp{Key: k, Value: v})
		}
		for _, k := range deletes {
			ops = append(ops, kadm.AlterClientQuotaOp{Key: k, Remove: true})
		}
		if len(ops) == 0 {
			return usagef("alter: give --add KEY=VALUE or --delete KEY")
		}
		rs, err := adm.AlterClientQuotas(ctx, []kadm.AlterClientQuotaEntry{{Entity: entity, Ops: ops}})
		if err != nil {
			return err
		}
		for _, r := range rs {
			if r.Err != nil {
				e.refused(entityName(r.Entity), r.Err, r.ErrMessage)
				continue
			}
			fmt.Fprintf(e.stdout, "%s: %d quotas changed\n", entityName(r.Entity), len(ops))
		}
		return nil
	}
	return usagef("cluster quotas %s: want describe or alter", e.args[0])
}

// entityName writes an entity as its parts, user=alice,client-id=app
// (client-id=<default> for a default).
func entityName(en kadm.ClientQuotaEntity) string {
	parts := make([]string, len(en))
	for i, c := range en {
		parts[i] = c.String()
	}
	return strings.Join(parts, ",")
}
