package server

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"

	"github.com/gregor-kafka/gregor/core/cluster"
)

// SASL between nodes, on a SASL_PLAINTEXT or SASL_SSL controller listener
// (security.go). Once connected (and past TLS), the dialing node sends
// Kafka's SaslHandshake v1 and then SaslAuthenticate v1 requests, each in
// a frame of type frameSASL answered by the accepting node with a frame
// of the same type on the same connection, until its mechanism's client
// is done; only then does the link carry other frames. The accepting node
// checks the tokens as a client listener does (sasl.go: PLAIN against the
// listener's user_<name> entries, SCRAM against the metadata's
// credentials, else this node's --add-scram ones), then, with an
// authorizer, that the principal may ClusterAction on the cluster (a
// super user does), as Kafka requires of inter-broker principals.
//
// Invariants: before a successful exchange the accepting node turns no
// frame into an engine event; any other frame, a failed step or a
// refused principal answers (when it can) SASL_AUTHENTICATION_FAILED,
// logs the refusal (once per peer and reason) and closes the connection.

const frameSASL byte = 4

// peerAuthTimeout bounds the whole exchange on either side.
const peerAuthTimeout = 5 * time.Second

// clusterResource is the name of Kafka's one CLUSTER resource.
const clusterResource = "kafka-cluster"

// readPeerFrame reads one length-prefixed frame between nodes (its buffer
// grows as the bytes arrive, inflight.go). A frame from minPooledFrame to
// maxPooledFrame is read into a pooled buffer, which pooled returns
// (readFrame): the caller gives it back with putFrame once nothing
// references the frame, or drops it.
func readPeerFrame(r io.Reader) (frame []byte, pooled *[]byte, err error) {
	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, nil, err
	}
	size := int32(binary.BigEndian.Uint32(hdr[:]))
	if size < 5 || size > maxPeerFrame {
		return nil, nil, fmt.Errorf("bad frame size %d", size)
	}
	return readFrame(r, int(size))
}

// authenticatePeer runs the accepting side of the exchange on nc and
// returns the node id the peer gave and its user; an error refuses it.
func (d *clusterDriver) authenticatePeer(nc net.Conn, r io.Reader, e *engine) (from int32, user string, err error) {
	_ = nc.SetDeadline(time.Now().Add(peerAuthTimeout))
	defer nc.SetDeadline(time.Time{})
	s := &saslConn{enabled: d.peer.Accept.Mechanisms, plain: d.peer.Accept.PlainUsers,
		creds: func(user string, mech int8) *cluster.ScramCredential { return d.peerCredential(e, user, mech) }}
	from = -1
	for s.user == "" {
		buf, _, err := readPeerFrame(r)
		if err != nil {
			return from, "", fmt.Errorf("before SASL authentication: %w", err)
		}
		if buf[0] != frameSASL {
			return from, "", fmt.Errorf("a frame of type %d before SASL authentication", buf[0])
		}
		buf[0] = frameReq // a SASL frame is laid out as a request frame
		in, err := decodePeerFrame(buf)
		if err != nil {
			return from, "", err
		}
		from = in.peer
		var resp kmsg.Response
		var failure error
		switch req := in.msg.(type) {
		case *kmsg.SASLHandshakeRequest:
			hr := req.ResponseKind().(*kmsg.SASLHandshakeResponse)
			hr.SupportedMechanisms = s.enabled
			if s.mech != "" || !slices.Contains(s.enabled, req.Mechanism) {
				hr.ErrorCode = kerr.UnsupportedSaslMechanism.Code
				failure = fmt.Errorf("SASL mechanism %q (enabled: %s)", req.Mechanism, strings.Join(s.enabled, ", "))
			}
			s.mech, resp = req.Mechanism, hr
		case *kmsg.SASLAuthenticateRequest:
			ar := req.ResponseKind().(*kmsg.SASLAuthenticateResponse)
			ar.SASLAuthBytes, failure = s.step(req.SASLAuthBytes)
			if failure == nil && s.user != "" {
				failure = d.mayJoin(e, "User:"+s.user, remoteIP(nc))
				ar.SessionLifetimeMillis = d.reauth.Milliseconds()
			}
			if failure != nil {
				msg := failure.Error()
				ar.ErrorCode, ar.ErrorMessage, ar.SASLAuthBytes = kerr.SaslAuthenticationFailed.Code, &msg, nil
			}
			resp = ar
		default:
			return from, "", fmt.Errorf("%s before SASL authentication", kmsg.NameForKey(in.msg.Key()))
		}
		resp.SetVersion(in.msg.GetVersion())
		if _, err := nc.Write(kmsgFrame(frameSASL, d.id, in.id, false, resp.Key(), resp.GetVersion(), resp.AppendTo)); err != nil {
			return from, "", err
		}
		if failure != nil {
			return from, "", fmt.Errorf("SASL authentication with %s failed: %w", s.mech, failure)
		}
	}
	return from, s.user, nil
}

// peerCredential is a SCRAM credential of the metadata, else one this
// node was started with: raft needs authenticated links before the
// metadata can replicate (security.go).
func (d *clusterDriver) peerCredential(e *engine, user string, mech int8) *cluster.ScramCredential {
	var cred *cluster.ScramCredential
	e.call(func() { cred = e.b.ScramCredential(user, mech) })
	for _, c := range d.bootstrap {
		if cred == nil && c.Name == user && c.Mechanism == mech {
			cred = c
		}
	}
	return cred
}

