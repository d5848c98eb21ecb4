package broker

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestReadmeAPITable: the table of Kafka's API keys (docs/api.md) lists every
// key kmsg knows, once, in order, with its name, the versions this broker
// serves (exactly SupportedVersions, "—" for none) and kmsg's newest
// version; a key not served says why, and a served one below the newest
// says what is left.
func TestReadmeAPITable(t *testing.T) {
	raw, err := os.ReadFile("../../docs/api.md")
	if err != nil {
		t.Fatal(err)
	}
	served := map[int16]string{}
	for _, k := range SupportedVersions() {
		served[k.ApiKey] = fmt.Sprintf("%d–%d", k.MinVersion, k.MaxVersion)
	}
	next := int16(0)
	for _, line := range strings.Split(string(raw), "\n") {
		cells := strings.Split(line, "|")
		if len(cells) != 7 || cells[0] != "" || cells[6] != "" {
			continue
		}
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		key, err := strconv.Atoi(cells[1])
		if err != nil {
			continue // the header, or another table
		}
		k := int16(key)
		if k != next {
			t.Fatalf("docs/api.md: key %d where key %d belongs", k, next)
		}
		next++
		req := kmsg.RequestForKey(k)
		if req == nil {
			t.Fatalf("docs/api.md: key %d is not one kmsg knows", k)
		}
		want := served[k]
		if want == "" {
			want = "—"
		}
		if clusterOnlyAPIs[k] {
			// The table is the full build's; this build must not serve
			// the key, and the row's versions are not this build's.
			if want != "—" {
				t.Errorf("key %d (%s) is served (%s) by a build that leaves it out", k, kmsg.NameForKey(k), want)
			}
			if cells[3] == "—" {
				t.Errorf("docs/api.md: key %d (%s) is listed as left out of this build but is not served by the full build either", k, cells[2])
			}
			want = cells[3]
		}
		newest := strconv.Itoa(int(req.MaxVersion()))
		if cells[2] != kmsg.NameForKey(k) || cells[3] != want || cells[4] != newest {
			t.Errorf("docs/api.md row %q, want | %d | %s | %s | %s |", line, k, kmsg.NameForKey(k), want, newest)
		}
		if cells[5] == "" && (want == "—" || !strings.HasSuffix(want, "–"+newest)) {
			t.Errorf("docs/api.md: key %d (%s) serves %s of up to v%s and does not say why", k, cells[2], want, newest)
		}
	}
	if kmsg.RequestForKey(next) != nil {
		t.Errorf("docs/api.md: the table stops before key %d (%s)", next, kmsg.NameForKey(next))
	}
	for k := range served {
		if k >= next {
			t.Errorf("docs/api.md: served key %d is not in the table", k)
		}
	}
	for k := range clusterOnlyAPIs {
		if k >= next {
			t.Errorf("docs/api.md: key %d, left out of this build, is not in the table", k)
		}
	}
}
