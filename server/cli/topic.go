package cli

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
)

var topicVerbs = map[string]func(*env) error{
	"create":         topicCreate,
	"list":           topicList,
	"describe":       topicDescribe,
	"alter-config":   topicAlterConfig,
	"add-partitions": topicAddPartitions,
	"delete":         topicDelete,
	"trim-prefix":    topicTrimPrefix,
	"produce":        topicProduce,
	"consume":        topicConsume,
}

// topicResult is one topic's outcome, as create and delete report it.
type topicResult struct {
	Topic string `json:"topic"`
	Error string `json:"error,omitempty"`
}

// perTopic reports the outcome of each topic named on the command line,
// as resultOf gives it (the broker's message and error): in JSON all of
// them, as text a table of those done and a line on stderr for each
// refused.
func (e *env) perTopic(resultOf func(topic string) (string, error)) error {
	var rs []topicResult
	done := 0
	for _, t := range e.args {
		msg, err := resultOf(t)
		if err != nil {
			if e.format != "json" {
				e.refused("topic "+t, orUnknown(err), msg)
				continue
			}
			e.code = ExitRefused
		}
		done++
		rs = append(rs, topicResult{t, errString(err, msg)})
	}
	if e.format != "json" && done == 0 {
		return nil
	}
	return e.show(rs, func() [][]string {
		out := [][]string{{"TOPIC", "STATUS"}}
		for _, r := range rs {
			status := "OK"
			if r.Error != "" {
				status = r.Error
			}
			out = append(out, []string{r.Topic, status})
		}
		return out
	})
}

func errString(err error, msg string) string {
	switch {
	case err == nil:
		return ""
	case msg != "":
		return err.Error() + ": " + msg
	}
	return err.Error()
}

func topicCreate(e *env) error {
	partitions := e.fs.Int("p", -1, "partitions (-1: the broker's num.partitions)")
	replicas := e.fs.Int("r", -1, "replication factor (-1: the broker's default.replication.factor)")
	var cfgs repeated
	e.fs.Var(&cfgs, "c", "a topic config key=value, repeatable (e.g. -c cleanup.policy=compact)")
	e.withFormat()
	if err := e.parse(1, -1, "TOPIC..."); err != nil {
		return err
	}
	kv, err := keyValues("-c", cfgs)
	if err != nil {
		return err
	}
	configs := map[string]*string{}
	for k, v := range kv {
		configs[k] = &v
	}
	adm, ctx, err := e.client()
	if err != nil {
		return err
	}
	resp, err := adm.CreateTopics(ctx, int32(*partitions), int16(*replicas), configs, e.args...)
	if err != nil {
		return err
	}
	return e.perTopic(func(t string) (string, error) { return resp[t].ErrMessage, resp[t].Err })
}

func topicDelete(e *env) error {
	e.withFormat()
	adm, ctx, err := e.open(1, -1, "TOPIC...")
	if err != nil {
		return err
	}
	resp, err := adm.DeleteTopics(ctx, e.args...)
	if err != nil {
		return err
	}
	return e.perTopic(func(t string) (string, error) { return resp[t].ErrMessage, resp[t].Err })
}

// listedTopic is one line of topic list.
type listedTopic struct {
	Name       string `json:"name"`
	ID         string `json:"id"`
	Partitions int    `json:"partitions"`
	Replicas   int    `json:"replicas"`
	Internal   bool   `json:"internal,omitempty"`
}

func topicList(e *env) error {
	internal := e.fs.Bool("i", false, "include internal topics (__consumer_offsets, ...)")
	e.withFormat()
	adm, ctx, err := e.open(0, 0, "")
	if err != nil {
		return err
	}
	list := adm.ListTopics
	if *internal {
		list = adm.ListTopicsWithInternal
	}
	tds, err := list(ctx)
	if err != nil {
		return err
	}
	out := []listedTopic{}
	for _, name := range tds.Names() {
		td := tds[name]
		lt := listedTopic{Name: name, ID: topicID(td.ID), Partitions: len(td.Partitions), Internal: td.IsInternal}
		if p, ok := td.Partitions[0]; ok {
			lt.Replicas = len(p.Replicas)
		}
		out = append(out, lt)
	}
	return e.show(out, func() [][]string {
		rows := [][]string{{"NAME", "PARTITIONS", "REPLICAS"}}
		for _, t := range out {
			rows = append(rows, []string{t.Name, strconv.Itoa(t.Partitions), strconv.Itoa(t.Replicas)})
		}
		return rows
	})
}

// describedTopic is topic describe's answer.
type describedTopic struct {
	Name       string               `json:"name"`
	ID         string               `json:"id"`
	Internal   bool                 `json:"internal"`
	Partitions []describedPartition `json:"partitions"`
	Configs    []describedConfig    `json:"configs"`
}