// mayJoin checks, with an authorizer, that an authenticated peer may
// ClusterAction on the cluster, as Kafka requires of the principals of
// inter-broker and controller traffic.
func (d *clusterDriver) mayJoin(e *engine, principal, host string) error {
	if d.authz == nil {
		return nil
	}
	ok := false
	e.call(func() {
		ok = d.authz.Authorize(d.node.Image().ACLs, principal, host, int8(kmsg.ACLOperationClusterAction), int8(kmsg.ACLResourceTypeCluster), clusterResource)
	})
	if !ok {
		return fmt.Errorf("%s may not CLUSTER_ACTION on the cluster: name it in super.users", principal)
	}
	return nil
}

// refused logs a refused peer connection (err != nil), once per peer and
// reason, and a peer's first success after a refusal.
func (d *clusterDriver) refused(nc net.Conn, from int32, err error) {
	key := remoteIP(nc)
	if from >= 0 {
		key = fmt.Sprint("node ", from)
	}
	d.mu.Lock()
	last := d.refusals[key]
	if err != nil {
		d.refusals[key] = err.Error()
	} else {
		delete(d.refusals, key)
	}
	d.mu.Unlock()
	switch {
	case err != nil && last != err.Error():
		d.logf("controller listener %s: refused %s (%s): %v", d.peer.Listener, key, nc.RemoteAddr(), err)
	case err == nil && last != "":
		d.logf("controller listener %s: %s authenticated", d.peer.Listener, key)
	}
}

// peerAuthError is a peer's refusal of this node's authentication, as
// opposed to a network failure during it.
type peerAuthError struct{ msg string }

func (e *peerAuthError) Error() string { return e.msg }

// authenticate runs the dialing side of the exchange on nc and returns
// the session lifetime the peer gave (KIP-368; 0: for ever).
func (l *peerLink) authenticate(nc net.Conn) (time.Duration, error) {
	p := l.sec
	_ = nc.SetDeadline(time.Now().Add(peerAuthTimeout))
	defer nc.SetDeadline(time.Time{})
	r := bufio.NewReader(nc)
	hs := kmsg.NewPtrSASLHandshakeRequest()
	hs.Version, hs.Mechanism = 1, p.Mechanism
	resp, err := l.roundTrip(nc, r, hs)
	if err != nil {
		return 0, err
	}
	if h := resp.(*kmsg.SASLHandshakeResponse); h.ErrorCode != 0 {
		return 0, &peerAuthError{fmt.Sprintf("SASL mechanism %s: %v (the peer offers %s)", p.Mechanism, kerr.ErrorForCode(h.ErrorCode), strings.Join(h.SupportedMechanisms, ", "))}
	}
	var mech sasl.Mechanism
	switch p.Mechanism {
	case "PLAIN":
		mech = plain.Auth{User: p.User, Pass: p.Password}.AsMechanism()
	case "SCRAM-SHA-256":
		mech = scram.Auth{User: p.User, Pass: p.Password}.AsSha256Mechanism()
	default:
		mech = scram.Auth{User: p.User, Pass: p.Password}.AsSha512Mechanism()
	}
	sess, token, err := mech.Authenticate(context.Background(), l.addr)
	if err != nil {
		return 0, err
	}
	for {
		ar := kmsg.NewPtrSASLAuthenticateRequest()
		ar.Version, ar.SASLAuthBytes = 1, token
		resp, err := l.roundTrip(nc, r, ar)
		if err != nil {
			return 0, err
		}
		a := resp.(*kmsg.SASLAuthenticateResponse)
		if a.ErrorCode != 0 {
			msg := kerr.ErrorForCode(a.ErrorCode).Error()
			if a.ErrorMessage != nil {
				msg = *a.ErrorMessage
			}
			return 0, &peerAuthError{msg}
		}
		done, next, err := sess.Challenge(a.SASLAuthBytes)
		if err != nil {
			return 0, &peerAuthError{err.Error()} // the peer did not prove it knows the credential
		}
		if done {
			return time.Duration(a.SessionLifetimeMillis) * time.Millisecond, nil
		}
		token = next
	}
}

// roundTrip sends one SASL request frame and reads its answer.
func (l *peerLink) roundTrip(nc net.Conn, r io.Reader, req kmsg.Request) (kmsg.Response, error) {
	if _, err := nc.Write(kmsgFrame(frameSASL, l.self, 0, false, req.Key(), req.GetVersion(), req.AppendTo)); err != nil {
		return nil, err
	}
	buf, _, err := readPeerFrame(r)
	if err != nil {
		return nil, err
	}
	if buf[0] != frameSASL {
		return nil, fmt.Errorf("a frame of type %d during SASL authentication", buf[0])
	}
	buf[0] = frameResp // laid out as a response frame
	in, err := decodePeerFrame(buf)
	if err != nil {
		return nil, err
	}
	if in.resp.Key() != req.Key() {
		return nil, errors.New("a SASL answer to another request")
	}
	return in.resp, nil
}
