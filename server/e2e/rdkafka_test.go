package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
)

// TestRdkafkaConfigsAndRecordErrors runs a small C program against
// Debian's librdkafka (server/e2e/rdkafka/configs.c), as librdkafka's own
// admin and compaction tests do against Kafka:
//
//   - AlterConfigs of this broker accepts a Kafka setting Gregor does not
//     act on (sasl.kerberos.min.time.before.relogin, kept and described),
//     and refuses a read-only one and a bad value with Kafka's
//     INVALID_REQUEST and messages;
//   - DescribeConfigs lists Kafka's whole set, a password as sensitive
//     with no value;
//   - ten records to a compacted topic, every other one without a key:
//     the keyless ones fail with INVALID_RECORD and so do the keyed ones
//     of their batch (librdkafka 2.0.2 produces at v7, which has no
//     per-record errors: the batch fails as a whole), and a batch with
//     keys only succeeds.
func TestRdkafkaConfigsAndRecordErrors(t *testing.T) {
	t.Parallel()
	gcc := requireTool(t, "gcc")
	if _, err := os.Stat("/usr/include/librdkafka/rdkafka.h"); err != nil {
		missingTool(t, "librdkafka's headers (Debian's librdkafka-dev)")
	}
	bin := filepath.Join(t.TempDir(), "configs")
	if out, err := exec.Command(gcc, "-O1", "-Wall", "-o", bin, filepath.Join("rdkafka", "configs.c"), "-lrdkafka").CombinedOutput(); err != nil {
		t.Fatalf("gcc rdkafka/configs.c: %v\n%s", err, out)
	}
	b := startBroker(t, WithConfig("auto.create.topics.enable", "false"))
	topic := topicName(t, "")
	compact := "compact"
	mustCreateTopic(t, b.Admin(t), topic, 1, map[string]*string{"cleanup.policy": &compact})

	cmd := exec.CommandContext(testCtx(t, 60*time.Second), bin, b.Addr, fmt.Sprint(b.NodeID), topic)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("configs: %v\nstdout:\n%s\nstderr:\n%s", err, out, stderr.String())
	}
	got, listed := map[string]string{}, 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if _, err := fmt.Sscanf(line, "describe-count %d", &listed); err == nil {
			continue
		}
		kind, rest, _ := strings.Cut(line, " ")
		key, val, _ := strings.Cut(rest, " ")
		got[kind+" "+key] = val
	}
	for key, want := range map[string]string{
		"alter sasl.kerberos.min.time.before.relogin=58000": "NO_ERROR ",
		"alter log.dirs=/elsewhere":                         "INVALID_REQUEST Cannot update these configs dynamically: Set(log.dirs)",
		"alter num.io.threads=0":                            "INVALID_REQUEST Invalid value 0 for configuration num.io.threads: Value must be at least 1",
		"describe log.dirs":                                 "(null) ro=1 sensitive=0 source=5",
		"describe ssl.keystore.password":                    "(null) ro=0 sensitive=1 source=5",
		"produce KEYED":                                     "ok=10 INVALID_RECORD=0 other=0 keyless_ok=0",
	} {
		if got[key] != want {
			t.Errorf("%s: %q, want %q\n(all of it:\n%s)", key, got[key], want, out)
		}
	}
	// Every keyless record fails, and so do the keyed ones that shared its
	// batch (librdkafka may send the first record alone, before linger.ms).
	var okN, invalidN, otherN, keylessOK int
	if _, err := fmt.Sscanf(got["produce MIXED"], "ok=%d INVALID_RECORD=%d other=%d keyless_ok=%d", &okN, &invalidN, &otherN, &keylessOK); err != nil ||
		keylessOK != 0 || otherN != 0 || invalidN < 5 || okN+invalidN != 10 {
		t.Errorf("produce MIXED: %q, want the five keyless records and their batch INVALID_RECORD", got["produce MIXED"])
	}
	// The kept setting is the broker's own dynamic value now.
	if v := got["describe sasl.kerberos.min.time.before.relogin"]; !strings.HasPrefix(v, "58000 ro=0 sensitive=0 source=") || strings.HasSuffix(v, "source=5") {
		t.Errorf("describe sasl.kerberos.min.time.before.relogin: %q, want 58000, dynamic", v)
	}
	if listed < 300 {
		t.Errorf("DescribeConfigs listed %d configs, want Kafka's whole set (300 or more)", listed)
	}
	// franz-go sees the same kept value.
	rc, err := b.Admin(t).DescribeBrokerConfigs(testCtx(t, 10*time.Second), b.NodeID)
	if err != nil {
		t.Fatal(err)
	}
	r, err := rc.On(fmt.Sprint(b.NodeID), nil)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := configValue(r, "sasl.kerberos.min.time.before.relogin"); v != "58000" {
		t.Errorf("kadm: sasl.kerberos.min.time.before.relogin = %q, want 58000", v)
	}
}

func configValue(r kadm.ResourceConfig, name string) (string, bool) {
	for _, c := range r.Configs {
		if c.Key == name {
			return c.MaybeValue(), true
		}
	}
	return "", false
}
