package broker

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/record"
)

// alterGroup sets (value non-nil) or deletes group configs of group g.
func alterGroup(h *harness, g string, kv ...*string) *kmsg.IncrementalAlterConfigsResponseResource {
	req := kmsg.NewPtrIncrementalAlterConfigsRequest()
	rr := kmsg.NewIncrementalAlterConfigsRequestResource()
	rr.ResourceType, rr.ResourceName = kmsg.ConfigResourceTypeGroupConfig, g
	for i := 0; i+1 < len(kv); i += 2 {
		c := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
		c.Name, c.Value, c.Op = *kv[i], kv[i+1], kmsg.IncrementalAlterConfigOpSet
		if kv[i+1] == nil {
			c.Op = kmsg.IncrementalAlterConfigOpDelete
		}
		rr.Configs = append(rr.Configs, c)
	}
	req.Resources = append(req.Resources, rr)
	return &call[*kmsg.IncrementalAlterConfigsResponse](h, req).Resources[0]
}

func describeGroup(h *harness, g string) map[string]kmsg.DescribeConfigsResponseResourceConfig {
	req := kmsg.NewPtrDescribeConfigsRequest()
	req.IncludeSynonyms = true
	rr := kmsg.NewDescribeConfigsRequestResource()
	rr.ResourceType, rr.ResourceName = kmsg.ConfigResourceTypeGroupConfig, g
	req.Resources = append(req.Resources, rr)
	res := call[*kmsg.DescribeConfigsResponse](h, req).Resources[0]
	if res.ErrorCode != 0 {
		h.t.Fatalf("describe group %s: %v", g, kerr.ErrorForCode(res.ErrorCode))
	}
	out := map[string]kmsg.DescribeConfigsResponseResourceConfig{}
	for _, c := range res.Configs {
		out[c.Name] = c
	}
	return out
}

var s = kmsg.StringPtr

