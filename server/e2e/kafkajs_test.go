package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// groupsSupported says whether the broker has a group coordinator. kafkajs
// cannot consume without a consumer group, so its consume-and-read-back part
// needs one; Gregor and kfake both have it.
const groupsSupported = true

// TestKafkajs runs kafkajs (npm, pinned in kafkajs/package.json) through
// kafkajs/script.js and checks the facts it reports.
func TestKafkajs(t *testing.T) {
	t.Parallel()
	node := requireTool(t, "node")
	dir := filepath.Join(repoRoot, "server", "e2e", "kafkajs")
	requireNpmPackage(t, dir, "kafkajs")
	b := startBroker(t, WithConfig("auto.create.topics.enable", "false"))

	topic := topicName(t, "")
	base := time.Now().Add(-time.Hour).Truncate(time.Millisecond).UnixMilli()
	args := []string{"script.js", b.Addr, topic, fmt.Sprint(base)}
	if groupsSupported {
		args = append(args, topicName(t, "group"))
	} else {
		t.Log("consumer groups not supported yet: the kafkajs consume part is OFF (see groupsSupported)")
	}
	ctx := testCtx(t, 2*time.Minute)
	cmd := exec.CommandContext(ctx, node, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "KAFKAJS_NO_PARTITIONER_WARNING=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if stderr.Len() > 0 {
		t.Logf("kafkajs stderr:\n%s", stderr.String())
	}
	if err != nil {
		t.Fatalf("node %v: %v\nstdout:\n%s", args, err, stdout.String())
	}

	type partMD struct {
		Partition int32   `json:"partition"`
		Leader    int32   `json:"leader"`
		Replicas  []int32 `json:"replicas"`
		ISR       []int32 `json:"isr"`
		Error     int16   `json:"error"`
	}
	var res struct {
		Created            bool `json:"created"`
		CreatedAgain       bool `json:"createdAgain"`
		ListedTopic        bool `json:"listedTopic"`
		ListedValidateOnly bool `json:"listedValidateOnly"`
		Metadata           []struct {
			Name       string   `json:"name"`
			Partitions []partMD `json:"partitions"`
		} `json:"metadata"`
		Sends []struct {
			Partition  int32  `json:"partition"`
			ErrorCode  int16  `json:"errorCode"`
			BaseOffset string `json:"baseOffset"`
		} `json:"sends"`
		Offsets []struct {
			Partition int32  `json:"partition"`
			Low       string `json:"low"`
			High      string `json:"high"`
		} `json:"offsets"`
		ByTimestamp []struct {
			Partition int32  `json:"partition"`
			Offset    string `json:"offset"`
		} `json:"byTimestamp"`
		ShrinkError *struct {
			Type string `json:"type"`
		} `json:"shrinkError"`
		PartitionsAfterGrow int `json:"partitionsAfterGrow"`
		Consumed            []struct {
			Partition int32  `json:"partition"`
			Offset    string `json:"offset"`
			Key       string `json:"key"`
			Value     string `json:"value"`
			Timestamp string `json:"timestamp"`
		} `json:"consumed"`
		ListedBeforeDelete bool `json:"listedBeforeDelete"`
		ListedAfterDelete  bool `json:"listedAfterDelete"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		t.Fatalf("kafkajs output is not the expected JSON: %v\n%s", err, stdout.String())
	}

	if !res.Created || res.CreatedAgain {
		t.Errorf("createTopics: first %v (want true), second %v (want false: already exists)", res.Created, res.CreatedAgain)
	}
	if !res.ListedTopic || res.ListedValidateOnly {
		t.Errorf("listTopics: topic listed %v (want true), validate-only topic listed %v (want false)", res.ListedTopic, res.ListedValidateOnly)
	}
	if len(res.Metadata) != 1 || res.Metadata[0].Name != topic || len(res.Metadata[0].Partitions) != 2 {
		t.Fatalf("fetchTopicMetadata: %+v, want %s with 2 partitions", res.Metadata, topic)
	}
	for i, p := range res.Metadata[0].Partitions {
		want := partMD{Partition: int32(i), Leader: b.NodeID, Replicas: []int32{b.NodeID}, ISR: []int32{b.NodeID}}
		if p.Partition != want.Partition || p.Leader != want.Leader || p.Error != 0 ||
			!slices.Equal(p.Replicas, want.Replicas) || !slices.Equal(p.ISR, want.ISR) {
			t.Errorf("fetchTopicMetadata partition %+v, want %+v", p, want)
		}
	}
	// Two sends, each 10 records per partition: base offsets 0 then 10.
	wantBase := map[int32][]string{0: {"0", "10"}, 1: {"0", "10"}}
	gotBase := map[int32][]string{}
	for _, s := range res.Sends {
		if s.ErrorCode != 0 {
			t.Errorf("send to partition %d: error code %d", s.Partition, s.ErrorCode)
		}
		gotBase[s.Partition] = append(gotBase[s.Partition], s.BaseOffset)
	}
	for p, w := range wantBase {
		if !slices.Equal(gotBase[p], w) {
			t.Errorf("send base offsets on partition %d: %v, want %v", p, gotBase[p], w)
		}
	}
	if len(res.Offsets) != 2 {
		t.Errorf("fetchTopicOffsets: %+v, want 2 partitions", res.Offsets)
	}
	for _, o := range res.Offsets {
		if o.Low != "0" || o.High != "20" {
			t.Errorf("fetchTopicOffsets partition %d: low %s high %s, want 0 and 20", o.Partition, o.Low, o.High)
		}
	}
	if len(res.ByTimestamp) != 2 || res.ByTimestamp[0].Offset != "4" || res.ByTimestamp[1].Offset != "4" {
		t.Errorf("fetchTopicOffsetsByTimestamp(base+7.5s): %+v, want offset 4 on both partitions", res.ByTimestamp)
	}
	if res.PartitionsAfterGrow != 3 {
		t.Errorf("after createPartitions to 3: %d partitions", res.PartitionsAfterGrow)
	}
	if res.ShrinkError == nil || res.ShrinkError.Type != "INVALID_PARTITIONS" {
		t.Errorf("createPartitions shrink to 1: error %+v, want type INVALID_PARTITIONS", res.ShrinkError)
	}
	if !res.ListedBeforeDelete || res.ListedAfterDelete {
		t.Errorf("deleteTopics: listed before %v (want true), after %v (want false)", res.ListedBeforeDelete, res.ListedAfterDelete)
	}

	// What kafkajs produced (plain and gzip), read back with franz-go:
	// offset o on partition p holds record n = 20*(o/10) + 2*(o%10) + p.
	got := consumeN(t, b, topic, 40)
	for _, r := range got {
		o := int(r.Offset)
		n := 20*(o/10) + 2*(o%10) + int(r.Partition)
		wantCodec := uint8(0)
		if n >= 20 {
			wantCodec = 1 // gzip
		}
		if string(r.Key) != fmt.Sprintf("key-%d", n) || string(r.Value) != fmt.Sprintf("kafkajs record %d", n) ||
			r.Timestamp.UnixMilli() != base+int64(n)*1000 || len(r.Headers) != 1 || string(r.Headers[0].Value) != fmt.Sprint(n) ||
			r.Attrs.CompressionType() != wantCodec {
			t.Errorf("partition %d offset %d: key %s value %q ts %d headers %v codec %d; want record %d (ts %d, codec %d)",
				r.Partition, r.Offset, r.Key, r.Value, r.Timestamp.UnixMilli(), r.Headers, r.Attrs.CompressionType(), n, base+int64(n)*1000, wantCodec)
		}
	}

	// ---- consumer-group dependent part (see groupsSupported) ----
	if !groupsSupported {
		return
	}
	if len(res.Consumed) != 40 {
		t.Fatalf("consumer read %d records, want 40", len(res.Consumed))
	}
	next := map[int32]int{}
	for _, c := range res.Consumed {
		off := next[c.Partition]
		next[c.Partition]++
		// Offset o on partition p holds record n = 20*(o/10) + 2*(o%10) + p.
		n := 20*(off/10) + 2*(off%10) + int(c.Partition)
		if c.Offset != fmt.Sprint(off) || c.Key != fmt.Sprintf("key-%d", n) ||
			c.Value != fmt.Sprintf("kafkajs record %d", n) || c.Timestamp != fmt.Sprint(base+int64(n)*1000) {
			t.Errorf("consumed partition %d: offset %s key %s value %q ts %s; want offset %d record %d ts %d",
				c.Partition, c.Offset, c.Key, c.Value, c.Timestamp, off, n, base+int64(n)*1000)
		}
	}
}
