package server

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"time"
)

// The principal of a node on a controller connection, which
// core/broker/envelope.go checks on each Envelope the node sends, is
// named as Kafka's DefaultKafkaPrincipalBuilder names an inter-broker
// principal: User:<its SASL user> on a SASL controller listener;
// User:<the subject of its certificate> (User:CN=broker1,O=Example) on an
// SSL one, where mutual TLS makes the certificate required; User:ANONYMOUS
// on a PLAINTEXT one. With an authorizer, an authenticated node must
// CLUSTER_ACTION on the cluster (name it in super.users), or its
// connection is refused before any of its frames reaches the engine.

// errRefused is a peer connection refused and already logged (refused).
var errRefused = errors.New("refused")

// admitPeer authenticates a connection accepted on the controller
// listener and returns its principal and, for a SASL session with a
// lifetime, when it expires (peer_reauth.go).
func (d *clusterDriver) admitPeer(nc net.Conn, r io.Reader, e *engine) (string, time.Time, error) {
	t, _ := nc.(*tls.Conn)
	switch {
	case d.peer != nil && d.peer.Mechanism != "":
		from, user, err := d.authenticatePeer(nc, r, e)
		d.refused(nc, from, err)
		if err != nil {
			return "", time.Time{}, errRefused
		}
		var expires time.Time
		if d.reauth > 0 {
			expires = time.Now().Add(d.reauth)
		}
		return "User:" + user, expires, nil
	case t != nil:
		_ = nc.SetDeadline(time.Now().Add(peerAuthTimeout))
		err := t.Handshake()
		_ = nc.SetDeadline(time.Time{})
		if err != nil {
			return "", time.Time{}, err
		}
		who := certPrincipal(t.ConnectionState())
		err = d.mayJoin(e, who, remoteIP(nc))
		d.refused(nc, -1, err)
		if err != nil {
			return "", time.Time{}, errRefused
		}
		return who, time.Time{}, nil
	}
	return anonymous, time.Time{}, nil
}

// selfPrincipal is a node's own principal, for the requests it sends to
// itself as the controller: what its peers see it as, with peer security
// p (nil: plaintext).
func selfPrincipal(p *PeerSecurity) string {
	switch {
	case p == nil:
		return anonymous
	case p.Mechanism != "":
		return "User:" + p.User
	case p.DialTLS != nil && len(p.DialTLS.Certificates) > 0:
		if leaf, err := x509.ParseCertificate(p.DialTLS.Certificates[0].Certificate[0]); err == nil {
			return "User:" + leaf.Subject.String()
		}
	}
	return anonymous
}
