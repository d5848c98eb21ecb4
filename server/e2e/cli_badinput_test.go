package e2e

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

// TestCLITimeout: a broker that takes the connection and never answers
// is a timeout (exit 4, the request and the broker named, --timeout
// suggested); a port nothing listens on is no broker reachable (exit 3).
func TestCLITimeout(t *testing.T) {
	t.Parallel()
	requireBinary(t)
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	go func() {
		var held []net.Conn // open and unanswered until the listener closes
		defer func() {
			for _, c := range held {
				c.Close()
			}
		}()
		for {
			c, err := silent.Accept()
			if err != nil {
				return
			}
			held = append(held, c)
		}
	}()
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedAddr := closed.Addr().String()
	closed.Close()

	code, out, errOut := gregorCLI(t, silent.Addr().String(), "", "topic", "create", "t", "--timeout", "2s")
	if code != 4 || out != "" || !strings.HasPrefix(errOut, "gregor: ") ||
		!strings.Contains(errOut, "timed out after 2s waiting for "+silent.Addr().String()) || !strings.Contains(errOut, "--timeout") {
		t.Errorf("a broker that never answers: exit %d, stdout %q, stderr %q; want 4 and \"gregor: ... timed out after 2s waiting for %s; raise --timeout\"",
			code, out, errOut, silent.Addr())
	}
	code, out, errOut = gregorCLI(t, closedAddr, "", "topic", "create", "t", "--timeout", "2s")
	if code != 3 || out != "" || !strings.HasPrefix(errOut, "gregor: no broker reachable at "+closedAddr) || strings.Contains(errOut, "timed out") {
		t.Errorf("a closed port: exit %d, stdout %q, stderr %q; want 3 and \"gregor: no broker reachable at %s: ...\"", code, out, errOut, closedAddr)
	}
}

