package quota

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Entity component types (KIP-546).
const (
	User     = "user"
	ClientID = "client-id"
	IP       = "ip"
)

// Quota keys (KIP-13, KIP-124, KIP-599, KIP-612).
const (
	ProducerByteRate       = "producer_byte_rate"
	ConsumerByteRate       = "consumer_byte_rate"
	RequestPercentage      = "request_percentage"
	ControllerMutationRate = "controller_mutation_rate"
	ConnectionCreationRate = "connection_creation_rate"
)

// Component is one part of an entity: a type and a name, nil for the
// type's default entity.
type Component struct {
	Type string
	Name *string
}

// Entity is a set of components, sorted by type.
type Entity []Component

// NewEntity checks components and sorts them: known types, each at most
// once, and ip never with another type (Kafka's rules).
func NewEntity(cs []Component) (Entity, error) {
	e := slices.Clone(Entity(cs))
	slices.SortFunc(e, func(a, b Component) int { return strings.Compare(a.Type, b.Type) })
	for i, c := range e {
		switch c.Type {
		case User, ClientID, IP:
		default:
			return nil, fmt.Errorf("unknown entity type %q", c.Type)
		}
		if i > 0 && e[i-1].Type == c.Type {
			return nil, fmt.Errorf("entity type %q given twice", c.Type)
		}
	}
	if len(e) == 0 {
		return nil, fmt.Errorf("an entity needs at least one component")
	}
	if len(e) > 1 && slices.ContainsFunc(e, func(c Component) bool { return c.Type == IP }) {
		return nil, fmt.Errorf("an ip entity cannot be combined with user or client-id")
	}
	return e, nil
}

// Key is the entity's canonical text: "client-id=\"a\",user" names client
// a of the default user.
func (e Entity) Key() string {
	parts := make([]string, len(e))
	for i, c := range e {
		parts[i] = c.Type
		if c.Name != nil {
			parts[i] += "=" + strconv.Quote(*c.Name)
		}
	}
	return strings.Join(parts, ",")
}

// ParseKey reads a Key back.
func ParseKey(key string) (Entity, error) {
	var e Entity
	for key != "" {
		i := strings.IndexAny(key, "=,")
		if i < 0 {
			e = append(e, Component{Type: key})
			break
		}
		c := Component{Type: key[:i]}
		if key[i] == ',' {
			e, key = append(e, c), key[i+1:]
			continue
		}
		q, err := strconv.QuotedPrefix(key[i+1:])
		if err != nil {
			return nil, fmt.Errorf("quota entity key %q: %w", key, err)
		}
		name, _ := strconv.Unquote(q)
		c.Name = &name
		e = append(e, c)
		key = strings.TrimPrefix(key[i+1+len(q):], ",")
	}
	return NewEntity(e)
}

// name is the entity's name for a type, and whether it has that type.
func (e Entity) name(typ string) (*string, bool) {
	for _, c := range e {
		if c.Type == typ {
			return c.Name, true
		}
	}
	return nil, false
}

// validKey reports whether a quota key applies to the entity.
func (e Entity) validKey(key string) bool {
	if _, ip := e.name(IP); ip {
		return key == ConnectionCreationRate
	}
	switch key {
	case ProducerByteRate, ConsumerByteRate, RequestPercentage, ControllerMutationRate:
		return true
	}
	return false
}
