package bench

import (
	"os/exec"
	"syscall"
)

// dieWithParent makes a broker child get SIGKILL when this test process
// dies, even by a -timeout panic that runs no cleanup.
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