type describedPartition struct {
	Partition     int32   `json:"partition"`
	Leader        int32   `json:"leader"`
	LeaderEpoch   int32   `json:"leader_epoch"`
	Replicas      []int32 `json:"replicas"`
	ISR           []int32 `json:"isr"`
	LogStart      int64   `json:"log_start_offset"`
	HighWatermark int64   `json:"high_watermark"`
	Error         string  `json:"error,omitempty"`
}

type describedConfig struct {
	Name   string  `json:"name"`
	Value  *string `json:"value"`
	Source string  `json:"source"`
}

func topicDescribe(e *env) error {
	all := e.fs.Bool("a", false, "list every config, defaults included")
	e.withFormat()
	if err := e.parse(1, 1, "TOPIC"); err != nil {
		return err
	}
	topic := e.args[0]
	adm, ctx, err := e.client()
	if err != nil {
		return err
	}
	td, ok, err := e.topicDetail(ctx, adm, topic)
	if !ok {
		return err
	}
	starts, err := adm.ListStartOffsets(ctx, topic)
	if err != nil {
		return err
	}
	ends, err := adm.ListEndOffsets(ctx, topic)
	if err != nil {
		return err
	}
	d := describedTopic{Name: topic, ID: topicID(td.ID), Internal: td.IsInternal}
	for _, p := range td.Partitions.Sorted() {
		dp := describedPartition{Partition: p.Partition, Leader: p.Leader, LeaderEpoch: p.LeaderEpoch,
			Replicas: p.Replicas, ISR: p.ISR, LogStart: -1, HighWatermark: -1, Error: errString(p.Err, "")}
		if o, ok := starts.Lookup(topic, p.Partition); ok && o.Err == nil {
			dp.LogStart = o.Offset
		}
		if o, ok := ends.Lookup(topic, p.Partition); ok && o.Err == nil {
			dp.HighWatermark = o.Offset
		}
		d.Partitions = append(d.Partitions, dp)
	}
	rcs, err := adm.DescribeTopicConfigs(ctx, topic)
	if err != nil {
		return err
	}
	if rc, err := rcs.On(topic, nil); err == nil && rc.Err == nil {
		for _, c := range rc.Configs {
			if *all || c.Source != 5 { // DEFAULT_CONFIG
				d.Configs = append(d.Configs, describedConfig{c.Key, c.Value, c.Source.String()})
			}
		}
	}
	return e.show(d, func() [][]string {
		rows := [][]string{{"NAME", topic}, {"ID", d.ID}, {"PARTITIONS", strconv.Itoa(len(d.Partitions))}, {""},
			{"PARTITION", "LEADER", "EPOCH", "REPLICAS", "ISR", "LOG-START", "HIGH-WATERMARK", "ERROR"}}
		for _, p := range d.Partitions {
			rows = append(rows, []string{strconv.Itoa(int(p.Partition)), strconv.Itoa(int(p.Leader)), strconv.Itoa(int(p.LeaderEpoch)),
				joinInts(p.Replicas), joinInts(p.ISR), strconv.FormatInt(p.LogStart, 10), strconv.FormatInt(p.HighWatermark, 10), orDash(p.Error)})
		}
		rows = append(rows, []string{""}, []string{"CONFIG", "VALUE", "SOURCE"})
		for _, c := range d.Configs {
			v := "(null)"
			if c.Value != nil {
				v = *c.Value
			}
			rows = append(rows, []string{c.Name, v, c.Source})
		}
		return rows
	})
}

// topicID is written as Kafka's Uuid.toString writes it: URL-safe
// base64 without padding.
func topicID(id kadm.TopicID) string { return base64.RawURLEncoding.EncodeToString(id[:]) }

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// topicDetail is a topic's metadata; ok is false when there is none (the
// cluster's refusal is reported, err is nil) or the request failed.
func (e *env) topicDetail(ctx context.Context, adm *kadm.Client, topic string) (kadm.TopicDetail, bool, error) {
	tds, err := adm.ListTopicsWithInternal(ctx, topic)
	if err != nil {
		return kadm.TopicDetail{}, false, err
	}
	td, ok := tds[topic]
	if !ok || td.Err != nil {
		e.refused("topic "+topic, orUnknown(td.Err), "")
		return td, false, nil
	}
	return td, true, nil
}

// orUnknown is the error of a topic a metadata answer left out (nil) or
// said it does not have, in words about a topic (Kafka's own speaks of
// "this topic-partition"); another error is itself.
func orUnknown(err error) error {
	if err == nil || errors.Is(err, kerr.UnknownTopicOrPartition) {
		return errors.New("UNKNOWN_TOPIC_OR_PARTITION: the cluster has no topic of this name")
	}
	return err
}