// TestCLIBadInput runs the binary on bad input against a running broker
// (SASL with an authorizer, no topic auto-creation): each case must exit
// with its code, say on stderr what is wrong in "gregor: ..." lines,
// print nothing on stdout, and change nothing in the cluster.
func TestCLIBadInput(t *testing.T) {
	t.Parallel()
	requireBinary(t)
	addrs := reserveAddrs(t, 1)
	startBroker(t, WithListeners("SASL_PLAINTEXT://"+addrs[0], addrs[0]), WithConfig("auto.create.topics.enable", "false"), WithArgs(
		"--add-scram", "SCRAM-SHA-512=[name=admin,password="+adminPassword+"]",
		"--authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
		"--super.users", "User:admin"))
	br := addrs[0]
	admin := []string{"-X", "sasl.mechanism=SCRAM-SHA-512", "-X", "user=admin", "-X", "pass=" + adminPassword}
	// as is NOUN VERB, the credentials, then the rest: a flag at the end
	// of a case stays at the end.
	as := func(creds []string, args ...string) []string {
		return append(append(append([]string{}, args[:2]...), creds...), args[2:]...)
	}
	topic := topicName(t, "")
	cliOK(t, br, "", as(admin, "topic", "create", topic, "-c", "max.message.bytes=1000")...)
	cliOK(t, br, "one\ntwo\n", as(admin, "topic", "produce", topic)...)
	cliOK(t, br, "", as(admin, "topic", "consume", topic, "-g", "busy")...) // commits 2
	cliOK(t, br, "", as(admin, "security", "user", "create", "carol", "--password", "carol-secret")...)
	carol := []string{"-X", "sasl.mechanism=SCRAM-SHA-256", "-X", "user=carol", "-X", "pass=carol-secret"} // no ACL at all

	// A member keeps group busy from being empty.
	member, err := kgo.NewClient(kgo.SeedBrokers(br), kgo.SASL(scram.Auth{User: "admin", Pass: adminPassword}.AsSha512Mechanism()),
		kgo.ConsumerGroup("busy"), kgo.ConsumeTopics(topic), kgo.DisableAutoCommit())
	if err != nil {
		t.Fatal(err)
	}
	defer member.Close()
	type groupState struct {
		State      string `json:"state"`
		Members    int    `json:"members"`
		Partitions []struct {
			Partition int32 `json:"partition"`
			Committed int64 `json:"committed_offset"`
		} `json:"partitions"`
	}
	eventually(t, 60*time.Second, "the member joins group busy", func() error {
		if g := cliJSON[[]groupState](t, br, as(admin, "group", "describe", "busy")...); len(g) != 1 || g[0].Members != 1 || g[0].State != "Stable" {
			return fmt.Errorf("group describe: %+v", g)
		}
		return nil
	})

	// What must not change: the topics, the topic's partitions and
	// configs, the group's committed offsets.
	snapshot := func() string {
		topics := cliOK(t, br, "", as(admin, "topic", "list", "--format", "json")...)
		described := cliOK(t, br, "", as(admin, "topic", "describe", topic, "--format", "json")...)
		g := cliJSON[[]groupState](t, br, as(admin, "group", "describe", "busy")...)
		return fmt.Sprintf("%s\n%s\n%+v", topics, described, g[0].Partitions)
	}
	before := snapshot()

	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := closed.Addr().String()
	closed.Close()
	big := make([]byte, 3000) // incompressible: larger than max.message.bytes after compression too
	rand.Read(big)

	for _, c := range []struct {
		name  string
		stdin string
		args  []string
		code  int
		want  []string // each in stderr
	}{
		{"DescribeUnknownTopic", "", as(admin, "topic", "describe", "no-such-topic"), 1, []string{"topic no-such-topic", "UNKNOWN_TOPIC_OR_PARTITION"}},
		{"ProduceUnknownTopic", "x\n", as(admin, "topic", "produce", "no-such-topic"), 1, []string{"no-such-topic", "UNKNOWN_TOPIC_OR_PARTITION", "no record produced"}},
		{"ConsumeUnknownTopic", "", as(admin, "topic", "consume", "no-such-topic"), 1, []string{"topic no-such-topic", "UNKNOWN_TOPIC_OR_PARTITION"}},
		{"DeleteUnknownTopic", "", as(admin, "topic", "delete", "no-such-topic"), 1, []string{"topic no-such-topic", "UNKNOWN_TOPIC_OR_PARTITION"}},
		{"SeekGroupWithMembers", "", as(admin, "group", "seek", "busy", "--to", "start"), 1, []string{"group busy", "1 members", "empty group"}},
		{"RecordTooLarge", base64.StdEncoding.EncodeToString(big) + "\n", as(admin, "topic", "produce", topic), 1, []string{"record 1", "MESSAGE_TOO_LARGE", "max.message.bytes"}},
		{"MalformedOffset", "", as(admin, "topic", "consume", topic, "-o", "banana"), 2, []string{"-o banana", "start, end, an offset or @TIME"}},
		{"MalformedTimestamp", "", as(admin, "topic", "consume", topic, "-o", "@yesterday"), 2, []string{"-o @yesterday", "@RFC3339"}},
		{"LastLineWithoutNewline", "three", as(admin, "topic", "produce", topic), 2, []string{"record 1", "newline"}},
		{"RefusedByACL", "", as(carol, "topic", "delete", topic), 1, []string{"topic " + topic, "TOPIC_AUTHORIZATION_FAILED"}},
		{"BrokerDown", "", as(admin, "topic", "list", "-X", "brokers="+down), 3, []string{"no broker reachable at " + down, "connection refused"}},
		{"BrokerDownProduce", "x\n", as(admin, "topic", "produce", topic, "-X", "brokers="+down, "--timeout", "5s"), 3, []string{"no broker reachable at " + down}},
		{"UnknownFlag", "", as(admin, "topic", "list", "--no-such-flag"), 2, []string{"unknown flag -no-such-flag", "gregor topic list --help"}},
		{"FlagWithoutValue", "", as(admin, "topic", "consume", topic, "-o"), 2, []string{"-o", "needs an argument"}},
		{"MissingArgument", "", as(admin, "topic", "describe"), 2, []string{"want TOPIC"}},
		{"UnknownVerb", "", as(admin, "topic", "frobnicate"), 2, []string{`unknown command "topic frobnicate"`, "gregor topic --help"}},
		{"UnknownNoun", "", []string{"frobnicate"}, 2, []string{`unknown command "frobnicate"`}},
		{"UnknownXKey", "", as(admin, "topic", "list", "-X", "bootstrap=x:1"), 2, []string{`-X`, `unknown key "bootstrap"`, "brokers"}},
		{"XWithoutValue", "", as(admin, "topic", "list", "-X", "brokers"), 2, []string{"-X", "brokers=VALUE"}},
		{"BadSASLMechanism", "", as(admin, "topic", "list", "-X", "sasl.mechanism=MD5"), 2, []string{"sasl.mechanism=MD5", "SCRAM-SHA-256"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := gregorCLI(t, br, c.stdin, c.args...)
			if code != c.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, c.code, errOut)
			}
			if out != "" {
				t.Errorf("stdout %q, want nothing", out)
			}
			if strings.TrimSpace(errOut) == "" {
				t.Errorf("nothing on stderr")
			}
			for l := range strings.Lines(errOut) {
				if !strings.HasPrefix(l, "gregor: ") {
					t.Errorf("stderr line %q does not start with \"gregor: \"", l)
				}
			}
			for _, w := range c.want {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr does not say %q:\n%s", w, errOut)
				}
			}
		})
	}
	if after := snapshot(); after != before {
		t.Errorf("the bad input changed the cluster:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}
