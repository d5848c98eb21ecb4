package config

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Source says where a value came from, numbered as DescribeConfigs reports it.
type Source int8

const (
	DynamicTopic         Source = 1
	DynamicBroker        Source = 2
	DynamicDefaultBroker Source = 3
	StaticBroker         Source = 4
	Default              Source = 5
)

// Sentinel errors.
var (
	ErrUnknown = errors.New("unknown config")
	ErrInvalid = errors.New("invalid config value")
)

// invalid is a value a setting refuses, worded as Kafka's ConfigDef words
// it ("Invalid value x for configuration y: why"); it is ErrInvalid.
type invalid struct{ msg string }

func (e invalid) Error() string        { return e.msg }
func (e invalid) Is(target error) bool { return target == ErrInvalid }

// kafkaTypeName is a numeric type's name in Kafka's "Not a number of
// type" message.
var kafkaTypeName = map[Type]string{Int: "INT", Short: "SHORT", Long: "LONG", Double: "DOUBLE"}

// Check validates v against the setting's type, bounds and allowed values.
func (d *Def) Check(v string) error {
	bad := func(why string) error {
		return invalid{fmt.Sprintf("Invalid value %s for configuration %s: %s", v, d.Name, why)}
	}
	switch d.Type {
	case Bool:
		if v != "true" && v != "false" {
			return bad("Expected value to be either true or false")
		}
	case Int, Short, Long:
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if lo, hi := typeBounds(d.Type); err != nil || n < lo || n > hi {
			return bad("Not a number of type " + kafkaTypeName[d.Type])
		}
		if n < d.Min {
			return bad(fmt.Sprintf("Value must be at least %d", d.Min))
		}
		if n > d.Max {
			return bad(fmt.Sprintf("Value must be no more than %d", d.Max))
		}
	case Double:
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil {
			return bad("Not a number of type DOUBLE")
		}
		if d.Min != math.MinInt64 && f < float64(d.Min) {
			return bad(fmt.Sprintf("Value must be at least %d", d.Min))
		}
		if d.Max != math.MaxInt64 && f > float64(d.Max) {
			return bad(fmt.Sprintf("Value must be no more than %d", d.Max))
		}
	}
	if d.parse != nil {
		if err := d.parse(v); err != nil {
			return invalid{fmt.Sprintf("Invalid value `%s` for configuration %s. %v", v, d.Name, err)}
		}
	}
	if len(d.Enum) > 0 {
		for _, part := range strings.Split(v, ",") {
			part = strings.TrimSpace(part)
			if part == "" && d.Kept {
				continue // Kafka's lists may be empty
			}
			if !slices.Contains(d.Enum, part) {
				return bad("String must be one of: " + strings.Join(d.Enum, ", "))
			}
		}
	}
	return nil
}

// Synonym is one place a value could come from, highest precedence first.
type Synonym struct {
	Name   string
	Value  string
	Source Source
}

// Broker holds the broker's settings: static ones from flags or a properties
// file, dynamic ones set at run time with IncrementalAlterConfigs (KIP-339).
type Broker struct {
	Static  map[string]string
	Dynamic map[string]string
}

// NewBroker returns settings with no values set.
func NewBroker() *Broker {
	return &Broker{Static: map[string]string{}, Dynamic: map[string]string{}}
}

// SetStatic checks and sets a static broker setting. Topic-level names
// (retention.ms) are accepted as aliases of their first broker synonym.
func (b *Broker) SetStatic(name, value string) error {
	if td, ok := TopicDef(name); ok && len(td.Synonyms) > 0 {
		if _, isBroker := BrokerDef(name); !isBroker {
			name = td.Synonyms[0]
		}
	}
	d, ok := BrokerDef(name)
	if !ok {
		return fmt.Errorf("%w: %s", ErrUnknown, name)
	}
	if err := d.Check(value); err != nil {
		return err
	}
	b.Static[name] = value
	return nil
}

