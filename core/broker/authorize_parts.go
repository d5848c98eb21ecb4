package broker

import (
	"reflect"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Answering a request per part (authorize.go): one mechanism, split, and
// for each API a small adapter that says how a refused part (a topic, a
// group, a transactional id, a config resource) is answered. The refused
// parts never reach the handler; the trim adds them to its answer, after
// the allowed ones, as Kafka's KafkaApis merges its "unauthorized" map
// into the response.

// refuser names the error of a part (a request's list element) the
// principal may not use, nil to let the handler have it.
type refuser func(part any) *kerr.Error

// adder puts a refused part, answered with its error, into an answer.
type adder func(resp kmsg.Response, part any, e *kerr.Error)

// split keeps in the request's list *ps (a pointer to a slice) the parts
// refuse lets through (the slice stays non-nil: an empty list is not
// "all") and returns a trim adding the others to an answer, nil when none
// is refused, with how many parts were kept. One body serves every list
// (reflection, not a generic instantiated per part type).
func split(ps any, refuse refuser, add adder) (trim func(kmsg.Response), kept int) {
	list := reflect.ValueOf(ps).Elem()
	var out []any
	var errs []*kerr.Error
	keep := list.Slice(0, 0) // in place: each kept part is written behind the reads
	for i := range list.Len() {
		p := list.Index(i)
		if e := refuse(p.Interface()); e != nil {
			out, errs = append(out, p.Interface()), append(errs, e)
		} else {
			keep = reflect.Append(keep, p)
		}
	}
	if len(out) == 0 {
		return nil, keep.Len()
	}
	list.Set(keep)
	return func(resp kmsg.Response) {
		for i, p := range out {
			add(resp, p, errs[i])
		}
	}, keep.Len()
}

// partial answers r per part: with no part left for the handler, the
// answer is the refused parts alone (Kafka skips the handler's work when
// nothing is authorized); else the handler runs and trim completes it.
func partial(r *Request, ps any, refuse refuser, add adder) (deny kmsg.Response, trim func(kmsg.Response)) {
	trim, kept := split(ps, refuse, add)
	if trim != nil && kept == 0 {
		return answered(r, trim), nil
	}
	return nil, trim
}

// answered is r's empty answer completed by trim.
func answered(r *Request, trim func(kmsg.Response)) kmsg.Response {
	resp := r.Msg.ResponseKind()
	resp.SetVersion(r.Msg.GetVersion())
	trim(resp)
	return resp
}

// both runs the trims that are set, in order.
func both(trims ...func(kmsg.Response)) func(kmsg.Response) {
	var set []func(kmsg.Response)
	for _, t := range trims {
		if t != nil {
			set = append(set, t)
		}
	}
	if len(set) == 0 {
		return nil
	}
	return func(resp kmsg.Response) {
		for _, t := range set {
			t(resp)
		}
	}
}

// field is a part's field name (a name, a *string dereferenced; "" if
// it has none), or the part itself when it is a string.
func field(part any, name string) string {
	v := reflect.ValueOf(part)
	if v.Kind() == reflect.String {
		return v.String()
	}
	f := v.FieldByName(name)
	if !f.IsValid() {
		return "" // a part named by id only
	}
	if f.Kind() == reflect.Pointer {
		if f.IsNil() {
			return ""
		}
		f = f.Elem()
	}
	return f.String()
}

// topicRefusal refuses a topic, given by name or id, that the principal
// may not op. A topic id no topic has is let through, for the handler to
// answer UNKNOWN_TOPIC_ID: Kafka resolves ids before it authorizes.
func (b *Broker) topicRefusal(r *Request, op kmsg.ACLOperation, name string, id [16]byte) *kerr.Error {
	n := b.nameOf(name, id)
	if n == "" && name == "" && id != ([16]byte{}) {
		return nil
	}
	if b.may(r, check{kmsg.ACLResourceTypeTopic, n, op}) {
		return nil
	}
	return kerr.TopicAuthorizationFailed
}

// topicParts refuses parts naming a topic (their Topic, and TopicID where
// they have one; or a topic name) the principal may not op.
func (b *Broker) topicParts(r *Request, op kmsg.ACLOperation) refuser {
	return func(part any) *kerr.Error {
		var id [16]byte
		if v := reflect.ValueOf(part); v.Kind() == reflect.Struct {
			if f := v.FieldByName("TopicID"); f.IsValid() {
				id = f.Interface().([16]byte)
			}
		}
		return b.topicRefusal(r, op, field(part, "Topic"), id)
	}
}

// ofResource refuses with e the parts naming (in their Group or GroupID,
// or as a string) a resource of rtype the principal may not op.
func (b *Broker) ofResource(r *Request, rtype kmsg.ACLResourceType, op kmsg.ACLOperation, e *kerr.Error) refuser {
	return func(part any) *kerr.Error {
		if b.may(r, check{rtype, partGroup(part), op}) {
			return nil
		}
		return e
	}
}

// configs refuses config resources (their ResourceType and ResourceName)
// the principal may not op.
func (b *Broker) configs(r *Request, op kmsg.ACLOperation) refuser {
	return func(part any) *kerr.Error {
		typ := kmsg.ConfigResourceType(reflect.ValueOf(part).FieldByName("ResourceType").Int())
		return b.configCheck(r, typ, field(part, "ResourceName"), op)
	}
}

// The adders of answers listing topics, groups and config resources:
// functions, not addPart's closures in variables, so that a build that
// calls no rule (authorize_js.go) links none of the reflection below.
func addTopics(resp kmsg.Response, part any, e *kerr.Error) {
	appendPart(resp, "Topics", "", "", part, e)
}

func addGroups(resp kmsg.Response, part any, e *kerr.Error) {
	appendPart(resp, "Groups", "Group", "", part, e)
}

func addResources(resp kmsg.Response, part any, e *kerr.Error) {
	appendPart(resp, "Resources", "", "", part, e)
}

// naming are the fields that say which part an answer's item is about.
var naming = []string{"Topic", "TopicID", "Partition", "Group", "GroupID", "ResourceType", "ResourceName"}

// addPart answers a refused part in the answer's list field: a new item
// (kmsg's defaults) named as the part (its naming fields copied; a string
// part stored in key), with the part's error and msg, if any, as
// ErrorMessage; the part's partitions each answered alike, with -1 in
// every int64 field (Kafka's unknown offset, watermark and timestamp). An
// answer failed whole (a top-level error code) gets no part, as Kafka's
// getErrorResponse lists none.
func addPart(list, key, msg string) adder {
	return func(resp kmsg.Response, part any, e *kerr.Error) { appendPart(resp, list, key, msg, part, e) }
}

// appendPart is addPart on any answer or item of one (a pointer).
func appendPart(to any, list, key, msg string, part any, e *kerr.Error) {
	v := reflect.ValueOf(to).Elem()
	if ec := v.FieldByName("ErrorCode"); ec.IsValid() && ec.Int() != 0 {
		return
	}
	l := v.FieldByName(list)
	l.Set(reflect.Append(l, answerItem(l.Type().Elem(), reflect.ValueOf(part), key, msg, e.Code, false)))
}

// answerItem builds an answer's item of type typ for a request's part.
func answerItem(typ reflect.Type, part reflect.Value, key, msg string, code int16, partition bool) reflect.Value {
	ptr := reflect.New(typ)
	if d, ok := ptr.Interface().(interface{ Default() }); ok {
		d.Default()
	}
	v := ptr.Elem()
	set := func(name string, from reflect.Value) {
		switch f := v.FieldByName(name); {
		case !f.IsValid():
		case f.Type() == from.Type():
			f.Set(from)
		case f.Kind() == reflect.Pointer && f.Type().Elem() == from.Type(): // a nullable name
			p := reflect.New(from.Type())
			p.Elem().Set(from)
			f.Set(p)
		}
	}
	if part.Kind() == reflect.Struct {
		for _, name := range naming {
			if from := part.FieldByName(name); from.IsValid() {
				set(name, from)
			}
		}
	} else {
		set(key, part)
	}
	if f := v.FieldByName("ErrorCode"); f.IsValid() { // a topic's error is its partitions'
		f.SetInt(int64(code))
	}
	if msg != "" {
		set("ErrorMessage", reflect.ValueOf(msg))
	}
	for i := range v.NumField() {
		if partition && v.Field(i).Kind() == reflect.Int64 {
			v.Field(i).SetInt(-1)
		}
	}
	if part.Kind() == reflect.Struct {
		if ps, rs := part.FieldByName("Partitions"), v.FieldByName("Partitions"); ps.IsValid() && rs.IsValid() {
			for i := range ps.Len() {
				rs.Set(reflect.Append(rs, answerItem(rs.Type().Elem(), ps.Index(i), "Partition", "", code, true)))
			}
		}
	}
	return v
}

// addGroupTopic answers a refused topic of group, in its item of the
// answer's Groups (OffsetFetch v8+, DescribeShareGroupOffsets), unless
// the group failed.
func addGroupTopic(group string) adder {
	return func(resp kmsg.Response, t any, e *kerr.Error) {
		gs := reflect.ValueOf(resp).Elem().FieldByName("Groups")
		for i := range gs.Len() {
			if g := gs.Index(i); partGroup(g.Interface()) == group {
				appendPart(g.Addr().Interface(), "Topics", "", "", t, e)
				return
			}
		}
	}
}

// partGroup is a part's group id: its Group or GroupID field, or the part
// itself when it is a string.
func partGroup(part any) string {
	if v := reflect.ValueOf(part); v.Kind() == reflect.Struct && !v.FieldByName("Group").IsValid() {
		return field(part, "GroupID")
	}
	return field(part, "Group")
}

// addCoordinator answers a refused key with Kafka's Node.noNode.
func addCoordinator(resp kmsg.Response, key any, e *kerr.Error) {
	c := kmsg.NewFindCoordinatorResponseCoordinator()
	c.Key, c.NodeID, c.Port, c.ErrorCode = key.(string), -1, -1, e.Code
	fr := resp.(*kmsg.FindCoordinatorResponse)
	fr.Coordinators = append(fr.Coordinators, c)
}
