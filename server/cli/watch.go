package cli

import (
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// watch follows the client's requests to the brokers (kgo's hooks), so
// that a command that ran out of --timeout can say whether any broker
// took a request, and which request was left without an answer.
type watch struct {
	mu      sync.Mutex
	written bool   // a request reached a broker
	waiting []sent // written and not answered, oldest first
}

// sent is one request written to a broker.
type sent struct {
	key    int16
	broker string // host:port
}

var (
	_ kgo.HookBrokerWrite = (*watch)(nil)
	_ kgo.HookBrokerRead  = (*watch)(nil)
)

func (w *watch) OnBrokerWrite(meta kgo.BrokerMetadata, key int16, _ int, _, _ time.Duration, err error) {
	if err != nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.written = true
	w.waiting = append(w.waiting, sent{key, brokerAddr(meta)})
}

// OnBrokerRead forgets the oldest matching request once it is answered;
// one whose read failed stays waiting.
func (w *watch) OnBrokerRead(meta kgo.BrokerMetadata, key int16, _ int, _, _ time.Duration, err error) {
	if err != nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	s := sent{key, brokerAddr(meta)}
	for i, q := range w.waiting {
		if q == s {
			w.waiting = append(w.waiting[:i], w.waiting[i+1:]...)
			return
		}
	}
}

// took reports whether any broker took a request.
func (w *watch) took() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.written
}

// oldestUnanswered is the oldest request still without its answer (ok
// false: every request was answered).
func (w *watch) oldestUnanswered() (sent, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.waiting) == 0 {
		return sent{}, false
	}
	return w.waiting[0], true
}

func (s sent) name() string { return kmsg.NameForKey(s.key) }

func brokerAddr(meta kgo.BrokerMetadata) string {
	return net.JoinHostPort(meta.Host, strconv.Itoa(int(meta.Port)))
}
