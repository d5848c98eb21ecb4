package console

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/broker"
	"github.com/gregor-kafka/gregor/core/view"
	"github.com/gregor-kafka/gregor/ui"
)

// topic is GET /console/topics/{topic}: its partitions across the
// cluster (Metadata), what this broker holds of each (a snapshot) and
// its configs with their source (DescribeConfigs).
func (c *Console) topic(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("topic")
	p := ui.ConsoleTopic{ConsoleFrame: c.frame(r, ui.Trf(lang(r), "Topic %s", name))}
	t, err := c.describeTopic(r.Context(), name)
	if err != nil {
		p.Problem = c.topicProblem(p.Lang, name, err)
		render(w, r, status(err), p.ConsoleFrame, ui.ConsoleTopicPage(p))
		return
	}
	p.Topic = t
	c.Engine.Snapshot(func(b *broker.Broker) { p.Local = view.ReplicasOf(b, name) })
	if r.URL.Query().Has("created") {
		p.Notice = ui.Trf(p.Lang, "Created topic %s.", name)
	}
	render(w, r, http.StatusOK, p.ConsoleFrame, ui.ConsoleTopicPage(p))
}

// topicProblem says why a topic could not be shown or used.
func (c *Console) topicProblem(lang, name string, err error) string {
	switch {
	case errors.Is(err, kerr.UnknownTopicOrPartition):
		return ui.Trf(lang, "There is no topic %q.", name)
	case isRefusal(err):
		return ui.Trf(lang, "Refused: %s may not do this on topic %q (%v).", c.principal(), name, err)
	}
	return ui.Trf(lang, "Topic %q could not be read: %v", name, err)
}

// principal names who the console acts as, in a refusal.
func (c *Console) principal() string {
	if c.Principal == "" {
		return "the console"
	}
	return c.Principal
}

// describeTopic asks Metadata and DescribeConfigs for one topic.
func (c *Console) describeTopic(ctx context.Context, name string) (view.TopicMeta, error) {
	mreq := kmsg.NewPtrMetadataRequest()
	mt := kmsg.NewMetadataRequestTopic()
	mt.Topic = kmsg.StringPtr(name)
	mreq.Topics = []kmsg.MetadataRequestTopic{mt}
	meta, err := ask[*kmsg.MetadataResponse](ctx, c, mreq)
	if err != nil {
		return view.TopicMeta{}, err
	}
	if len(meta.Topics) != 1 {
		return view.TopicMeta{}, fmt.Errorf("Metadata answered %d topics for one", len(meta.Topics))
	}
	mt0 := meta.Topics[0]
	if err := kafkaError(mt0.ErrorCode, nil); err != nil {
		return view.TopicMeta{}, err
	}
	t := view.TopicMeta{Name: name, ID: fmt.Sprintf("%x", mt0.TopicID), Internal: mt0.IsInternal}
	for _, p := range mt0.Partitions {
		pm := view.PartitionMeta{Index: p.Partition, Leader: p.Leader, LeaderEpoch: p.LeaderEpoch, Replicas: p.Replicas, ISR: p.ISR}
		if p.ErrorCode != 0 {
			pm.Error = kerr.ErrorForCode(p.ErrorCode).Error()
		}
		t.Partitions = append(t.Partitions, pm)
	}
	slices.SortFunc(t.Partitions, func(a, b view.PartitionMeta) int { return int(a.Index - b.Index) })
	creq := kmsg.NewPtrDescribeConfigsRequest()
	res := kmsg.NewDescribeConfigsRequestResource()
	res.ResourceType, res.ResourceName = kmsg.ConfigResourceTypeTopic, name
	creq.Resources = []kmsg.DescribeConfigsRequestResource{res}
	cresp, err := ask[*kmsg.DescribeConfigsResponse](ctx, c, creq)
	if err != nil {
		return t, err
	}
	for _, rs := range cresp.Resources {
		if err := kafkaError(rs.ErrorCode, rs.ErrorMessage); err != nil {
			return t, err
		}
		for _, cf := range rs.Configs {
			v := view.Config{Name: cf.Name, Source: cf.Source.String(), Sensitive: cf.IsSensitive, ReadOnly: cf.ReadOnly}
			if cf.Value != nil {
				v.Value = *cf.Value
			}
			t.Configs = append(t.Configs, v)
		}
	}
	slices.SortFunc(t.Configs, func(a, b view.Config) int { return strings.Compare(a.Name, b.Name) })
	return t, nil
}

