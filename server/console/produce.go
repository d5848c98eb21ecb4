package console

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/record"
	"github.com/gregor-kafka/gregor/ui"
)

// produceVersion is the newest Produce that names topics (v13 names
// them by id).
const produceVersion = 12

// produce is POST /console/topics/{topic}/{partition}/records: one
// record (an empty key is none), with acks=all; then the partition's
// page from that record on. The broker's refusal (an ACL, a record
// larger than the topic allows) comes back on the partition's page.
func (c *Console) produce(w http.ResponseWriter, r *http.Request) {
	topic := r.PathValue("topic")
	l := lang(r)
	index, err := parseIndex(r.PathValue("partition"))
	var offset int64
	if err == nil {
		offset, err = c.produceOne(r.Context(), l, topic, index, r)
	}
	if err == nil {
		see(w, r, fmt.Sprintf("%s/%d", topicPath(topic), index), "produced", fmt.Sprint(offset), "from", fmt.Sprint(offset))
		return
	}
	p := c.partitionPage(r)
	p.Index = index
	p.Path = fmt.Sprintf("%s/%d", topicPath(topic), index) // the language switch goes back to the page
	// The page shows what the snapshot may; its problem is the produce's.
	c.snapshotPartition(&p)
	p.Problem = ui.Trf(l, "The record was not produced: %v", err)
	switch {
	case isRefusal(err):
		p.Problem = ui.Trf(l, "Refused: %s may not write to topic %q (%v).", c.principal(), topic, err)
	case errors.Is(err, kerr.MessageTooLarge):
		p.Problem = ui.Trf(l, "The record is larger than topic %q allows: %v", topic, err)
	}
	render(w, r, status(err), p.ConsoleFrame, ui.ConsolePartitionPage(p))
}

// produceOne builds the form's record as one batch and produces it.
func (c *Console) produceOne(ctx context.Context, lang, topic string, index int32, r *http.Request) (int64, error) {
	hs, err := pairs(lang, r.PostFormValue("headers"))
	if err != nil {
		return 0, err
	}
	var headers []record.Header
	for _, h := range hs {
		headers = append(headers, record.Header{Key: h[0], Value: []byte(h[1])})
	}
	var key []byte
	if k := r.PostFormValue("key"); k != "" {
		key = []byte(k)
	}
	batch := record.NewBuilder(record.NewBatchHeader(time.Now().UnixMilli())).Add(key, []byte(r.PostFormValue("value")), 0, headers...).Build()
	req := kmsg.NewPtrProduceRequest()
	req.Version = produceVersion
	req.Acks, req.TimeoutMillis = -1, int32(askTimeout.Milliseconds())
	pt := kmsg.NewProduceRequestTopic()
	pt.Topic = topic
	pp := kmsg.NewProduceRequestTopicPartition()
	pp.Partition, pp.Records = index, batch
	pt.Partitions = []kmsg.ProduceRequestTopicPartition{pp}
	req.Topics = []kmsg.ProduceRequestTopic{pt}
	resp, err := ask[*kmsg.ProduceResponse](ctx, c, req)
	if err != nil {
		return 0, err
	}
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			err := kafkaError(p.ErrorCode, p.ErrorMessage)
			if errors.Is(err, kerr.MessageTooLarge) {
				err = fmt.Errorf("%w: the record is %d bytes as a batch, and max.message.bytes is %s", err, len(batch), c.maxMessageBytes(ctx, topic))
			}
			return p.BaseOffset, err
		}
	}
	return 0, errors.New("Produce answered no partition")
}

// maxMessageBytes is the topic's max.message.bytes, "unknown" when it
// cannot be read.
func (c *Console) maxMessageBytes(ctx context.Context, topic string) string {
	t, err := c.describeTopic(ctx, topic)
	if err == nil {
		for _, cf := range t.Configs {
			if cf.Name == "max.message.bytes" {
				return cf.Value
			}
		}
	}
	return "unknown"
}
