package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/IBM/sarama"
	"github.com/segmentio/kafka-go"
)

// The consumer group scenario of groups_test.go with sarama, kafka-go and
// kcat: members join and leave with one owner per partition, the last one
// reads everything and commits, the broker is SIGKILLed and restarted,
// and a new member resumes from the committed offsets.

// offsets tracks, per partition, one past the highest offset read, and the
// lowest offset read.
type offsets struct {
	mu       sync.Mutex
	next     map[int32]int64
	lowest   map[int32]int64
	received int
}

func newOffsets() *offsets { return &offsets{next: map[int32]int64{}, lowest: map[int32]int64{}} }

func (o *offsets) add(p int32, off int64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.received++
	o.next[p] = max(o.next[p], off+1)
	if l, ok := o.lowest[p]; !ok || off < l {
		o.lowest[p] = off
	}
}

func (o *offsets) waitAll(t testing.TB, each int64) {
	t.Helper()
	eventually(t, opTimeout, fmt.Sprintf("reading up to offset %d on every partition", each), func() error {
		o.mu.Lock()
		defer o.mu.Unlock()
		for p := int32(0); p < groupPartitions; p++ {
			if o.next[p] < each {
				return fmt.Errorf("partition %d read up to %d", p, o.next[p])
			}
		}
		return nil
	})
}

func (o *offsets) checkFrom(t testing.TB, from int64) {
	t.Helper()
	o.mu.Lock()
	defer o.mu.Unlock()
	for p, l := range o.lowest {
		if l < from {
			t.Fatalf("partition %d was read from offset %d, below the committed %d", p, l, from)
		}
	}
}

// ---- sarama ----------------------------------------------------------------

type saramaHandler struct{ seen *offsets }

func (h saramaHandler) Setup(sarama.ConsumerGroupSession) error   { return nil }
func (h saramaHandler) Cleanup(sarama.ConsumerGroupSession) error { return nil }
func (h saramaHandler) ConsumeClaim(s sarama.ConsumerGroupSession, c sarama.ConsumerGroupClaim) error {
	for msg := range c.Messages() {
		h.seen.add(msg.Partition, msg.Offset)
		s.MarkMessage(msg, "")
	}
	return nil
}

// startSarama runs a sarama group member; stop closes it.
func startSarama(t *testing.T, b *Broker, group, topic string) (*offsets, func()) {
	t.Helper()
	cfg := sarama.NewConfig()
	cfg.Version = sarama.V3_6_0_0
	cfg.Consumer.Offsets.Initial = sarama.OffsetOldest
	cfg.Consumer.Offsets.AutoCommit.Interval = 100 * time.Millisecond
	cfg.Consumer.Group.Session.Timeout = 10 * time.Second
	cfg.Consumer.Group.Heartbeat.Interval = 300 * time.Millisecond
	cfg.Consumer.Group.Rebalance.GroupStrategies = []sarama.BalanceStrategy{sarama.NewBalanceStrategyRoundRobin()}
	cfg.Consumer.MaxWaitTime = 200 * time.Millisecond
	cg, err := sarama.NewConsumerGroup([]string{b.Addr}, group, cfg)
	if err != nil {
		t.Fatalf("sarama.NewConsumerGroup: %v", err)
	}
	seen := newOffsets()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			if err := cg.Consume(ctx, []string{topic}, saramaHandler{seen}); err != nil && ctx.Err() == nil {
				time.Sleep(pollInterval) // a retry pause, not a synchronisation
			}
		}
	}()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			<-done
			if err := cg.Close(); err != nil {
				t.Errorf("sarama ConsumerGroup.Close: %v", err)
			}
		})
	}
	t.Cleanup(stop)
	return seen, stop
}

func TestGroupsSarama(t *testing.T) { groupScenario(t, startSarama) }

// ---- kafka-go --------------------------------------------------------------

// startKafkaGo runs a kafka-go Reader in a group; ReadMessage commits each
// message before returning it (CommitInterval 0). stop closes it.
func startKafkaGo(t *testing.T, b *Broker, group, topic string) (*offsets, func()) {
	t.Helper()
	r := kafka.NewReader(kafka.ReaderConfig{
		Brokers: []string{b.Addr}, GroupID: group, Topic: topic,
		StartOffset: kafka.FirstOffset, MinBytes: 1, MaxBytes: 1 << 20, MaxWait: 200 * time.Millisecond,
		HeartbeatInterval: 300 * time.Millisecond, SessionTimeout: 10 * time.Second,
		RebalanceTimeout: 10 * time.Second, JoinGroupBackoff: 200 * time.Millisecond,
		ReadBackoffMin: 50 * time.Millisecond, ReadBackoffMax: 200 * time.Millisecond,
	})
	seen := newOffsets()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			m, err := r.ReadMessage(ctx)
			if err != nil {
				return
			}
			seen.add(int32(m.Partition), m.Offset)
		}
	}()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			<-done
			if err := r.Close(); err != nil {
				t.Errorf("kafka-go Reader.Close: %v", err)
			}
		})
	}
	t.Cleanup(stop)
	return seen, stop
}

func TestGroupsKafkaGo(t *testing.T) { groupScenario(t, startKafkaGo) }