// lookup resolves one broker setting without falling back to its default.
func (b *Broker) lookup(name string) (string, Source, bool) {
	if v, ok := b.Dynamic[name]; ok {
		return v, DynamicDefaultBroker, true
	}
	if v, ok := b.Static[name]; ok {
		return v, StaticBroker, true
	}
	return "", Default, false
}

// Value resolves a broker setting: dynamic, then static, then default.
func (b *Broker) Value(name string) (string, Source) {
	if v, src, ok := b.lookup(name); ok {
		return v, src
	}
	if d, ok := BrokerDef(name); ok {
		return d.Default, Default
	}
	return "", Default
}

// Int64 resolves a numeric broker setting; an unset one is 0.
func (b *Broker) Int64(name string) int64 {
	v, _ := b.Value(name)
	n, _ := strconv.ParseInt(v, 10, 64)
	return n
}

// Bool resolves a boolean broker setting.
func (b *Broker) Bool(name string) bool {
	v, _ := b.Value(name)
	return v == "true"
}

// Topic resolves a topic setting for a topic with the given overrides, and
// returns the chain of synonyms that could have supplied it.
func (b *Broker) Topic(overrides map[string]string, name string) (string, Source, []Synonym) {
	return b.resolve(TopicDef, DynamicTopic, overrides, name)
}

// resolve resolves a setting that a resource may override (own is the
// source of its overrides): the override, then the broker synonyms that
// are set, then the default; the first is the value, all are synonyms.
func (b *Broker) resolve(lookup func(string) (*Def, bool), own Source, overrides map[string]string, name string) (string, Source, []Synonym) {
	d, ok := lookup(name)
	if !ok {
		return "", Default, nil
	}
	var syns []Synonym
	if v, ok := overrides[name]; ok {
		syns = append(syns, Synonym{name, v, own})
	}
	for _, s := range d.Synonyms {
		if v, src, ok := b.lookup(s); ok {
			if f := d.scale[s]; f != 0 {
				if n, err := strconv.ParseInt(v, 10, 64); err == nil && n > 0 {
					v = strconv.FormatInt(n*f, 10)
				}
			}
			syns = append(syns, Synonym{s, v, src})
		}
	}
	syns = append(syns, Synonym{name, d.Default, Default})
	return syns[0].Value, syns[0].Source, syns
}

// TopicInt64 resolves a numeric topic setting.
func (b *Broker) TopicInt64(overrides map[string]string, name string) int64 {
	v, _, _ := b.Topic(overrides, name)
	n, _ := strconv.ParseInt(v, 10, 64)
	return n
}

// TopicFloat64 resolves a fractional topic setting.
func (b *Broker) TopicFloat64(overrides map[string]string, name string) float64 {
	v, _, _ := b.Topic(overrides, name)
	f, _ := strconv.ParseFloat(v, 64)
	return f
}

// CheckTopic validates a topic override.
func CheckTopic(name, value string) error {
	d, ok := TopicDef(name)
	if !ok {
		return fmt.Errorf("%w: %s", ErrUnknown, name)
	}
	return d.Check(value)
}

// ParseProperties reads a Java-style properties file: key=value or
// key: value lines, '#' and '!' comments, surrounding blanks trimmed; a
// line ending in an odd number of backslashes continues on the next one,
// whose leading blanks are dropped (a JAAS line is often so split).
func ParseProperties(text string) (map[string]string, error) {
	out := map[string]string{}
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		n, line := i, strings.TrimSpace(lines[i])
		if line == "" || line[0] == '#' || line[0] == '!' {
			continue
		}
		for (len(line)-len(strings.TrimRight(line, "\\")))%2 == 1 && i+1 < len(lines) {
			i++
			line = line[:len(line)-1] + strings.TrimSpace(lines[i])
		}
		k, v, ok := strings.Cut(line, "=")
		if j := strings.IndexByte(line, ':'); !ok || (j >= 0 && j < len(k)) {
			k, v, ok = strings.Cut(line, ":")
		}
		if !ok {
			return nil, fmt.Errorf("line %d: %q is not key=value", n+1, line)
		}
		out[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	return out, nil
}
