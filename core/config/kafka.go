package config

import (
	_ "embed"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Kafka's whole set of broker and topic settings, as its generated
// documentation lists them (kafka_broker.tsv, kafka_topic.tsv). Gregor
// acts on the settings of defs.go; the others are kept: a client may set
// them where Kafka lets it (a properties file, AlterConfigs), they are
// validated by their Kafka type and bounds, stored, and reported by
// DescribeConfigs, but nothing in Gregor reads them. A Kafka tool that
// alters sasl.kerberos.min.time.before.relogin therefore succeeds, as it
// does against Kafka, instead of being told the setting does not exist.

//go:embed kafka_broker.tsv
var kafkaBrokerTSV string

//go:embed kafka_topic.tsv
var kafkaTopicTSV string

// keptDoc is the documentation of a kept setting.
const keptDoc = "A Kafka setting Gregor accepts, validates and reports, but does not act on."

var kafkaTypes = map[string]Type{"boolean": Bool, "string": String, "int": Int, "short": Short,
	"long": Long, "double": Double, "list": List, "class": Class, "password": Password}

// withKafka returns own followed by the settings of tsv that own does not
// define, in name order. topic says tsv's last column is a topic
// setting's broker synonym rather than a broker setting's update mode.
func withKafka(own []Def, tsv string, topic bool) []Def {
	have := map[string]bool{}
	for _, d := range own {
		have[d.Name] = true
	}
	var kept []Def
	for _, line := range strings.Split(tsv, "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 5 || strings.HasPrefix(line, "#") || have[f[0]] {
			continue
		}
		kept = append(kept, kafkaDef(f, topic))
	}
	slices.SortFunc(kept, func(a, b Def) int { return strings.Compare(a.Name, b.Name) })
	return append(own, kept...)
}

// kafkaDef reads one line of Kafka's documentation: name, type, default,
// valid values, and the update mode or the broker synonym.
func kafkaDef(f []string, topic bool) Def {
	d := Def{Name: f[0], Type: kafkaTypes[f[1]], Doc: keptDoc, Kept: true, Topic: topic}
	if def := f[2]; def != "null" && def != `""` {
		// A number may carry its unit: "86400000 (1 day)".
		if n, unit, ok := strings.Cut(def, " ("); ok && strings.HasSuffix(unit, ")") {
			def = n
		}
		d.Default = def
	}
	d.Min, d.Max = typeBounds(d.Type)
	valid, open := strings.CutPrefix(f[3], "[")
	valid, closed := strings.CutSuffix(valid, "]")
	switch parts := strings.Split(valid, ","); {
	case !open || !closed || strings.ContainsAny(valid, "[]()"):
	case len(parts) >= 2 && parts[1] == "...": // [min,...] or [min,...,max]
		min, err := strconv.ParseInt(parts[0], 10, 64)
		if err != nil {
			break
		}
		d.Min = min
		if len(parts) == 3 {
			d.Max, _ = strconv.ParseInt(parts[2], 10, 64)
		}
	case d.Type == String || d.Type == List: // [a, b, c]
		d.Enum = strings.Split(valid, ", ")
	}
	if topic {
		if f[4] != "null" && f[4] != "" {
			d.Synonyms = []string{f[4]}
		}
	} else {
		d.ReadOnly = f[4] == "read-only"
		d.PerBroker = f[4] == "per-broker"
	}
	return d
}

// typeBounds are the values a numeric type can hold.
func typeBounds(t Type) (int64, int64) {
	switch t {
	case Int:
		return math.MinInt32, math.MaxInt32
	case Short:
		return math.MinInt16, math.MaxInt16
	case Long, Double:
		return math.MinInt64, math.MaxInt64
	}
	return 0, 0
}
