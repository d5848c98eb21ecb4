package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

// gregorCLI runs a client subcommand of the binary against brokers with
// stdin, and returns its exit code, stdout and stderr.
func gregorCLI(t *testing.T, brokers, stdin string, args ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, gregorBin, args...)
	cmd.Env = append(os.Environ(), "GREGOR_BROKERS="+brokers)
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("gregor %s did not exit within 60s; stdout:\n%s\nstderr:\n%s", strings.Join(args, " "), stdout.String(), stderr.String())
	}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("running gregor: %v", err)
	}
	return cmd.ProcessState.ExitCode(), stdout.String(), stderr.String()
}

// cliOK runs a subcommand that must succeed and returns its stdout.
func cliOK(t *testing.T, brokers, stdin string, args ...string) string {
	t.Helper()
	code, out, errOut := gregorCLI(t, brokers, stdin, args...)
	if code != 0 {
		t.Fatalf("gregor %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, out, errOut)
	}
	return out
}

func cliJSON[T any](t *testing.T, brokers string, args ...string) T {
	t.Helper()
	var v T
	out := cliOK(t, brokers, "", append(args, "--format", "json")...)
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("gregor %s --format json: %v\n%s", strings.Join(args, " "), err, out)
	}
	return v
}

// TestCLITopicsAndGroups drives the client subcommands against the
// broker and checks each read against what the test itself did: topics
// created, configs altered, records produced (keys, headers, a
// transaction) and consumed in order, a group's lag as produced minus
// committed, a seek, a trim, deletes; and the exit codes of a refusal, a
// wrong command line and an unreachable cluster.
func TestCLITopicsAndGroups(t *testing.T) {
	t.Parallel()
	b := startBroker(t, WithConfig("auto.create.topics.enable", "false"))
	br := b.Addr
	topic := topicName(t, "")

	if out := cliOK(t, br, "", "topic", "create", topic, "-p", "2", "-c", "retention.ms=3600000"); !strings.Contains(out, topic+"  OK") {
		t.Errorf("topic create: %q", out)
	}
	if code, out, errOut := gregorCLI(t, br, "", "topic", "create", topic); code != 1 || out != "" || !strings.Contains(errOut, "TOPIC_ALREADY_EXISTS") {
		t.Errorf("creating it again: exit %d, stdout %q, stderr %q; want 1 and TOPIC_ALREADY_EXISTS on stderr", code, out, errOut)
	}
	listed := cliJSON[[]struct {
		Name       string
		Partitions int
	}](t, br, "topic", "list")
	if len(listed) != 1 || listed[0].Name != topic || listed[0].Partitions != 2 {
		t.Errorf("topic list: %+v", listed)
	}
	cliOK(t, br, "", "topic", "alter-config", topic, "--set", "segment.bytes=1048576", "--delete", "retention.ms")

	// Three keyed records with a header, then two in a transaction.
	cliOK(t, br, "k1 one\nk2 two\nk1 three\n", "topic", "produce", topic, "-f", "%k %v\n", "-H", "source=cli")
	cliOK(t, br, "four\nfive\n", "topic", "produce", topic, "-k", "k2", "--txn-id", "cli-txn")

	d := cliJSON[struct {
		Partitions []struct {
			Partition     int32
			HighWatermark int64 `json:"high_watermark"`
		}
		Configs []struct{ Name, Source string }
	}](t, br, "topic", "describe", topic)
	var hw int64
	for _, p := range d.Partitions {
		hw += p.HighWatermark
	}
	if len(d.Partitions) != 2 || hw != 6 { // 5 records and one commit marker
		t.Errorf("topic describe: partitions %+v, want 2 whose high watermarks add to 6", d.Partitions)
	}
	if len(d.Configs) != 1 || d.Configs[0].Name != "segment.bytes" || d.Configs[0].Source != "DYNAMIC_TOPIC_CONFIG" {
		t.Errorf("topic describe configs: %+v, want only segment.bytes set", d.Configs)
	}

	// consume -g: every record, in order within its partition, once;
	// the header on the first three; exits at the end.
	out := cliOK(t, br, "", "topic", "consume", topic, "-g", "cli-group", "--read-committed")
	type rec struct {
		Partition int32
		Offset    int64
		Key       string
		Value     string
		Headers   map[string]string
	}
	var recs []rec
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var r rec
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("consume line %q: %v", line, err)
		}
		recs = append(recs, r)
	}
	byKey := map[string][]string{}
	for _, r := range recs {
		byKey[r.Key] = append(byKey[r.Key], r.Value)
		if (r.Value == "one" || r.Value == "two" || r.Value == "three") && r.Headers["source"] != "cli" {
			t.Errorf("record %s without its header: %+v", r.Value, r)
		}
	}
	if fmt.Sprint(byKey) != "map[k1:[one three] k2:[two four five]]" {
		t.Errorf("consumed %v, want k1 [one three] and k2 [two four five] in order", byKey)
	}

	// The group committed everything: lag 0. Seek back to the start:
	// lag is what was produced (its end offsets, marker included).
	g := cliJSON[[]struct {
		State    string
		TotalLag int64 `json:"total_lag"`
	}](t, br, "group", "describe", "cli-group")
	if len(g) != 1 || g[0].TotalLag != 0 || g[0].State != "Empty" {
		t.Errorf("group describe after consuming all: %+v", g)
	}
	cliOK(t, br, "", "group", "seek", "cli-group", "--to", "start")
	sought := cliJSON[[]struct {
		TotalLag int64 `json:"total_lag"`
	}](t, br, "group", "describe", "cli-group")
	if len(sought) != 1 || sought[0].TotalLag != hw {
		t.Errorf("lag after seeking to the start: %+v, want %d", sought, hw)
	}
	// -n 2 with a format: the first two records of partition 0 or 1.
	if out := cliOK(t, br, "", "topic", "consume", topic, "-n", "2", "-f", "%v\n"); len(strings.Fields(out)) != 2 {
		t.Errorf("consume -n 2: %q", out)
	}

	// trim-prefix of a partition with records, add-partitions, then delete.
	full := d.Partitions[0]
	if full.HighWatermark == 0 {
		full = d.Partitions[1]
	}
	tr := cliJSON[[]struct {
		Partition int32
		LogStart  int64 `json:"log_start_offset"`
	}](t, br, "topic", "trim-prefix", topic, "-o", "1", "-p", fmt.Sprint(full.Partition))
	if len(tr) != 1 || tr[0].LogStart != 1 {
		t.Errorf("trim-prefix -o 1 -p %d: %+v", full.Partition, tr)
	}
	cliOK(t, br, "", "topic", "add-partitions", topic, "-n", "1")
	if l := cliJSON[[]struct{ Partitions int }](t, br, "topic", "list"); len(l) != 1 || l[0].Partitions != 3 {
		t.Errorf("after add-partitions: %+v", l)
	}
	info := cliJSON[struct {
		Controller int32
		Brokers    []struct{ ID int32 }
	}](t, br, "cluster", "info")
	if len(info.Brokers) != 1 || info.Brokers[0].ID != b.NodeID {
		t.Errorf("cluster info: %+v", info)
	}
	cliOK(t, br, "", "cluster", "config", "set", "log.retention.bytes=1000000")
	if c := cliJSON[[]struct{ Name, Source string }](t, br, "cluster", "config", "get", "log.retention.bytes"); len(c) != 1 || c[0].Source == "DEFAULT_CONFIG" {
		t.Errorf("cluster config get after set: %+v", c)
	}
	cliOK(t, br, "", "group", "delete", "cli-group")
	cliOK(t, br, "", "topic", "delete", topic)
	if l := cliJSON[[]struct{ Name string }](t, br, "topic", "list"); len(l) != 0 {
		t.Errorf("after delete: %+v", l)
	}

	// Exit codes: refused (1), a wrong command line (2), no broker (3).
	if code, _, errOut := gregorCLI(t, br, "", "topic", "consume", "no-such-topic"); code != 1 || !strings.Contains(errOut, "UNKNOWN_TOPIC") {
		t.Errorf("consume of a missing topic: exit %d, %q", code, errOut)
	}
	if code, _, errOut := gregorCLI(t, br, "", "topic", "create"); code != 2 || !strings.Contains(errOut, "TOPIC") {
		t.Errorf("create without a name: exit %d, %q", code, errOut)
	}
	if code, _, errOut := gregorCLI(t, br, "", "topic", "consume", topic, "-o", "yesterday"); code != 2 || !strings.Contains(errOut, "yesterday") {
		t.Errorf("a malformed -o: exit %d, %q", code, errOut)
	}
	if code, _, errOut := gregorCLI(t, "127.0.0.1:1", "", "topic", "list", "--timeout", "2s"); code != 3 || !strings.Contains(errOut, "no broker reachable") {
		t.Errorf("an unreachable cluster: exit %d, %q", code, errOut)
	}
}