func topicAlterConfig(e *env) error {
	var sets, dels repeated
	e.fs.Var(&sets, "set", "key=value to set, repeatable")
	e.fs.Var(&dels, "delete", "a key to remove (back to the default), repeatable")
	if err := e.parse(1, 1, "TOPIC"); err != nil {
		return err
	}
	kv, err := keyValues("--set", sets)
	if err != nil {
		return err
	}
	if len(kv)+len(dels) == 0 {
		return usagef("nothing to change: give --set key=value or --delete key")
	}
	var ops []kadm.AlterConfig
	for _, k := range sortedKeys(kv) {
		v := kv[k]
		ops = append(ops, kadm.AlterConfig{Op: kadm.SetConfig, Name: k, Value: &v})
	}
	for _, k := range dels {
		ops = append(ops, kadm.AlterConfig{Op: kadm.DeleteConfig, Name: k})
	}
	adm, ctx, err := e.client()
	if err != nil {
		return err
	}
	rs, err := adm.AlterTopicConfigs(ctx, ops, e.args[0])
	if err != nil {
		return err
	}
	for _, r := range rs {
		if r.Err != nil {
			e.refused("topic "+r.Name, r.Err, r.ErrMessage)
			return nil
		}
	}
	fmt.Fprintf(e.stdout, "altered %s: %s\n", e.args[0], strings.Join(append(sortedKeys(kv), dels...), ", "))
	return nil
}

func topicAddPartitions(e *env) error {
	n := e.fs.Int("n", 0, "how many partitions to add")
	if err := e.parse(1, -1, "TOPIC..."); err != nil {
		return err
	}
	if *n <= 0 {
		return usagef("-n %d: give how many partitions to add (more than 0)", *n)
	}
	adm, ctx, err := e.client()
	if err != nil {
		return err
	}
	rs, err := adm.CreatePartitions(ctx, *n, e.args...)
	if err != nil {
		return err
	}
	return e.perTopic(func(t string) (string, error) { return rs[t].ErrMessage, rs[t].Err })
}

// trimmed is one partition's outcome of trim-prefix.
type trimmed struct {
	Partition      int32  `json:"partition"`
	LogStartOffset int64  `json:"log_start_offset"`
	Error          string `json:"error,omitempty"`
}

func topicTrimPrefix(e *env) error {
	offset := e.fs.Int64("o", -1, "the new log start offset: records before it are deleted (DeleteRecords)")
	parts := e.fs.String("p", "", "partitions to trim, as 0,2,5 (default: all)")
	e.withFormat()
	if err := e.parse(1, 1, "TOPIC -o OFFSET"); err != nil {
		return err
	}
	if *offset < 0 {
		return usagef("-o %d: give the offset records before which are deleted", *offset)
	}
	topic := e.args[0]
	adm, ctx, err := e.client()
	if err != nil {
		return err
	}
	td, ok, err := e.topicDetail(ctx, adm, topic)
	if !ok {
		return err
	}
	want, err := partitionList(*parts, td)
	if err != nil {
		return err
	}
	var os kadm.Offsets
	for _, p := range want {
		os.Add(kadm.Offset{Topic: topic, Partition: p, At: *offset, LeaderEpoch: -1})
	}
	rs, err := adm.DeleteRecords(ctx, os)
	if err != nil {
		return err
	}
	var out []trimmed
	for _, p := range want {
		r, _ := rs.Lookup(topic, p)
		t := trimmed{Partition: p, LogStartOffset: r.LowWatermark, Error: errString(r.Err, "")}
		if r.Err != nil {
			e.code = ExitRefused
		}
		out = append(out, t)
	}
	return e.show(out, func() [][]string {
		rows := [][]string{{"PARTITION", "LOG-START", "ERROR"}}
		for _, t := range out {
			rows = append(rows, []string{strconv.Itoa(int(t.Partition)), strconv.FormatInt(t.LogStartOffset, 10), orDash(t.Error)})
		}
		return rows
	})
}

// partitionList reads -p (0,2,5), or is every partition of td.
func partitionList(s string, td kadm.TopicDetail) ([]int32, error) {
	if s == "" {
		var all []int32
		for _, p := range td.Partitions.Sorted() {
			all = append(all, p.Partition)
		}
		return all, nil
	}
	var out []int32
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.ParseInt(strings.TrimSpace(f), 10, 32)
		if err != nil {
			return nil, usagef("-p %s: want partition numbers separated by commas", s)
		}
		if _, ok := td.Partitions[int32(n)]; !ok {
			return nil, usagef("-p %s: %s has no partition %d", s, td.Topic, n)
		}
		out = append(out, int32(n))
	}
	return out, nil
}