// Group configs are checked as Kafka's GroupConfig checks them: unknown
// names, bad values, the broker's min/max bounds, and a session timeout
// above the heartbeat interval, all INVALID_CONFIG with Kafka's message.
func TestGroupConfigValidation(t *testing.T) {
	h := newHarness(t, nil)
	for _, c := range []struct {
		kv   []*string
		code int16
		msg  string
	}{
		{[]*string{s("no.such"), s("1")}, kerr.InvalidConfig.Code, "Unknown group config name: no.such"},
		{[]*string{s("share.auto.offset.reset"), s("oldest")}, kerr.InvalidConfig.Code, ""},
		{[]*string{s("share.record.lock.duration.ms"), s("14999")}, kerr.InvalidConfig.Code, "share.record.lock.duration.ms must be greater than or equal to group.share.min.record.lock.duration.ms"},
		{[]*string{s("share.record.lock.duration.ms"), s("60001")}, kerr.InvalidConfig.Code, "share.record.lock.duration.ms must be less than or equal to group.share.max.record.lock.duration.ms"},
		{[]*string{s("consumer.heartbeat.interval.ms"), s("16000")}, kerr.InvalidConfig.Code, "consumer.heartbeat.interval.ms must be less than or equal to group.consumer.max.heartbeat.interval.ms"},
		{[]*string{s("consumer.session.timeout.ms"), s("30000")}, kerr.InvalidConfig.Code, "consumer.session.timeout.ms must be greater than or equal to group.consumer.min.session.timeout.ms"},
		{[]*string{s("share.session.timeout.ms"), s("50000"), s("share.heartbeat.interval.ms"), s("15000")}, 0, ""},
		{[]*string{s("share.auto.offset.reset"), s("earliest")}, 0, ""},
	} {
		res := alterGroup(h, "g", c.kv...)
		if res.ErrorCode != c.code || c.msg != "" && (res.ErrorMessage == nil || *res.ErrorMessage != c.msg) {
			t.Errorf("%s=%s: %v %v, want %v %q", *c.kv[0], *c.kv[1], kerr.ErrorForCode(res.ErrorCode), res.ErrorMessage, kerr.ErrorForCode(c.code), c.msg)
		}
	}
	if res := alterGroup(h, "", s("share.auto.offset.reset"), s("earliest")); res.ErrorCode != kerr.InvalidRequest.Code {
		t.Errorf("empty group name: %v", kerr.ErrorForCode(res.ErrorCode))
	}
	// The legacy AlterConfigs serves topics and brokers only, as Kafka's.
	legacy := kmsg.NewPtrAlterConfigsRequest()
	legacy.Resources = []kmsg.AlterConfigsRequestResource{{ResourceType: kmsg.ConfigResourceTypeGroupConfig, ResourceName: "g",
		Configs: []kmsg.AlterConfigsRequestResourceConfig{{Name: "share.auto.offset.reset", Value: s("latest")}}}}
	if res := call[*kmsg.AlterConfigsResponse](h, legacy).Resources[0]; res.ErrorCode != kerr.InvalidRequest.Code || *res.ErrorMessage != "Unknown resource type 32" {
		t.Errorf("legacy AlterConfigs of a group: %v %v", kerr.ErrorForCode(res.ErrorCode), res.ErrorMessage)
	}
	// Only the accepted changes are kept, and the precedence is Kafka's:
	// the group's value, then the broker's, then the default.
	d := describeGroup(h, "g")
	if c := d["share.auto.offset.reset"]; *c.Value != "earliest" || c.Source != 8 || len(c.ConfigSynonyms) != 2 || c.ConfigSynonyms[1].Source != kmsg.ConfigSourceDefaultConfig {
		t.Errorf("share.auto.offset.reset: %+v", c)
	}
	if c := d["share.record.lock.duration.ms"]; *c.Value != "30000" || c.Source != kmsg.ConfigSourceDefaultConfig {
		t.Errorf("share.record.lock.duration.ms: %+v", c)
	}
	if c := d["share.heartbeat.interval.ms"]; *c.Value != "15000" || c.Source != 8 {
		t.Errorf("share.heartbeat.interval.ms: %+v", c)
	}
	if len(d) != 7 {
		t.Errorf("described %d group configs, want 7", len(d))
	}
	// The session must stay above the heartbeat once both are merged.
	if res := alterGroup(h, "g", s("share.session.timeout.ms"), s("45000"), s("share.heartbeat.interval.ms"), s("15000")); res.ErrorCode != 0 {
		t.Errorf("45000 > 15000 refused: %v", res.ErrorMessage)
	}
	h2 := newHarness(t, map[string]string{"group.share.heartbeat.interval.ms": "50000"})
	if res := alterGroup(h2, "g", s("share.session.timeout.ms"), s("46000")); res.ErrorCode != kerr.InvalidConfig.Code ||
		*res.ErrorMessage != "share.session.timeout.ms must be greater than share.heartbeat.interval.ms" {
		t.Errorf("session below the broker's heartbeat: %v %v", kerr.ErrorForCode(res.ErrorCode), res.ErrorMessage)
	}
}