// TestCLISASLSSL: the client subcommands over SASL_SSL with SCRAM, from
// -X flags and from a --profile file; a wrong password is refused.
func TestCLISASLSSL(t *testing.T) {
	t.Parallel()
	s := saslBroker(t)
	dir := t.TempDir()
	ca := writeFile(t, dir, "ca.pem", s.ca.pem)
	profile := writeFile(t, dir, "admin.properties", []byte(fmt.Sprintf(
		"brokers=%s\nsasl.mechanism=SCRAM-SHA-512\nuser=admin\npass=%s\ntls.ca=%s\n", s.ssl, adminPassword, ca)))
	topic := topicName(t, "")
	cliOK(t, "", "", "topic", "create", topic, "--profile", profile)
	cliOK(t, "", "secured\n", "topic", "produce", topic, "--profile", profile)
	out := cliOK(t, s.ssl, "", "topic", "consume", topic, "-f", "%v\n",
		"-X", "sasl.mechanism=SCRAM-SHA-512", "-X", "user=admin", "-X", "pass="+adminPassword, "-X", "tls.ca="+ca)
	if out != "secured\n" {
		t.Errorf("consume over SASL_SSL: %q", out)
	}
	code, _, errOut := gregorCLI(t, s.ssl, "", "topic", "list", "-X", "sasl.mechanism=SCRAM-SHA-512", "-X", "user=admin", "-X", "pass=wrong", "-X", "tls.ca="+ca)
	if code == 0 || !strings.Contains(errOut, "SASL_AUTHENTICATION_FAILED") {
		t.Errorf("a wrong password: exit %d, %q", code, errOut)
	}
	// franz-go sees what the CLI wrote.
	cl, err := kgo.NewClient(kgo.SeedBrokers(s.plain), kgo.SASL(scram.Auth{User: "admin", Pass: adminPassword}.AsSha512Mechanism()),
		kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	fs := cl.PollFetches(testCtx(t, opTimeout))
	if recs := fs.Records(); len(recs) != 1 || string(recs[0].Value) != "secured" {
		t.Errorf("franz-go read %v (%v)", recs, fs.Errors())
	}
}

// TestCLISecurity: as the super user, the CLI creates a SCRAM user and
// ACLs; the user may then consume the topic but not produce to it (exit
// 1 with the authorizer's error: without WRITE anywhere, an idempotent
// producer is refused its producer id); acl list shows exactly what was made,
// acl delete removes it, user delete removes the user.
func TestCLISecurity(t *testing.T) {
	t.Parallel()
	requireBinary(t)
	addrs := reserveAddrs(t, 1)
	startBroker(t, WithListeners("SASL_PLAINTEXT://"+addrs[0], addrs[0]), WithArgs(
		"--add-scram", "SCRAM-SHA-512=[name=admin,password="+adminPassword+"]",
		"--authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
		"--super.users", "User:admin"))
	br := addrs[0]
	admin := []string{"-X", "sasl.mechanism=SCRAM-SHA-512", "-X", "user=admin", "-X", "pass=" + adminPassword}
	carol := []string{"-X", "sasl.mechanism=SCRAM-SHA-256", "-X", "user=carol", "-X", "pass=carol-secret"}
	run := func(stdin string, args ...string) string { return cliOK(t, br, stdin, args...) }
	topic := topicName(t, "")
	run("", append([]string{"topic", "create", topic}, admin...)...)
	run("r1\nr2\n", append([]string{"topic", "produce", topic}, admin...)...)
	if out := run("", append([]string{"security", "user", "create", "carol", "--password", "carol-secret"}, admin...)...); !strings.Contains(out, "created SCRAM-SHA-256 user carol") {
		t.Errorf("user create: %q", out)
	}
	users := cliJSON[[]struct{ Name string }](t, br, append([]string{"security", "user", "list"}, admin...)...)
	if len(users) != 2 || users[1].Name != "carol" {
		t.Errorf("user list: %+v, want admin and carol", users)
	}
	run("", append([]string{"security", "acl", "create", "--allow-principal", "User:carol", "--operation", "read", "--operation", "describe", "--topic", topic}, admin...)...)
	run("", append([]string{"security", "acl", "create", "--allow-principal", "User:carol", "--operation", "read", "--group", "carols"}, admin...)...)
	acls := cliJSON[[]struct{ Principal, Resource, Operation string }](t, br, append([]string{"security", "acl", "list", "--allow-principal", "User:carol"}, admin...)...)
	if len(acls) != 3 {
		t.Errorf("acl list: %+v, want carol's three", acls)
	}

	if out := run("", append([]string{"topic", "consume", topic, "-g", "carols", "-f", "%v\n"}, carol...)...); out != "r1\nr2\n" {
		t.Errorf("carol consumes %q, want r1 r2", out)
	}
	// An idempotent producer without WRITE on any topic is refused at
	// InitProducerId (CLUSTER_AUTHORIZATION_FAILED, KIP-679), as by Kafka.
	if code, _, errOut := gregorCLI(t, br, "r3\n", append([]string{"topic", "produce", topic}, carol...)...); code != 1 || !strings.Contains(errOut, "CLUSTER_AUTHORIZATION_FAILED") {
		t.Errorf("carol produces without WRITE: exit %d, %q", code, errOut)
	}

	deleted := cliJSON[[]struct{ Operation string }](t, br, append([]string{"security", "acl", "delete", "--allow-principal", "User:carol"}, admin...)...)
	if len(deleted) != 3 {
		t.Errorf("acl delete: %+v, want carol's three", deleted)
	}
	run("", append([]string{"security", "user", "delete", "carol"}, admin...)...)
	if code, _, errOut := gregorCLI(t, br, "", append([]string{"topic", "list"}, carol...)...); code == 0 || !strings.Contains(errOut, "SASL_AUTHENTICATION_FAILED") {
		t.Errorf("carol after her user is deleted: exit %d, %q", code, errOut)
	}
}
