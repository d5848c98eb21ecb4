package bench

import (
	"fmt"
	"os/exec"
	"syscall"
)

// dieWithParent makes a broker child get SIGKILL when this test process
// dies, even by a -timeout panic that runs no cleanup.
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

// openFilesLimit is RLIMIT_NOFILE, soft/hard, as a broker child gets it
// (a Go broker raises its soft limit to the hard one itself).
func openFilesLimit() string {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		return "unknown (" + err.Error() + ")"
	}
	return fmt.Sprintf("%d soft, %d hard", l.Cur, l.Max)
}
