package cli

import (
	"bytes"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// A produce that times out partway says how many records were
// acknowledged and how many got no answer (so may or may not be
// written), then the timeout itself: exit 4. kfake answers the first
// Produce and leaves every later one unanswered until the test ends.
func TestProducePartialTimeout(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "t"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	release := make(chan struct{})
	defer close(release) // before Close: the held Produce lets go
	answered := make(chan struct{})
	var once sync.Once
	c.ControlKey(0, func(kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		first := false
		once.Do(func() { first = true })
		if first {
			defer close(answered)
			return nil, nil, false // kfake answers it
		}
		c.SleepControl(func() { <-release })
		return nil, nil, false
	})

	stdin, in := io.Pipe()
	var stdout, stderr bytes.Buffer
	done := make(chan int)
	go func() {
		done <- Run([]string{"topic", "produce", "t", "-p", "0", "--timeout", "2s", "-X", "brokers=" + c.ListenAddrs()[0]},
			stdin, &stdout, &stderr)
	}()
	io.WriteString(in, "acked\n")
	<-answered
	io.WriteString(in, "lost-1\nlost-2\n")
	in.Close()

	code := <-done
	t.Logf("stderr:\n%s", stderr.String())
	want := "gregor: produced 1 of 3 records to t; 2 got no answer within --timeout (written or not: unknown)\n"
	if code != ExitTimeout || stdout.Len() != 0 || !strings.HasPrefix(stderr.String(), want) || !strings.Contains(stderr.String(), "raise --timeout") {
		t.Errorf("exit %d, stdout %q, stderr %q; want %d, nothing, and %q then the timeout", code, stdout.String(), stderr.String(), ExitTimeout, want)
	}
}
