package describe

import "testing"

func TestErrorName(t *testing.T) {
	for code, want := range map[int16]string{
		0:  "NONE",
		6:  "NOT_LEADER_OR_FOLLOWER",
		19: "NOT_ENOUGH_REPLICAS",
		45: "OUT_OF_ORDER_SEQUENCE_NUMBER",
		-1: "UNKNOWN_SERVER_ERROR",
	} {
		if got := ErrorName(code); got != want {
			t.Errorf("ErrorName(%d) = %q, want %q", code, got, want)
		}
	}
}
