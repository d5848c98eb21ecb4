package server

import (
	"crypto/tls"
	"net"
	"testing"
	"time"

	"github.com/gregor-kafka/gregor/internal/testca"
)

// TestPeerSSL: on an SSL controller listener with an authorizer, a node
// is its certificate's subject, as Kafka names an SSL principal: a peer
// whose certificate names a super user is admitted, one whose certificate
// names anyone else is refused, with a log line that says which principal
// to name in super.users, and its connection is closed.
func TestPeerSSL(t *testing.T) {
	ca := testca.New(t, "Gregor test CA")
	issue := func(cn string) tls.Certificate {
		c, _ := ca.Issue(cn, time.Now().Add(-time.Hour), time.Now().Add(time.Hour))
		return c
	}
	node := issue("node1")
	addr, logged := startPeerNode(t, &PeerSecurity{Listener: "CONTROLLER",
		Accept:  Security{TLS: &tls.Config{Certificates: []tls.Certificate{node}, ClientCAs: ca.Pool(), ClientAuth: tls.RequireAndVerifyClientCert}},
		DialTLS: &tls.Config{Certificates: []tls.Certificate{node}, RootCAs: ca.Pool()},
	}, "User:CN=broker,O=Gregor tests", 0)
	dial := func(cn string) net.Conn {
		nc, err := tls.Dial("tcp", addr, &tls.Config{Certificates: []tls.Certificate{issue(cn)}, RootCAs: ca.Pool()})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { nc.Close() })
		return nc
	}
	broker := dial("broker")
	intruder := dial("intruder")
	if !closed(intruder) {
		t.Error("the connection of a certificate outside super.users is still open")
	}
	if err := logged("User:CN=intruder,O=Gregor tests may not CLUSTER_ACTION on the cluster: name it in super.users"); err != nil {
		t.Error(err)
	}
	if logged("CN=broker") == nil {
		t.Error("the node refused the super user's certificate")
	}
	_ = broker.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
	if _, err := broker.Read(make([]byte, 1)); err == nil || !isTimeout(err) {
		t.Errorf("the super user's connection: %v, want it open and silent", err)
	}
}

// TestSelfPrincipal: the principal a node's requests to itself carry is
// what its peers see it as: its SASL user, its certificate's subject on an
// SSL controller listener, User:ANONYMOUS on a PLAINTEXT one.
func TestSelfPrincipal(t *testing.T) {
	cert, _ := testca.New(t, "CA").Issue("node1", time.Now().Add(-time.Hour), time.Now().Add(time.Hour))
	for _, c := range []struct {
		peer *PeerSecurity
		want string
	}{
		{nil, "User:ANONYMOUS"},
		{&PeerSecurity{Mechanism: "PLAIN", User: "broker", DialTLS: &tls.Config{Certificates: []tls.Certificate{cert}}}, "User:broker"},
		{&PeerSecurity{DialTLS: &tls.Config{Certificates: []tls.Certificate{cert}}}, "User:CN=node1,O=Gregor tests"},
	} {
		if got := selfPrincipal(c.peer); got != c.want {
			t.Errorf("peer security %+v: %q, want %q", c.peer, got, c.want)
		}
	}
}

func isTimeout(err error) bool {
	ne, ok := err.(net.Error)
	return ok && ne.Timeout()
}
