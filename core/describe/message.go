package describe

import (
	"encoding/base64"
	"fmt"
	"reflect"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/wire"
)

// Describe renders a request or response as one fixed, readable line: the
// API name, the fields that matter to a learner, and errors spelled as
// Kafka spells them (DUPLICATE_SEQUENCE_NUMBER), and the throttle time a
// quota imposed (KIP-219). Lessons and simulator traces print only
// through it, so the same message always reads the same.
func Message(msg any) string {
	s := message(msg)
	if ms := wire.Throttle(msg); ms > 0 {
		s += fmt.Sprintf(" throttle_time_ms=%d", ms)
	}
	return s
}

// message is the registered text of msg's kind (describes), else the
// generic line.
func message(msg any) string {
	if k, ok := kindOf(msg); ok {
		if text := texts[k]; text != nil {
			return text(msg)
		}
	}
	return describeGeneric(msg)
}

// kind names one kind of message: an API key, and whether it is the
// request or the response.
type kind struct {
	key      int16
	response bool
}

// texts holds the text of each kind of message that is not described
// generically; each API's file registers its own (describes).
var texts = map[kind]func(any) string{}

// describes registers text as how a learner reads every message of type
// M, a kmsg request or response; called from the API's file (produce.go:
// Produce, key 0).
func describes[M interface{ Key() int16 }](text func(M) string) {
	var m M
	k, _ := kindOf(m)
	texts[k] = func(msg any) string { return text(msg.(M)) }
}

// kindOf is msg's kind, for a kmsg request or response.
func kindOf(msg any) (kind, bool) {
	km, ok := msg.(interface{ Key() int16 })
	if !ok {
		return kind{}, false
	}
	_, req := msg.(kmsg.Request)
	return kind{km.Key(), !req}, true
}

// renamed lists the codes whose name in kerr is one Kafka has retired.
var renamed = map[int16]string{
	6: "NOT_LEADER_OR_FOLLOWER", // KIP-392 (Kafka 2.4)
}

// ErrorName spells a Kafka error code as Kafka does today.
func ErrorName(code int16) string {
	if code == 0 {
		return "NONE"
	}
	if name, ok := renamed[code]; ok {
		return name
	}
	if e := kerr.ErrorForCode(code); e != nil {
		if ke, ok := e.(*kerr.Error); ok {
			return ke.Message
		}
	}
	return fmt.Sprintf("ERROR_%d", code)
}

// ids renders broker ids as [0 1 2].
func ids(s []int32) string {
	out := make([]string, len(s))
	for i, id := range s {
		out[i] = fmt.Sprint(id)
	}
	return "[" + strings.Join(out, " ") + "]"
}

func errField(code int16) string {
	if code == 0 {
		return ""
	}
	return " error=" + ErrorName(code)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// describeGeneric names the API and lists the error codes found in the
// message's top level and first nesting, in field order.
func describeGeneric(msg any) string {
	v := reflect.ValueOf(msg)
	name := fmt.Sprintf("%T", msg)
	if r, ok := msg.(interface{ Key() int16 }); ok {
		name = kmsg.NameForKey(r.Key())
	}
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return name
	}
	var errs []string
	collectErrors(v.Elem(), 2, &errs)
	if len(errs) == 0 {
		return name
	}
	return name + " error=" + strings.Join(errs, ",")
}

func collectErrors(v reflect.Value, depth int, errs *[]string) {
	if v.Kind() != reflect.Struct {
		return
	}
	if f := v.FieldByName("ErrorCode"); f.IsValid() && f.Kind() == reflect.Int16 && f.Int() != 0 {
		*errs = append(*errs, ErrorName(int16(f.Int())))
	}
	if depth == 0 {
		return
	}
	for i := range v.NumField() {
		if f := v.Field(i); f.Kind() == reflect.Slice && f.Type().Elem().Kind() == reflect.Struct {
			for j := range f.Len() {
				collectErrors(f.Index(j), depth-1, errs)
			}
		}
	}
}

// topicOrID names a topic given by name or, when the name is null, by id
// (as Kafka prints a Uuid).
func topicOrID(name *string, id [16]byte) string {
	if name != nil {
		return *name
	}
	return "id=" + base64.RawURLEncoding.EncodeToString(id[:])
}
