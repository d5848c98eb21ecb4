package quota

import (
	"strings"
	"testing"
)

func s(v string) *string { return &v }

// TestEntityKey: keys are canonical and read back; bad entities are refused.
func TestEntityKey(t *testing.T) {
	e, err := NewEntity([]Component{{User, s(`a,"b`)}, {ClientID, nil}})
	if err != nil {
		t.Fatal(err)
	}
	if k := e.Key(); k != `client-id,user="a,\"b"` {
		t.Errorf("key %s", k)
	}
	back, err := ParseKey(e.Key())
	if err != nil || back.Key() != e.Key() {
		t.Errorf("ParseKey(%s) = %v, %v", e.Key(), back, err)
	}
	for _, bad := range [][]Component{nil, {{"group", nil}}, {{User, nil}, {User, s("x")}}, {{IP, nil}, {ClientID, nil}}} {
		if _, err := NewEntity(bad); err == nil {
			t.Errorf("NewEntity(%v) accepted", bad)
		}
	}
}

// TestCheck: keys that apply to the entity, positive whole rates.
func TestCheck(t *testing.T) {
	client := Entity{{ClientID, s("c")}}
	ip := Entity{{IP, nil}}
	for _, c := range []struct {
		e  Entity
		op Op
		ok bool
	}{
		{client, Op{Key: ProducerByteRate, Value: 1000}, true},
		{client, Op{Key: RequestPercentage, Value: 12.5}, true},
		{client, Op{Key: ProducerByteRate, Value: 12.5}, false},
		{client, Op{Key: ProducerByteRate, Value: 0}, false},
		{client, Op{Key: ConnectionCreationRate, Value: 1}, false},
		{client, Op{Key: "nope", Remove: true}, false},
		{client, Op{Key: ConsumerByteRate, Remove: true}, true},
		{ip, Op{Key: ConnectionCreationRate, Value: 3}, true},
		{ip, Op{Key: ProducerByteRate, Value: 3}, false},
	} {
		if err := Check(c.e, []Op{c.op}); (err == nil) != c.ok {
			t.Errorf("Check(%s, %+v) = %v, want ok %v", c.e.Key(), c.op, err, c.ok)
		}
	}
}

// TestDescribeAndResolve: filters as KIP-546 defines them, and Kafka's
// order of precedence with a meter per client for default quotas.
func TestDescribeAndResolve(t *testing.T) {
	q := Quotas{}
	for _, e := range []Entity{
		{{ClientID, s("a")}}, {{ClientID, nil}}, {{ClientID, s("a")}, {User, s("ANONYMOUS")}}, {{User, nil}},
	} {
		q.Apply(e.Key(), []Op{{Key: ProducerByteRate, Value: float64(len(e.Key()))}})
	}
	keys := func(es []Entity) string {
		var out []string
		for _, e := range es {
			out = append(out, e.Key())
		}
		return strings.Join(out, " ")
	}
	for _, c := range []struct {
		filters []Filter
		strict  bool
		want    string
	}{
		{nil, false, `client-id client-id="a" client-id="a",user="ANONYMOUS" user`},
		{nil, true, ``},
		{[]Filter{{ClientID, MatchExact, s("a")}}, false, `client-id="a" client-id="a",user="ANONYMOUS"`},
		{[]Filter{{ClientID, MatchExact, s("a")}}, true, `client-id="a"`},
		{[]Filter{{ClientID, MatchDefault, nil}}, true, `client-id`},
		{[]Filter{{ClientID, MatchAny, nil}, {User, MatchAny, nil}}, true, `client-id="a",user="ANONYMOUS"`},
	} {
		if got := keys(q.Describe(c.filters, c.strict)); got != c.want {
			t.Errorf("Describe(%+v, strict %v) = %q, want %q", c.filters, c.strict, got, c.want)
		}
	}
	for _, c := range []struct{ user, client, want string }{
		{"ANONYMOUS", "a", `producer_byte_rate/client-id="a",user="ANONYMOUS"`},
		{"ANONYMOUS", "b", `producer_byte_rate/user="ANONYMOUS"`}, // default user beats client-id quotas
		{"bob", "a", `producer_byte_rate/user="bob"`},
	} {
		if _, meter, ok := q.Resolve(c.user, c.client, ProducerByteRate); !ok || meter != c.want {
			t.Errorf("Resolve(%s, %s) meter %q, want %q", c.user, c.client, meter, c.want)
		}
	}
	q.Apply(Entity{{User, nil}}.Key(), []Op{{Key: ProducerByteRate, Remove: true}})
	if _, ok := q[Entity{{User, nil}}.Key()]; ok {
		t.Errorf("an entity without values is kept")
	}
	if _, meter, _ := q.Resolve("ANONYMOUS", "b", ProducerByteRate); meter != `producer_byte_rate/client-id="b"` {
		t.Errorf("the default client-id quota meters %q, want one meter per client", meter)
	}
}

// TestMeter: Kafka's rate over at least ten windows, and its throttle
// time (bytes/quota - span), bounded by the whole span.
func TestMeter(t *testing.T) {
	var m Meter
	m.Record(0, 50_000)
	if r, span := m.Rate(0); r != 5000 || span != 10_000 {
		t.Errorf("rate %v over %d ms, want 5000/s over 10 s", r, span)
	}
	if ms := m.Throttle(0, 10_000); ms != 0 {
		t.Errorf("throttled %d ms under quota", ms)
	}
	m.Record(500, 70_000) // 120 kB in the first 10 s at 10 kB/s: 2 s over
	if ms := m.Throttle(500, 10_000); ms != 2000 {
		t.Errorf("throttle %d ms, want 2000", ms)
	}
	m.Unrecord(70_000)
	if ms := m.Throttle(500, 10_000); ms != 0 {
		t.Errorf("throttle %d ms after unrecording, want 0", ms)
	}
	m.Record(600, 10_000_000)
	if ms := m.Throttle(600, 1); ms != WindowMs*Samples {
		t.Errorf("throttle %d ms, want the bound %d", ms, WindowMs*Samples)
	}
	if m.Idle(600) || !m.Idle(600+WindowMs*Samples) {
		t.Errorf("idle wrong")
	}
}

func FuzzParseKey(f *testing.F) {
	f.Add(`client-id="a",user`)
	f.Add(`ip="1.2.3.4"`)
	f.Fuzz(func(t *testing.T, key string) {
		e, err := ParseKey(key)
		if err != nil {
			return
		}
		back, err := ParseKey(e.Key())
		if err != nil || back.Key() != e.Key() {
			t.Fatalf("%q: key %q reads back as %v, %v", key, e.Key(), back, err)
		}
	})
}
