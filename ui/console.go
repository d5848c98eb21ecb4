package ui

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/a-h/templ"

	"github.com/gregor-kafka/gregor/core/view"
)

// The console (server/console) is the operator's view of a running
// broker: the cluster, its topics and partitions, groups, transactions,
// and its records. Each page is one of the types below, built from
// core/view snapshots and the broker's answers to the console's requests.

// ConsoleFrame is what every console page carries.
type ConsoleFrame struct {
	Lang  string
	Title string
	// Path is the page's path, Query its query without lang, for the
	// language switch.
	Path, Query string
	// Principal is who the console acts as when an authorizer is on
	// ("User:alice"), "" when none is.
	Principal string
	Node      int32
	// Peers is every node's HTTP address, for links to a partition's
	// leader.
	Peers map[int32]string
	// Problem is what went wrong with the request (bad input, a refusal),
	// Notice what the last action did.
	Problem, Notice string
}

// ConsoleHome is /console: the cluster, a page of topics, the groups
// and transactions this broker coordinates.
type ConsoleHome struct {
	ConsoleFrame
	Cluster view.Cluster
	Topics  []view.TopicSummary
	// After is the last topic of the previous page ("" on the first),
	// Next the after of the next page, "" when this is the last.
	After, Next string
	// GroupsAfter and GroupsNext page the groups, TxnsAfter and TxnsNext
	// the transactions, as After and Next the topics.
	GroupsAfter, GroupsNext string
	TxnsAfter, TxnsNext     string
	Groups                  []view.Group
	ShareGroups             []view.ShareGroup
	Shares                  []view.SharePartition
	Txns                    []view.Txn
}

// ConsoleTopic is one topic's page.
type ConsoleTopic struct {
	ConsoleFrame
	Topic view.TopicMeta
	// Local is this broker's replica of each partition it holds, by
	// index (log start, high watermark, end, size).
	Local map[int32]view.TopicReplica
}

// ConsolePartition is one partition's page: its log drawn as the
// lessons draw it, the transactions open on it, a page of its records
// and the form to produce one.
type ConsolePartition struct {
	ConsoleFrame
	Topic string
	Index int32
	// Found: this broker holds a replica, drawn in World's one broker.
	Found  bool
	World  view.World
	Leader int32
	Txns   []view.Txn
	Browse RecordPage
}

// RecordPage is a page of the record browser.
type RecordPage struct {
	// From is the query as typed: an offset, or a time (Time).
	From   string
	ByTime bool
	N      int
	Format string // "text", "json" or "hex"
	// Committed reads at read_committed (Kafka's isolation.level), not
	// read_uncommitted: up to the last stable offset, StableEnd, and
	// without the aborted transactions' records.
	Committed bool
	StableEnd int64
	// Read is whether records were asked for (the page was submitted).
	Read    bool
	Start   int64 // the first offset read
	Records []view.Record
	Next    int64 // where the next page starts
	// Refused is the broker's refusal of the read, "" when it answered.
	Refused string
}

// ConsoleGroup is one consumer group's page.
type ConsoleGroup struct {
	ConsoleFrame
	ID    string // the group asked for
	Group view.Group
	Lags  []view.Lag
	// Coordinator is the broker that coordinates the group when that is
	// another broker (the page links to its console), -1 otherwise.
	Coordinator int32
}

// PageSizes are the record browser's page sizes: a page is bounded.
var PageSizes = []int{10, 20, 50, 100}

// RecordFormats are how the browser shows keys, values and headers.
var RecordFormats = []string{"text", "json", "hex"}

// ReadUncommitted and ReadCommitted are the record browser's isolation
// levels, as Kafka's consumers name them (isolation.level).
const (
	ReadUncommitted = "read_uncommitted"
	ReadCommitted   = "read_committed"
)

// FormatBytes shows a key, value or header value as text (invalid UTF-8
// escaped), JSON (indented when it is JSON, else as text) or hex; nil is
// Kafka's null.
func FormatBytes(b []byte, format string) string {
	if b == nil {
		return "null"
	}
	switch format {
	case "hex":
		return hex.EncodeToString(b)
	case "json":
		var out bytes.Buffer
		if json.Indent(&out, b, "", "  ") == nil {
			return out.String()
		}
	}
	if utf8.Valid(b) {
		return string(b)
	}
	return fmt.Sprintf("%q", b)
}

