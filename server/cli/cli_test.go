package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// A request is waiting from its write until its answer is read; one
// whose read failed stays waiting, and the oldest is the one reported.
func TestWatch(t *testing.T) {
	var w watch
	b1 := kgo.BrokerMetadata{Host: "127.0.0.1", Port: 9092}
	b2 := kgo.BrokerMetadata{Host: "127.0.0.1", Port: 9093}
	if w.took() {
		t.Fatal("took a request before any was written")
	}
	w.OnBrokerWrite(b1, 3, 0, 0, 0, fmt.Errorf("broken pipe")) // not written
	if w.took() {
		t.Fatal("a failed write counts as taken")
	}
	w.OnBrokerWrite(b1, 18, 10, 0, 0, nil) // ApiVersions
	w.OnBrokerRead(b1, 18, 10, 0, 0, nil)
	w.OnBrokerWrite(b1, 19, 10, 0, 0, nil) // CreateTopics
	w.OnBrokerWrite(b2, 3, 10, 0, 0, nil)  // Metadata
	w.OnBrokerRead(b1, 19, 0, 0, 0, os.ErrDeadlineExceeded)
	w.OnBrokerRead(b2, 3, 10, 0, 0, nil)
	req, ok := w.oldestUnanswered()
	if !w.took() || !ok || req.name() != "CreateTopics" || req.broker != "127.0.0.1:9092" {
		t.Errorf("oldest unanswered %+v (%s), %v; want CreateTopics to 127.0.0.1:9092", req, req.name(), ok)
	}
}

func TestTimeoutOrUnreachable(t *testing.T) {
	for _, c := range []struct {
		err                  error
		timeout, unreachable bool
	}{
		{context.DeadlineExceeded, true, false},
		{fmt.Errorf("read: %w", os.ErrDeadlineExceeded), true, false},
		{kgo.ErrRecordTimeout, true, false},
		{kerr.RequestTimedOut, false, false}, // the broker's answer: a refusal
		{kerr.UnknownTopicOrPartition, false, false},
	} {
		if got := isTimeout(c.err); got != c.timeout {
			t.Errorf("isTimeout(%v) = %v, want %v", c.err, got, c.timeout)
		}
		if got := isUnreachable(c.err); got != c.unreachable {
			t.Errorf("isUnreachable(%v) = %v, want %v", c.err, got, c.unreachable)
		}
	}
}

// A wrong command line is one "gregor: " line on stderr, exit 2, and
// nothing on stdout; it never dials.
func TestUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"topic", "list", "--nope"}, "gregor: unknown flag -nope (see gregor topic list --help)"},
		{[]string{"topic", "frob"}, `gregor: unknown command "topic frob" (try: gregor topic --help)`},
		{[]string{"topic", "list", "-X", "bootstrap=x"}, `unknown key "bootstrap"; want one of brokers,`},
		{[]string{"topic", "list", "-X", "brokers"}, "want brokers=VALUE"},
		{[]string{"topic", "consume", "t", "-o", "@yesterday"}, "gregor: -o @yesterday: want @MILLISECONDS or @RFC3339"},
		{[]string{"topic", "list", "--timeout", "0s"}, "gregor: --timeout 0s: want a duration above 0"},
		{[]string{"group", "seek", "g", "--to", "@yesterday"}, `gregor: --to "@yesterday": want start, end, an offset or @TIME`},
	} {
		var stdout, stderr bytes.Buffer
		code := Run(c.args, strings.NewReader(""), &stdout, &stderr)
		if code != ExitUsage || stdout.Len() != 0 || strings.Count(stderr.String(), "\n") != 1 || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("gregor %s: exit %d, stdout %q, stderr %q; want %d, nothing, one line with %q",
				strings.Join(c.args, " "), code, stdout.String(), stderr.String(), ExitUsage, c.want)
		}
	}
}

// --help prints the usage on stdout and exits 0.
func TestHelp(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := Run([]string{"topic", "list", "--help"}, strings.NewReader(""), &stdout, &stderr); code != ExitOK ||
		!strings.Contains(stdout.String(), "Usage: gregor topic list") || !strings.Contains(stdout.String(), "-timeout") || stderr.Len() != 0 {
		t.Errorf("topic list --help: exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
}
