package live

import (
	"reflect"
	"time"

	"github.com/gregor-kafka/gregor/core/view"
)

// Direction says whether an Event is a client's request or the broker's
// response to it.
type Direction string

const (
	Request  Direction = "request"
	Response Direction = "response"
	// State is no message: the broker's state (Event.State) for the
	// watchers that draw it (Hub.WantsState). Every filter selects it;
	// the socket does not send it as an event, it feeds the view.
	State Direction = "state"
)

// Event is one request or response the broker handled for a real client.
// Conn and Corr pair a response with its request: Kafka answers on the
// same connection with the request's correlation id.
type Event struct {
	Time    time.Time `json:"time"`
	Conn    uint64    `json:"conn"`
	Client  string    `json:"client"` // the request header's client.id
	Remote  string    `json:"remote"` // the client's address
	Dir     Direction `json:"dir"`
	Key     int16     `json:"key"`
	API     string    `json:"api"`
	Version int16     `json:"version"`
	Corr    int32     `json:"corr"`
	// Text is describe.Message's one line for Msg, as in the lessons.
	Text string `json:"text"`
	// Topics are the topics Msg names, by name (an id is resolved by the
	// publisher), for the watcher's topic filter.
	Topics []string `json:"topics,omitempty"`
	// Msg is the message itself, for views that draw it; it is not sent
	// to watchers, and nobody may modify it.
	Msg any `json:"-"` // a kmsg.Request or kmsg.Response
	// State is the broker's state in a State event, and Node the
	// broker's node.id; nobody may modify State.
	State *Sample `json:"-"`
	Node  int32   `json:"-"`
}

// Sample is what the broker holds, as the lessons' state panel draws it:
// its partitions (view.Summary), and the consumer groups and
// transactional ids its coordinators hold (view.Coordinated).
type Sample struct {
	Partitions []view.Partition
	Groups     []view.Group
	Txns       []view.Txn
}

// topicField and idField are the kmsg field names that name a topic.
const (
	topicField = "Topic"
	idField    = "TopicID"
	// maxDepth bounds the walk: kmsg nests topics at most three levels
	// down (request, topic, partition).
	maxDepth = 4
)

// Topics lists the distinct topics a kmsg message names, in the order it
// names them. A topic given only by its id (Fetch v13+, KIP-516) is named
// by byID, or left out when byID does not know it.
func Topics(msg any, byID func([16]byte) string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(name string) {
		if name != "" && !seen[name] {
			seen[name] = true
			out = append(out, name)
		}
	}
	var walk func(v reflect.Value, depth int)
	walk = func(v reflect.Value, depth int) {
		if depth > maxDepth {
			return
		}
		switch v.Kind() {
		case reflect.Pointer:
			if !v.IsNil() {
				walk(v.Elem(), depth)
			}
		case reflect.Slice:
			if v.Type().Elem().Kind() == reflect.Uint8 {
				return // bytes (records, metadata): no topics inside
			}
			for i := range v.Len() {
				walk(v.Index(i), depth+1)
			}
		case reflect.Struct:
			name := ""
			if f := v.FieldByName(topicField); f.IsValid() {
				name = stringOf(f)
			}
			if f := v.FieldByName(idField); name == "" && f.IsValid() && byID != nil {
				if id, ok := f.Interface().([16]byte); ok && id != ([16]byte{}) {
					name = byID(id)
				}
			}
			add(name)
			for i := range v.NumField() {
				if f := v.Field(i); f.Kind() == reflect.Slice || f.Kind() == reflect.Pointer {
					walk(f, depth+1)
				}
			}
		}
	}
	walk(reflect.ValueOf(msg), 0)
	return out
}

// Named is msg with the topics it gives by id only (Produce v13, Fetch
// v13+: KIP-516) named by byID, so that describe.Message and the cards
// read "orders-0" where the message itself says only "-0". When a topic
// needs a name, it returns a copy of the message with a copy of its
// Topics; otherwise msg itself. It never modifies msg, which the broker
// and the other watchers share.
func Named(msg any, byID func([16]byte) string) any {
	v := reflect.ValueOf(msg)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct || byID == nil {
		return msg
	}
	ts := v.Elem().FieldByName("Topics")
	if !ts.IsValid() || ts.Kind() != reflect.Slice || ts.Type().Elem().Kind() != reflect.Struct {
		return msg
	}
	var named reflect.Value // the copy of Topics, once a topic needs a name
	for i := range ts.Len() {
		name, id := ts.Index(i).FieldByName(topicField), ts.Index(i).FieldByName(idField)
		if name.Kind() != reflect.String || name.String() != "" || !id.IsValid() {
			continue
		}
		tid, ok := id.Interface().([16]byte)
		if !ok || tid == ([16]byte{}) {
			continue
		}
		if n := byID(tid); n != "" {
			if !named.IsValid() {
				named = reflect.MakeSlice(ts.Type(), ts.Len(), ts.Len())
				reflect.Copy(named, ts)
			}
			named.Index(i).FieldByName(topicField).SetString(n)
		}
	}
	if !named.IsValid() {
		return msg
	}
	cp := reflect.New(v.Elem().Type())
	cp.Elem().Set(v.Elem())
	cp.Elem().FieldByName("Topics").Set(named)
	return cp.Interface()
}

// stringOf reads a string or *string field.
func stringOf(f reflect.Value) string {
	switch {
	case f.Kind() == reflect.String:
		return f.String()
	case f.Kind() == reflect.Pointer && !f.IsNil() && f.Elem().Kind() == reflect.String:
		return f.Elem().String()
	}
	return ""
}
