// Real network isolation between brokers: each broker in its own network
// namespace, on a bridge the test creates, with links taken down and up.

package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// splitNet is a private network the test owns: a bridge in the host's
// namespace with an address for the test's clients, and one namespace per
// broker joined to it by a veth pair. Only these addresses (10.99.X.0/24,
// routed nowhere else) and loopback are ever used.
type splitNet struct {
	t      testing.TB
	ip     string
	bridge string
	ns     []string // namespace of broker i
	hostIf []string // the bridge's end of broker i's veth pair
	addrs  []string // broker i's address
}

// newSplitNet creates the bridge and n namespaces, and removes them when
// the test ends. It needs root (CAP_NET_ADMIN and CAP_SYS_ADMIN) and
// iproute2: without them it skips loudly, and fails with CI=true (CI runs
// as root and .ci/run installs iproute2).
func newSplitNet(t testing.TB, n int) *splitNet {
	t.Helper()
	requireBinary(t)
	ip := requireTool(t, "ip")
	if os.Geteuid() != 0 {
		missingTool(t, "root privileges (to create network namespaces, a bridge and veth pairs)")
	}
	id := os.Getpid() % 100000
	s := &splitNet{t: t, ip: ip, bridge: fmt.Sprintf("gbr%d", id)}
	subnet := s.freeSubnet(id % 250)
	// Removed in reverse; deleting a namespace deletes its veth pair.
	t.Cleanup(func() {
		for _, ns := range s.ns {
			s.try("netns", "del", ns)
		}
		if s.bridge != "" {
			s.try("link", "del", s.bridge)
		}
	})
	if out, err := exec.Command(ip, "link", "add", s.bridge, "type", "bridge").CombinedOutput(); err != nil {
		what := fmt.Sprintf("the privilege to create a bridge (ip link add %s type bridge: %v: %s)", s.bridge, err, bytes.TrimSpace(out))
		s.bridge = "" // nothing to remove
		missingTool(t, what)
	}
	s.must("addr", "add", subnet+".254/24", "dev", s.bridge)
	s.must("link", "set", s.bridge, "up")
	for i := range n {
		ns := fmt.Sprintf("gregor-%d-%d", id, i+1)
		host, inner := fmt.Sprintf("gvh%d-%d", id, i+1), fmt.Sprintf("gvn%d-%d", id, i+1)
		addr := fmt.Sprintf("%s.%d", subnet, i+1)
		s.must("netns", "add", ns)
		s.ns = append(s.ns, ns)
		s.must("link", "add", host, "type", "veth", "peer", "name", inner)
		s.must("link", "set", inner, "netns", ns)
		s.must("link", "set", host, "master", s.bridge)
		s.must("link", "set", host, "up")
		s.must("-n", ns, "addr", "add", addr+"/24", "dev", inner)
		s.must("-n", ns, "link", "set", inner, "up")
		s.must("-n", ns, "link", "set", "lo", "up")
		s.hostIf, s.addrs = append(s.hostIf, host), append(s.addrs, addr)
	}
	return s
}

// freeSubnet returns the first 10.99.X (X from start on) that no address
// or route of the host uses: a bridge left behind by a killed run keeps
// its own.
func (s *splitNet) freeSubnet(start int) string {
	s.t.Helper()
	for i := range 250 {
		subnet := fmt.Sprintf("10.99.%d", (start+i)%250)
		route, err1 := exec.Command(s.ip, "-4", "route", "show", subnet+".0/24").Output()
		addr, err2 := exec.Command(s.ip, "-4", "addr", "show", "to", subnet+".0/24").Output()
		if err1 == nil && err2 == nil && len(bytes.TrimSpace(route)) == 0 && len(bytes.TrimSpace(addr)) == 0 {
			return subnet
		}
	}
	s.t.Fatalf("every 10.99.X.0/24 is in use on this host")
	return ""
}

// wrapper runs a command inside broker i's namespace.
func (s *splitNet) wrapper(i int) []string { return []string{s.ip, "netns", "exec", s.ns[i]} }

// cut takes broker i's link down: nothing reaches it or leaves it, and
// its open connections stay open without an answer, as with a pulled
// cable.
func (s *splitNet) cut(i int) { s.must("link", "set", s.hostIf[i], "down") }

// heal brings broker i's link up again.
func (s *splitNet) heal(i int) { s.must("link", "set", s.hostIf[i], "up") }

func (s *splitNet) must(args ...string) {
	s.t.Helper()
	if out, err := exec.Command(s.ip, args...).CombinedOutput(); err != nil {
		s.t.Fatalf("ip %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

func (s *splitNet) try(args ...string) {
	if out, err := exec.Command(s.ip, args...).CombinedOutput(); err != nil {
		s.t.Logf("cleanup: ip %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}
