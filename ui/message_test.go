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

// TestCardFetchSession: a fetch in an incremental session (KIP-227) shows
// its session and epoch, and the partitions it forgets; one outside any
// session shows neither.
func TestCardFetchSession(t *testing.T) {
	req := kmsg.NewPtrFetchRequest()
	req.SessionID, req.SessionEpoch = 7, 3
	ft := kmsg.NewFetchRequestForgottenTopic()
	ft.Topic, ft.Partitions = "orders", []int32{2}
	req.ForgottenTopics = append(req.ForgottenTopics, ft)
	v := Message(req)
	fields := map[string]string{}
	for _, f := range v.Fields {
		fields[f.Name] = f.Value
	}
	if fields["session_id"] != "7" || fields["session_epoch"] != "3" {
		t.Errorf("incremental fetch fields %v, want session_id 7 and session_epoch 3", v.Fields)
	}
	if len(v.Parts) != 1 || v.Parts[0].Name != "orders-2" || v.Parts[0].Fields[0].Name != "forgotten" {
		t.Errorf("incremental fetch parts %+v, want orders-2 forgotten", v.Parts)
	}
	for _, f := range Message(kmsg.NewPtrFetchRequest()).Fields {
		if f.Name == "session_id" || f.Name == "session_epoch" {
			t.Errorf("a sessionless fetch (epoch -1) shows %s", f.Name)
		}
	}
}