// createTopic is POST /console/topics: CreateTopics, then the topic's
// page; a refusal or bad input comes back on the home page, with the
// form open.
func (c *Console) createTopic(w http.ResponseWriter, r *http.Request) {
	name := strings.TrimSpace(r.PostFormValue("name"))
	err := c.create(r.Context(), lang(r), name, r.PostFormValue("partitions"), r.PostFormValue("replication"), r.PostFormValue("configs"))
	if err != nil {
		p := ui.ConsoleHome{ConsoleFrame: c.frame(r, ui.Tr(lang(r), "Cluster"))}
		p.Problem = ui.Trf(p.Lang, "Topic %q was not created: %v", name, err)
		if isRefusal(err) {
			p.Problem = ui.Trf(p.Lang, "Refused: %s may not create topic %q (%v).", c.principal(), name, err)
		}
		p.Cluster, _ = c.cluster(r.Context())
		c.coordinated(&p)
		render(w, r, status(err), p.ConsoleFrame, ui.ConsoleHomePage(p))
		return
	}
	see(w, r, topicPath(name), "created", "1")
}

// create parses the form and asks CreateTopics.
func (c *Console) create(ctx context.Context, lang, name, partitions, replication, configs string) error {
	if name == "" {
		return badInput(ui.Tr(lang, "A topic needs a name."))
	}
	n, err := strconv.ParseInt(strings.TrimSpace(partitions), 10, 32)
	if err != nil || n < 1 {
		return badInput(ui.Trf(lang, "Partitions: %q is not a whole number from 1.", partitions))
	}
	rf, err := strconv.ParseInt(strings.TrimSpace(replication), 10, 16)
	if err != nil || rf < 1 {
		return badInput(ui.Trf(lang, "Replication factor: %q is not a whole number from 1.", replication))
	}
	kvs, err := pairs(lang, configs)
	if err != nil {
		return err
	}
	req := kmsg.NewPtrCreateTopicsRequest()
	req.TimeoutMillis = int32(askTimeout.Milliseconds())
	t := kmsg.NewCreateTopicsRequestTopic()
	t.Topic, t.NumPartitions, t.ReplicationFactor = name, int32(n), int16(rf)
	for _, kv := range kvs {
		cf := kmsg.NewCreateTopicsRequestTopicConfig()
		cf.Name, cf.Value = kv[0], kmsg.StringPtr(kv[1])
		t.Configs = append(t.Configs, cf)
	}
	req.Topics = []kmsg.CreateTopicsRequestTopic{t}
	resp, err := ask[*kmsg.CreateTopicsResponse](ctx, c, req)
	if err != nil {
		return err
	}
	for _, rt := range resp.Topics {
		if err := kafkaError(rt.ErrorCode, rt.ErrorMessage); err != nil {
			return err
		}
	}
	return nil
}

// pairs reads name=value lines (blank lines skipped).
func pairs(lang, text string) ([][2]string, error) {
	var out [][2]string
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, badInput(ui.Trf(lang, "%q is not name=value.", line))
		}
		out = append(out, [2]string{strings.TrimSpace(k), strings.TrimSpace(v)})
	}
	return out, nil
}

// topicPath is a topic's page.
func topicPath(name string) string { return "/console/topics/" + url.PathEscape(name) }

// see sends the browser on to path after a form was posted (303), in the
// page's language, with the query pairs kv that say what was done.
func see(w http.ResponseWriter, r *http.Request, path string, kv ...string) {
	q := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		q.Set(kv[i], kv[i+1])
	}
	if l := r.URL.Query().Get("lang"); l != "" {
		q.Set("lang", ui.Lang(l))
	}
	http.Redirect(w, r, path+"?"+q.Encode(), http.StatusSeeOther)
}