// A group's share configs win over the broker's, apply from the next use,
// are deleted back to the broker's, and survive a restart.
func TestGroupConfigShare(t *testing.T) {
	h := newHarness(t, map[string]string{"group.share.heartbeat.interval.ms": "4000"})
	h.createTopic("t", 1, nil)
	id := h.b.topics["t"].ID
	call[*kmsg.ProduceResponse](h, produceReq("t", 0, 1, batchOf("a", "b")))

	if res := alterGroup(h, "sg", s("share.auto.offset.reset"), s("earliest"), s("share.record.lock.duration.ms"), s("20000"), s("share.heartbeat.interval.ms"), s("6000")); res.ErrorCode != 0 {
		t.Fatalf("alter: %v", res.ErrorMessage)
	}
	if hb := shareHeartbeat(h, "m1", 0, "t"); hb.ErrorCode != 0 || hb.HeartbeatIntervalMillis != 6000 {
		t.Fatalf("join: %+v", hb)
	}
	// earliest: the records produced before the group existed.
	r := call[*kmsg.ShareFetchResponse](h, shareFetchReq("m1", id, 0, 0))
	if a := acquired(r); len(a) != 1 || a[0].FirstOffset != 0 || a[0].LastOffset != 1 {
		t.Fatalf("fetch under earliest: %+v", a)
	}
	// The group's 20 s lock, not the broker's 30 s.
	h.now += 20_000
	h.b.Tick(h.now)
	if a := acquired(call[*kmsg.ShareFetchResponse](h, shareFetchReq("m1", id, 1, 0))); len(a) != 1 || a[0].DeliveryCount != 2 {
		t.Fatalf("redelivery after the group's lock: %+v", a)
	}

	// Deleting the group's heartbeat interval falls back to the broker's
	// at the next heartbeat.
	if res := alterGroup(h, "sg", s("share.heartbeat.interval.ms"), nil); res.ErrorCode != 0 {
		t.Fatalf("delete: %v", res.ErrorMessage)
	}
	if hb := shareHeartbeat(h, "m1", 1); hb.HeartbeatIntervalMillis != 4000 {
		t.Fatalf("heartbeat interval after delete: %d", hb.HeartbeatIntervalMillis)
	}

	if err := h.b.Close(); err != nil {
		t.Fatal(err)
	}
	h.open()
	d := describeGroup(h, "sg")
	if c := d["share.auto.offset.reset"]; *c.Value != "earliest" || c.Source != 8 {
		t.Errorf("after restart: %+v", c)
	}
	if c := d["share.heartbeat.interval.ms"]; *c.Value != "4000" || c.Source != kmsg.ConfigSourceStaticBrokerConfig {
		t.Errorf("deleted value after restart: %+v", c)
	}
}

// A KIP-848 consumer group's heartbeat interval is its own group config.
func TestGroupConfigConsumer(t *testing.T) {
	h := newHarness(t, nil)
	h.createTopic("t", 1, nil)
	hb := func() *kmsg.ConsumerGroupHeartbeatResponse {
		req := kmsg.NewPtrConsumerGroupHeartbeatRequest()
		req.Group, req.MemberID, req.MemberEpoch, req.RebalanceTimeoutMillis = "cg", "m", 0, 1000
		req.SubscribedTopicNames, req.Topics = []string{"t"}, []kmsg.ConsumerGroupHeartbeatRequestTopic{}
		return call[*kmsg.ConsumerGroupHeartbeatResponse](h, req)
	}
	if r := hb(); r.ErrorCode != 0 || r.HeartbeatIntervalMillis != 5000 {
		t.Fatalf("broker default: %+v", r)
	}
	if res := alterGroup(h, "cg", s("consumer.heartbeat.interval.ms"), s("7000")); res.ErrorCode != 0 {
		t.Fatalf("alter: %v", res.ErrorMessage)
	}
	if r := hb(); r.HeartbeatIntervalMillis != 7000 {
		t.Fatalf("group config: %+v", r)
	}
}

// share.auto.offset.reset=by_duration:PT30S (KIP-1106) starts a share
// partition at the first record at most 30 s old.
func TestGroupConfigShareByDuration(t *testing.T) {
	h := newHarness(t, nil)
	h.createTopic("t", 1, nil)
	id := h.b.topics["t"].ID
	at := func(ts int64, v string) []byte {
		bl := record.NewBuilder(record.NewBatchHeader(ts))
		bl.Add(nil, []byte(v), 0)
		return bl.Build()
	}
	call[*kmsg.ProduceResponse](h, produceReq("t", 0, 1, at(h.now-60_000, "old")))
	call[*kmsg.ProduceResponse](h, produceReq("t", 0, 1, at(h.now-20_000, "new")))
	if res := alterGroup(h, "sg", s("share.auto.offset.reset"), s("by_duration:PT30S")); res.ErrorCode != 0 {
		t.Fatalf("alter: %v", res.ErrorMessage)
	}
	if hb := shareHeartbeat(h, "m1", 0, "t"); hb.ErrorCode != 0 {
		t.Fatalf("join: %+v", hb)
	}
	if a := acquired(call[*kmsg.ShareFetchResponse](h, shareFetchReq("m1", id, 0, 0))); len(a) != 1 || a[0].FirstOffset != 1 || a[0].LastOffset != 1 {
		t.Fatalf("by_duration:PT30S acquired %+v, want offset 1 alone", a)
	}
}
