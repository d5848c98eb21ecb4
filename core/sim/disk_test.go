package sim

import (
	"strings"
	"testing"
)

// TestDiskFault: `disk b0 fail sync t-0` makes the next sync of t-0 fail;
// the producer waiting on it hears KAFKA_STORAGE_ERROR, not success, the
// partition takes no more appends, t-1 goes on, and a restart recovers
// t-0 without the record whose sync failed (a power loss after the
// failed sync: its bytes never reached the disk).
func TestDiskFault(t *testing.T) {
	s := execAll(t, New(1),
		"broker log.flush.interval.messages=1",
		"topic t partitions=2",
		"producer p idempotent retries=0",
		"produce p t partition=0 value=a",
		"disk b0 fail sync t-0",
		"disk b0",
		"produce p t partition=0 value=b",
		"produce p t partition=1 value=c",
		"crash b0",
		"restart b0",
		"consumer c",
		"fetch c t-0 offset=0",
		"producer q",
		"produce q t partition=0 value=d",
	)
	wantAll(t, s,
		"disk fault armed: sync t-0/ nth=1 err=EIO",
		"Produce t-0 base_offset=-1 error=KAFKA_STORAGE_ERROR",
		"p            acked t-1 offset 0",
		"c            t-0: 0:a (position 1)",
		"q            acked t-0 offset 1",
	)
	if strings.Contains(s, "acked t-0 offset 1\n") && !strings.Contains(s, "q            acked t-0 offset 1") {
		t.Errorf("the record whose sync failed was acknowledged:\n%s", s)
	}
}

// TestDiskMedia: a full disk refuses the next append (the partition goes
// offline, the producer hears KAFKA_STORAGE_ERROR) until freed; a flipped
// byte of a synced record reaches the consumer, whose CRC check refuses
// it; a power loss with torn writes keeps u-0's first unsynced record
// and tears its second, which recovery truncates; t-1's flipped batch,
// synced, is truncated by recovery too.
func TestDiskMedia(t *testing.T) {
	s := execAll(t, New(3),
		"broker log.flush.interval.messages=1",
		"topic t partitions=2",
		"topic u flush.messages=1000",
		"producer p retries=0",
		"produce p t partition=0 value=a",
		"disk b0 full",
		"disk b0",
		"produce p t partition=0 value=b",
		"disk b0 clear",
		"produce p t partition=1 value=c",
		"disk b0 flip t-1/00000000000000000000.log",
		"consumer c",
		"fetch c t-1 offset=0",
		"produce p u value=d",
		"produce p u value=e",
		"disk b0 tear",
		"crash b0",
		"restart b0",
		"fetch c t-0 offset=0",
		"fetch c u-0 offset=0",
	)
	wantAll(t, s,
		"disk full: 0 bytes left",
		"disk faults armed: full, 0 bytes left",
		"Produce t-0 base_offset=0 error=KAFKA_STORAGE_ERROR",
		"p            acked t-1 offset 0",
		"disk flip: byte ",
		"c            t-1: "+corruptBatch+" 0: ",
		"disk tear armed",
		"the last write of each file torn",
		"recovery: t-1: truncated 69 bytes of a torn batch at position 0",
		"recovery: u-0: truncated ",
		"c            t-0: 0:a (position 1)",
		"c            u-0: 0:d (position 1)",
	)
}

// wantAll fails the test for each of wants missing from out.
func wantAll(t *testing.T, out string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
}