// groupScenario runs one client's group through the lifecycle the issue
// asks for: a second member joins and leaves (one owner per partition each
// time), offsets are committed, the broker is killed and restarted, and a
// new member resumes from the committed offsets.
func groupScenario(t *testing.T, start func(*testing.T, *Broker, string, string) (*offsets, func())) {
	b := startGroupBroker(t)
	adm := b.Admin(t)
	topic, group := topicName(t, ""), topicName(t, "group")
	mustCreateTopic(t, adm, topic, groupPartitions, nil)
	produceSpread(t, b, topic, 0, 60)

	seen1, stop1 := start(t, b, group, topic)
	waitOwners(t, adm, group, topic, 1)
	_, stop2 := start(t, b, group, topic)
	waitOwners(t, adm, group, topic, 2)
	stop2()
	waitOwners(t, adm, group, topic, 1)
	seen1.waitAll(t, 10)
	waitCommitted(t, adm, group, topic, 10)
	stop1()

	b.KillAndRestart()
	adm = b.Admin(t)
	waitCommitted(t, adm, group, topic, 10)
	produceSpread(t, b, topic, 60, 30)
	seen3, _ := start(t, b, group, topic)
	seen3.waitAll(t, 15)
	seen3.checkFrom(t, 10)
}

// ---- kcat -G ---------------------------------------------------------------

// kcatMember runs `kcat -G group topic` (librdkafka's balanced consumer),
// printing "partition offset" lines. With count > 0 it exits after that
// many messages; stop sends SIGINT, on which kcat commits and leaves.
type kcatMember struct {
	cmd    *exec.Cmd
	out    *lockedBuffer
	stderr bytes.Buffer
	done   chan error
}

func startKcat(t *testing.T, kcat string, b *Broker, group, topic string, count int) *kcatMember {
	t.Helper()
	args := []string{"-b", b.Addr, "-G", group, "-X", "auto.offset.reset=earliest",
		"-X", "session.timeout.ms=10000", "-X", "heartbeat.interval.ms=300", "-X", "auto.commit.interval.ms=100",
		"-f", "%p %o\n", "-q", "-u"}
	if count > 0 {
		args = append(args, "-c", strconv.Itoa(count))
	}
	args = append(args, topic)
	k := &kcatMember{out: new(lockedBuffer), done: make(chan error, 1)}
	k.cmd = exec.Command(kcat, args...)
	k.cmd.Stdout, k.cmd.Stderr = k.out, &k.stderr
	if err := k.cmd.Start(); err != nil {
		t.Fatalf("starting kcat: %v", err)
	}
	go func() { k.done <- k.cmd.Wait() }()
	t.Cleanup(func() { k.stop(t) })
	return k
}

func (k *kcatMember) stop(t testing.TB) {
	if k.cmd.ProcessState != nil {
		return
	}
	_ = k.cmd.Process.Signal(syscall.SIGINT)
	k.wait(t)
}

func (k *kcatMember) wait(t testing.TB) {
	t.Helper()
	select {
	case err := <-k.done:
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Errorf("kcat: %v\n%s", err, k.stderr.String())
		}
	case <-time.After(opTimeout):
		_ = k.cmd.Process.Kill()
		t.Errorf("kcat did not exit\n%s", k.stderr.String())
	}
}

func (k *kcatMember) offsets(t testing.TB) *offsets {
	t.Helper()
	o := newOffsets()
	for _, line := range strings.Split(strings.TrimSpace(k.out.String()), "\n") {
		if line == "" {
			continue
		}
		var p int32
		var off int64
		if _, err := fmt.Sscanf(line, "%d %d", &p, &off); err != nil {
			t.Fatalf("kcat printed %q: %v", line, err)
		}
		o.add(p, off)
	}
	return o
}

func TestGroupsKcat(t *testing.T) {
	t.Parallel()
	kcat := requireTool(t, "kcat")
	b := startGroupBroker(t)
	adm := b.Admin(t)
	topic, group := topicName(t, ""), topicName(t, "group")
	mustCreateTopic(t, adm, topic, groupPartitions, nil)
	produceSpread(t, b, topic, 0, 60)

	k1 := startKcat(t, kcat, b, group, topic, 0)
	waitOwners(t, adm, group, topic, 1)
	k2 := startKcat(t, kcat, b, group, topic, 0)
	waitOwners(t, adm, group, topic, 2)
	k2.stop(t)
	waitOwners(t, adm, group, topic, 1)
	eventually(t, opTimeout, "kcat reading every partition to the end", func() error {
		o := k1.offsets(t)
		for p := int32(0); p < groupPartitions; p++ {
			if o.next[p] < 10 {
				return fmt.Errorf("partition %d read up to %d", p, o.next[p])
			}
		}
		return nil
	})
	waitCommitted(t, adm, group, topic, 10)
	k1.stop(t)

	b.KillAndRestart()
	adm = b.Admin(t)
	waitCommitted(t, adm, group, topic, 10)
	produceSpread(t, b, topic, 60, 30)
	k3 := startKcat(t, kcat, b, group, topic, 30)
	k3.wait(t)
	o := k3.offsets(t)
	if o.received != 30 {
		t.Fatalf("kcat read %d messages after the restart, want 30:\n%s", o.received, k3.out.String())
	}
	o.checkFrom(t, 10)
}