// consoleHref is a console path in the page's language, with the query
// pairs kv (name, value, ...).
func consoleHref(lang, path string, kv ...string) templ.SafeURL {
	q := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		q.Set(kv[i], kv[i+1])
	}
	if lang != "en" {
		q.Set("lang", lang)
	}
	if len(q) == 0 {
		return templ.SafeURL(path)
	}
	return templ.SafeURL(path + "?" + q.Encode())
}

// peerHref is path on node's console, "" when its address is unknown.
func peerHref(f ConsoleFrame, node int32, path string) templ.SafeURL {
	addr, ok := f.Peers[node]
	if !ok {
		return ""
	}
	return templ.SafeURL("http://" + addr + string(consoleHref(f.Lang, path)))
}

// nextRecords is the record browser's next page: from where this one
// ended, in its size, format and isolation.
func nextRecords(p ConsolePartition) templ.SafeURL {
	br := p.Browse
	kv := []string{"from", fmt.Sprint(br.Next), "n", fmt.Sprint(br.N), "format", br.Format}
	if br.Committed {
		kv = append(kv, "isolation", ReadCommitted)
	}
	return consoleHref(p.Lang, partitionPath(p.Topic, p.Index), kv...)
}

// partitionPath is a partition's console page.
func partitionPath(topic string, index int32) string {
	return fmt.Sprintf("/console/topics/%s/%d", url.PathEscape(topic), index)
}

// groupPath is a group's console page.
func groupPath(id string) string { return "/console/groups/" + url.PathEscape(id) }

// topicPath is a topic's console page.
func topicPath(topic string) string { return "/console/topics/" + url.PathEscape(topic) }

// consoleLangLinks is the page in each language.
func consoleLangLinks(f ConsoleFrame) []LangLink {
	return LangLinks(f.Lang, func(lang string) string {
		q, _ := url.ParseQuery(f.Query)
		q.Del("lang")
		if lang != "en" {
			q.Set("lang", lang)
		}
		if len(q) == 0 {
			return f.Path
		}
		return f.Path + "?" + q.Encode()
	})
}

// nodes is a list of node ids, "1, 2, 3".
func nodes(ids []int32) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = fmt.Sprint(id)
	}
	return strings.Join(s, ", ")
}

// recordTime is a record's timestamp in UTC, to the millisecond.
func recordTime(ms int64) string {
	return time.UnixMilli(ms).UTC().Format("2006-01-02 15:04:05.000")
}

// orDash is v, or "—" when it is negative (not known here).
func orDash(v int64) string {
	if v < 0 {
		return "—"
	}
	return fmt.Sprint(v)
}

// partitionLink is a partition's page on its leader: here when this
// broker leads it (or the leader's address is unknown), else on the
// leader's console.
func partitionLink(f ConsoleFrame, topic string, pt view.PartitionMeta) templ.SafeURL {
	path := partitionPath(topic, pt.Index)
	if pt.Leader != f.Node {
		if u := peerHref(f, pt.Leader, path); u != "" {
			return u
		}
	}
	return consoleHref(f.Lang, path)
}

// openProducers are the producers with a transaction open on pt.
func openProducers(pt view.Partition) []view.Producer {
	var out []view.Producer
	for _, pr := range pt.Producers {
		if pr.TxnFirst >= 0 {
			out = append(out, pr)
		}
	}
	return out
}

// totalLag sums the lags known here.
func totalLag(ls []view.Lag) int64 {
	var n int64
	for _, l := range ls {
		n += max(l.Lag, 0)
	}
	return n
}

// orNone is s, or "none" when it is empty.
func orNone(ctx context.Context, s string) string {
	if s == "" {
		return T(ctx, "none")
	}
	return s
}

// localReplicas says how many of a topic's partitions this broker holds
// a replica of, and their size.
func localReplicas(ctx context.Context, n int, size int64) string {
	if n == 1 {
		return Tf(ctx, "%d replica, %d B", n, size)
	}
	return Tf(ctx, "%d replicas, %d B", n, size)
}

// TxnOf is what the drawn log says of the transaction whose data holds
// offset: "open" (no marker yet), "aborted", "committed", or "" when the
// batch is older than the batches drawn (view.MaxBatches) and so not
// decided here.
func (p ConsolePartition) TxnOf(offset int64) string {
	for _, b := range p.World.Brokers {
		for _, pt := range b.Partitions {
			for _, s := range pt.Segments {
				for _, bt := range s.Batches {
					if offset < bt.Base || offset > bt.Last {
						continue
					}
					switch bt.Kind() {
					case "open", "aborted":
						return bt.Kind()
					case "txn":
						return "committed"
					}
					return ""
				}
			}
		}
	}
	return ""
}
