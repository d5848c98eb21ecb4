package quota

import (
	"fmt"
	"maps"
	"math"
	"slices"
)

// Quotas are the quota values by entity key.
type Quotas map[string]map[string]float64

// Op sets (Remove false) or removes one value of an entity.
type Op struct {
	Key    string
	Value  float64
	Remove bool
}

// Check validates ops on an entity: every key applies to it, values are
// positive, and the byte and mutation rates are whole numbers (Kafka
// keeps them as longs).
func Check(e Entity, ops []Op) error {
	for _, op := range ops {
		if !e.validKey(op.Key) {
			return fmt.Errorf("%q is not a quota of entity %s", op.Key, e.Key())
		}
		if op.Remove {
			continue
		}
		if !(op.Value > 0) || math.IsInf(op.Value, 0) {
			return fmt.Errorf("quota %s must be a positive number, not %v", op.Key, op.Value)
		}
		if op.Key != RequestPercentage && op.Value != math.Trunc(op.Value) {
			return fmt.Errorf("quota %s must be a whole number, not %v", op.Key, op.Value)
		}
	}
	return nil
}

// Apply applies checked ops to an entity's values in place.
func (q Quotas) Apply(key string, ops []Op) {
	vals := q[key]
	for _, op := range ops {
		if op.Remove {
			delete(vals, op.Key)
			continue
		}
		if vals == nil {
			vals = map[string]float64{}
			q[key] = vals
		}
		vals[op.Key] = op.Value
	}
	if len(vals) == 0 {
		delete(q, key)
	}
}

// Clone copies q.
func (q Quotas) Clone() Quotas {
	out := make(Quotas, len(q))
	//purity:unordered copies into a map
	for k, v := range q {
		out[k] = maps.Clone(v)
	}
	return out
}

// Match is how a filter component matches (DescribeClientQuotas).
type Match int8

const (
	MatchExact   Match = 0 // the component names this entity
	MatchDefault Match = 1 // the component is the default entity
	MatchAny     Match = 2 // the component is present, with any name
)

// Filter is one filter component of DescribeClientQuotas.
type Filter struct {
	Type  string
	Match Match
	Name  *string
}

// Describe lists the entities the filters match, in key order: each
// filter's component must be in the entity as it says and, when strict,
// the entity must have no other component (KIP-546).
func (q Quotas) Describe(filters []Filter, strict bool) []Entity {
	var out []Entity
	for _, key := range slices.Sorted(maps.Keys(q)) {
		e, err := ParseKey(key)
		if err != nil {
			continue // not written by Apply's callers; skipped, not served
		}
		if strict && len(e) != len(filters) {
			continue
		}
		if !slices.ContainsFunc(filters, func(f Filter) bool { return !f.matches(e) }) {
			out = append(out, e)
		}
	}
	return out
}

func (f Filter) matches(e Entity) bool {
	name, ok := e.name(f.Type)
	switch {
	case !ok:
		return false
	case f.Match == MatchDefault:
		return name == nil
	case f.Match == MatchAny:
		return name != nil
	default:
		return name != nil && f.Name != nil && *name == *f.Name
	}
}

// Resolve finds the quota that applies to a client for one quota key, in
// Kafka's order of precedence (most specific first): user and client-id,
// user and default client-id, user, default user and client-id, default
// user and default client-id, default user, client-id, default client-id.
// It returns the value and the key of the meter that measures the client
// against it: the matched entity with each default replaced by the
// client's own name, so that a default quota applies to each client on
// its own, as Kafka's does.
func (q Quotas) Resolve(user, clientID, key string) (value float64, meter string, ok bool) {
	u, c := &user, &clientID
	for _, e := range []Entity{
		{{ClientID, c}, {User, u}}, {{ClientID, nil}, {User, u}}, {{User, u}},
		{{ClientID, c}, {User, nil}}, {{ClientID, nil}, {User, nil}}, {{User, nil}},
		{{ClientID, c}}, {{ClientID, nil}},
	} {
		if v, found := q[e.Key()][key]; found {
			for i := range e {
				if e[i].Name == nil {
					e[i].Name = map[string]*string{User: u, ClientID: c}[e[i].Type]
				}
			}
			return v, key + "/" + e.Key(), true
		}
	}
	return 0, "", false
}

// ResolveIP finds the connection_creation_rate of an IP address (KIP-612):
// the ip entity's own, else the default ip entity's; the meter key names
// the address, so a default applies to each address on its own.
func (q Quotas) ResolveIP(ip string) (value float64, meter string, ok bool) {
	for _, e := range []Entity{{{IP, &ip}}, {{IP, nil}}} {
		if v, found := q[e.Key()][ConnectionCreationRate]; found {
			return v, ConnectionCreationRate + "/" + Entity{{IP, &ip}}.Key(), true
		}
	}
	return 0, "", false
}
