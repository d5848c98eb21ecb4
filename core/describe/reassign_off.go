//go:build noquorum

package describe

// describeReassign: the single-broker browser build never sees a
// reassignment (reassign.go); AlterPartitionAssignments is described
// generically there.
func describeReassign(any) (string, bool) { return "", false }
