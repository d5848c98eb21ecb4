package cli

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/twmb/franz-go/pkg/kadm"
)

var groupVerbs = map[string]func(*env) error{
	"list":     groupList,
	"describe": groupDescribe,
	"seek":     groupSeek,
	"delete":   groupDelete,
}

type listedGroup struct {
	Group       string `json:"group"`
	Type        string `json:"type"`
	State       string `json:"state"`
	Coordinator int32  `json:"coordinator"`
}

func groupList(e *env) error {
	e.withFormat()
	adm, ctx, err := e.open(0, 0, "")
	if err != nil {
		return err
	}
	gs, err := adm.ListGroups(ctx)
	if err != nil {
		return err
	}
	out := []listedGroup{}
	for _, g := range gs.Sorted() {
		typ := g.GroupType
		if typ == "" {
			typ = g.ProtocolType
		}
		out = append(out, listedGroup{g.Group, typ, g.State, g.Coordinator})
	}
	return e.show(out, func() [][]string {
		rows := [][]string{{"GROUP", "TYPE", "STATE", "COORDINATOR"}}
		for _, g := range out {
			rows = append(rows, []string{g.Group, g.Type, g.State, strconv.Itoa(int(g.Coordinator))})
		}
		return rows
	})
}

// describedGroup is group describe's answer for one group.
type describedGroup struct {
	Group       string         `json:"group"`
	Coordinator int32          `json:"coordinator"`
	State       string         `json:"state"`
	Protocol    string         `json:"protocol"`
	Members     int            `json:"members"`
	TotalLag    int64          `json:"total_lag"`
	Partitions  []partitionLag `json:"partitions"`
	Error       string         `json:"error,omitempty"`
}

type partitionLag struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	Committed int64  `json:"committed_offset"` // -1: none
	LogStart  int64  `json:"log_start_offset"`
	LogEnd    int64  `json:"log_end_offset"`
	Lag       int64  `json:"lag"`
	MemberID  string `json:"member_id,omitempty"`
	ClientID  string `json:"client_id,omitempty"`
	Host      string `json:"host,omitempty"`
	Error     string `json:"error,omitempty"`
}

func groupDescribe(e *env) error {
	e.withFormat()
	adm, ctx, err := e.open(1, -1, "GROUP...")
	if err != nil {
		return err
	}
	lags, err := adm.Lag(ctx, e.args...)
	if err != nil {
		return err
	}
	var out []describedGroup
	for _, name := range e.args {
		l := lags[name]
		d := describedGroup{Group: name, Coordinator: l.Coordinator.NodeID, State: l.State, Protocol: l.Protocol, Members: len(l.Members), Partitions: []partitionLag{}}
		if err := l.Error(); err != nil {
			d.Error = err.Error()
			e.code = ExitRefused
		}
		for _, m := range l.Lag.Sorted() {
			p := partitionLag{Topic: m.Topic, Partition: m.Partition, Committed: m.Commit.At, LogStart: m.Start.Offset,
				LogEnd: m.End.Offset, Lag: m.Lag, Error: errString(m.Err, "")}
			if m.Member != nil {
				p.MemberID, p.ClientID, p.Host = m.Member.MemberID, m.Member.ClientID, m.Member.ClientHost
			}
			if m.Lag > 0 {
				d.TotalLag += m.Lag
			}
			d.Partitions = append(d.Partitions, p)
		}
		out = append(out, d)
	}
	return e.show(out, func() [][]string {
		var rows [][]string
		for i, d := range out {
			if i > 0 {
				rows = append(rows, []string{""})
			}
			rows = append(rows, []string{"GROUP", d.Group}, []string{"COORDINATOR", strconv.Itoa(int(d.Coordinator))},
				[]string{"STATE", d.State}, []string{"PROTOCOL", d.Protocol}, []string{"MEMBERS", strconv.Itoa(d.Members)},
				[]string{"TOTAL-LAG", strconv.FormatInt(d.TotalLag, 10)})
			if d.Error != "" {
				rows = append(rows, []string{"ERROR", d.Error})
			}
			rows = append(rows, []string{""}, []string{"TOPIC", "PARTITION", "CURRENT-OFFSET", "LOG-START-OFFSET", "LOG-END-OFFSET", "LAG", "MEMBER-ID", "CLIENT-ID", "HOST"})
			for _, p := range d.Partitions {
				cur := strconv.FormatInt(p.Committed, 10)
				if p.Committed < 0 {
					cur = "-"
				}
				rows = append(rows, []string{p.Topic, strconv.Itoa(int(p.Partition)), cur, strconv.FormatInt(p.LogStart, 10),
					strconv.FormatInt(p.LogEnd, 10), strconv.FormatInt(p.Lag, 10), orDash(p.MemberID), orDash(p.ClientID), orDash(p.Host)})
			}
		}
		return rows
	})
}

