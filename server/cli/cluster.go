package cli

import (
	"fmt"
	"strconv"

	"github.com/twmb/franz-go/pkg/kadm"
)

var clusterVerbs = map[string]func(*env) error{
	"info":       clusterInfo,
	"config":     clusterConfig,
	"partitions": clusterPartitions,
	"elect":      clusterElect,
	"quotas":     clusterQuotas,
}

type clusterBroker struct {
	ID   int32   `json:"id"`
	Host string  `json:"host"`
	Port int32   `json:"port"`
	Rack *string `json:"rack"`
}

type clusterDescription struct {
	ClusterID  string          `json:"cluster_id"`
	Controller int32           `json:"controller"`
	Brokers    []clusterBroker `json:"brokers"`
	Topics     int             `json:"topics"`
}

func clusterInfo(e *env) error {
	e.withFormat()
	adm, ctx, err := e.open(0, 0, "")
	if err != nil {
		return err
	}
	md, err := adm.Metadata(ctx)
	if err != nil {
		return err
	}
	d := clusterDescription{ClusterID: md.Cluster, Controller: md.Controller, Topics: len(md.Topics)}
	for _, b := range md.Brokers {
		d.Brokers = append(d.Brokers, clusterBroker{b.NodeID, b.Host, b.Port, b.Rack})
	}
	return e.show(d, func() [][]string {
		rows := [][]string{{"CLUSTER", d.ClusterID}, {"CONTROLLER", strconv.Itoa(int(d.Controller))}, {"TOPICS", strconv.Itoa(d.Topics)}, {""},
			{"BROKER", "HOST", "PORT", "RACK"}}
		for _, b := range d.Brokers {
			rack := "-"
			if b.Rack != nil {
				rack = *b.Rack
			}
			id := strconv.Itoa(int(b.ID))
			if b.ID == d.Controller {
				id += "*"
			}
			rows = append(rows, []string{id, b.Host, strconv.Itoa(int(b.Port)), rack})
		}
		return rows
	})
}

// clusterConfig gets or sets broker settings:
//
//	gregor cluster config get [NAME...]     # every set one, or the named
//	gregor cluster config set NAME=VALUE... # cluster-wide, or --broker ID
func clusterConfig(e *env) error {
	broker := e.fs.Int("broker", -1, "one broker's own settings (default: get from any broker, set cluster-wide)")
	all := e.fs.Bool("a", false, "get: list every setting, defaults included")
	e.withFormat()
	adm, ctx, err := e.open(1, -1, "get [NAME...] | set NAME=VALUE...")
	if err != nil {
		return err
	}
	switch e.args[0] {
	case "get":
		var brokers []int32
		if *broker >= 0 {
			brokers = []int32{int32(*broker)}
		}
		rcs, err := adm.DescribeBrokerConfigs(ctx, brokers...)
		if err != nil {
			return err
		}
		var out []describedConfig
		for _, rc := range rcs {
			if rc.Err != nil {
				e.refused("broker "+rc.Name, rc.Err, rc.ErrMessage)
				return nil
			}
			want := map[string]bool{}
			for _, n := range e.args[1:] {
				want[n] = true
			}
			for _, c := range rc.Configs {
				if len(want) > 0 && want[c.Key] || len(want) == 0 && (*all || c.Source != 5) {
					out = append(out, describedConfig{c.Key, c.Value, c.Source.String()})
				}
			}
			break // one broker's answer
		}
		return e.show(out, func() [][]string {
			rows := [][]string{{"NAME", "VALUE", "SOURCE"}}
			for _, c := range out {
				v := "(null)"
				if c.Value != nil {
					v = *c.Value
				}
				rows = append(rows, []string{c.Name, v, c.Source})
			}
			return rows
		})
	case "set":
		kv, err := keyValues("set", e.args[1:])
		if err != nil {
			return err
		}
		if len(kv) == 0 {
			return usagef("set: give NAME=VALUE")
		}
		var ops []kadm.AlterConfig
		for _, k := range sortedKeys(kv) {
			v := kv[k]
			ops = append(ops, kadm.AlterConfig{Op: kadm.SetConfig, Name: k, Value: &v})
		}
		var brokers []int32
		if *broker >= 0 {
			brokers = []int32{int32(*broker)}
		}
		rs, err := adm.AlterBrokerConfigs(ctx, ops, brokers...)
		if err != nil {
			return err
		}
		for _, r := range rs {
			if r.Err != nil {
				e.refused("broker config", r.Err, r.ErrMessage)
				return nil
			}
		}
		fmt.Fprintf(e.stdout, "set %d broker settings\n", len(ops))
		return nil
	}
	return usagef("cluster config %s: want get or set", e.args[0])
}
