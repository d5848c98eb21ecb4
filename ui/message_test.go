package ui

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestCardTopLevelError: a response the card shows by its summary still
// shows its error code, not NONE.
func TestCardTopLevelError(t *testing.T) {
	resp := kmsg.NewPtrAlterPartitionResponse()
	resp.ErrorCode = kerr.NotController.Code
	if v := Message(resp); v.Error.Name != "NOT_CONTROLLER" {
		t.Errorf("AlterPartition answered NOT_CONTROLLER reads %+v", v.Error)
	}
	if v := Message(kmsg.NewPtrAlterPartitionResponse()); v.Error.Name != "" {
		t.Errorf("AlterPartition answered NONE reads %+v", v.Error)
	}
}