// seeked is one partition's new committed offset.
type seeked struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	Offset    int64  `json:"offset"`
	Error     string `json:"error,omitempty"`
}

func groupSeek(e *env) error {
	to := e.fs.String("to", "", "start, end, an offset, or @TIME (milliseconds since the epoch, or RFC 3339)")
	topics := e.fs.String("topics", "", "the topics to seek, comma separated (default: those the group has offsets for)")
	e.withFormat()
	if err := e.parse(1, 1, "GROUP --to start|end|OFFSET|@TIME"); err != nil {
		return err
	}
	group := e.args[0]
	if _, err := startOffset(*to); err != nil || *to == "" {
		return usagef("--to %q: want start, end, an offset or @TIME", *to)
	}
	adm, ctx, err := e.client()
	if err != nil {
		return err
	}
	dg, err := adm.DescribeGroups(ctx, group)
	if err != nil {
		return err
	}
	if d := dg[group]; d.Err == nil && len(d.Members) > 0 {
		e.refused("group "+group, fmt.Errorf("has %d members (%s)", len(d.Members), d.State), "stop them before seeking: Kafka takes offsets for an empty group only")
		return nil
	}
	var ts []string
	if *topics != "" {
		ts = strings.Split(*topics, ",")
	} else {
		committed, err := adm.FetchOffsets(ctx, group)
		if err != nil {
			return err
		}
		ts = committed.Partitions().Topics()
		if len(ts) == 0 {
			return usagef("group %s has no committed offsets: say which --topics to seek", group)
		}
	}
	var lo kadm.ListedOffsets
	switch {
	case *to == "start":
		lo, err = adm.ListStartOffsets(ctx, ts...)
	case *to == "end":
		lo, err = adm.ListEndOffsets(ctx, ts...)
	case strings.HasPrefix(*to, "@"):
		ms, _ := timeArg("--to", *to)
		lo, err = adm.ListOffsetsAfterMilli(ctx, ms, ts...)
	default:
		at, _ := strconv.ParseInt(*to, 10, 64)
		lo, err = adm.ListEndOffsets(ctx, ts...)
		lo.Each(func(o kadm.ListedOffset) {
			if o.Err == nil {
				lo[o.Topic][o.Partition] = kadm.ListedOffset{Topic: o.Topic, Partition: o.Partition, Offset: min(at, o.Offset), LeaderEpoch: -1}
			}
		})
	}
	if err != nil {
		return err
	}
	if err := lo.Error(); err != nil {
		e.refused("listing offsets of "+strings.Join(ts, ","), err, "")
		return nil
	}
	rs, err := adm.CommitOffsets(ctx, group, lo.Offsets())
	if err != nil {
		return err
	}
	var out []seeked
	for _, r := range rs.Sorted() {
		s := seeked{Topic: r.Topic, Partition: r.Partition, Offset: r.At, Error: errString(r.Err, "")}
		if r.Err != nil {
			e.code = ExitRefused
		}
		out = append(out, s)
	}
	return e.show(out, func() [][]string {
		rows := [][]string{{"TOPIC", "PARTITION", "OFFSET", "ERROR"}}
		for _, s := range out {
			rows = append(rows, []string{s.Topic, strconv.Itoa(int(s.Partition)), strconv.FormatInt(s.Offset, 10), orDash(s.Error)})
		}
		return rows
	})
}

func groupDelete(e *env) error {
	e.withFormat()
	adm, ctx, err := e.open(1, -1, "GROUP...")
	if err != nil {
		return err
	}
	rs, err := adm.DeleteGroups(ctx, e.args...)
	if err != nil {
		return err
	}
	type deleted struct {
		Group string `json:"group"`
		Error string `json:"error,omitempty"`
	}
	var out []deleted
	for _, g := range e.args {
		r := rs[g]
		d := deleted{g, errString(r.Err, "")}
		if r.Err != nil {
			e.code = ExitRefused
		}
		out = append(out, d)
	}
	slices.SortFunc(out, func(a, b deleted) int { return strings.Compare(a.Group, b.Group) })
	return e.show(out, func() [][]string {
		rows := [][]string{{"GROUP", "STATUS"}}
		for _, d := range out {
			rows = append(rows, []string{d.Group, orDash(d.Error)})
		}
		return rows
	})
}
