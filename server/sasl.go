package server

import (
	"bytes"
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/cluster"
	"github.com/gregor-kafka/gregor/core/wire"
)

// SASL on the SASL_PLAINTEXT and SASL_SSL listeners (KIP-43, KIP-152): a
// connection must authenticate before anything but ApiVersions reaches
// the broker. SaslHandshake picks a mechanism; after v1, SaslAuthenticate
// requests carry its tokens, after v0 (Kafka before 1.0) the tokens
// travel as bare length-prefixed frames, in both directions:
//
//   - PLAIN (RFC 4616): one token, authzid NUL user NUL password. With
//     a PLAIN JAAS line on the listener
//     (listener.name.<listener>.plain.sasl.jaas.config, security.go) the
//     password must be its user_<name> entry, as Kafka's PlainLoginModule
//     checks; without one it is checked against the user's SCRAM
//     credential (the salted password it derives must give the stored
//     key), so one credential store serves both mechanisms.
//   - SCRAM-SHA-256 and SCRAM-SHA-512 (RFC 5802, RFC 7677): client-first,
//     server-first, client-final, server-final, against the credentials of
//     the metadata (AlterUserScramCredentials).
//   - OAUTHBEARER (RFC 7628), where the listener enables it: Kafka's
//     unsecured tokens (oauth.go).
//
// Invariants: until authenticated, a connection's requests other than
// ApiVersions, SaslHandshake and SaslAuthenticate close it (Kafka: an
// "unexpected Kafka request during SASL handshake"); a failed
// authentication answers SASL_AUTHENTICATION_FAILED, and any later
// request closes the connection. With connections.max.reauth.ms a
// session lasts that long (SaslAuthenticate v1+ says so): the client
// re-authenticates on the same connection, as the same user and with the
// same mechanism (KIP-368), or its first request after expiry closes it.

// Mechanisms are the SASL mechanisms sasl.enabled.mechanisms defaults
// to; served are all a listener may enable (OAUTHBEARER, oauth.go, only
// when named).
var (
	Mechanisms = []string{"PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"}
	served     = append(slices.Clone(Mechanisms), oauthMechanism)
)

// saslConn is one connection's authentication.
type saslConn struct {
	enabled []string
	// plain are the user_<name>="password" entries of the listener's
	// PLAIN JAAS line (Kafka's PlainLoginModule); nil: PLAIN passwords
	// are checked against SCRAM credentials. creds looks a SCRAM
	// credential up.
	plain    map[string]string
	creds    func(user string, mech int8) *cluster.ScramCredential
	mech     string
	scram    *scramExchange
	oauthErr string // the error challenge an OAUTHBEARER token got
	failed   bool
	raw      bool // after SaslHandshake v0: tokens come as bare frames
	// User is the authenticated user; empty until then. auths counts
	// the completed authentications (re-authentications included).
	user  string
	auths int
	// lifetime (connections.max.reauth.ms) bounds a session: a client
	// re-authenticates before expires (KIP-368), or its next request
	// closes the connection. Zero: sessions do not expire.
	lifetime time.Duration
	expires  time.Time
}

type scramExchange struct {
	mech        int8
	cred        *cluster.ScramCredential
	clientBare  string
	serverFirst string
	nonce       string
}

// authenticate handles a request of a connection on a SASL listener:
// false lets it through to the broker (ApiVersions, and anything once
// authenticated), true means it was answered here (the SASL requests,
// re-authentication included); an error closes the connection.
func (c *conn) authenticate(h wire.Header, req kmsg.Request, size int64) (bool, error) {
	s := c.sasl
	if s.failed {
		return true, fmt.Errorf("%s after a failed SASL authentication: closing", kmsg.NameForKey(h.Key))
	}
	var resp kmsg.Response
	switch r := req.(type) {
	case *kmsg.ApiVersionsRequest:
		return false, nil
	case *kmsg.SASLHandshakeRequest:
		hr := r.ResponseKind().(*kmsg.SASLHandshakeResponse)
		hr.SupportedMechanisms = s.enabled
		switch {
		case s.mech != "" && s.user == "", s.user != "" && (r.Mechanism != s.mech || r.Version == 0):
			// A second handshake, or a re-authentication (KIP-368) with
			// another mechanism or without SaslAuthenticate.
			hr.ErrorCode = kerr.IllegalSaslState.Code
		case !slices.Contains(s.enabled, r.Mechanism):
			hr.ErrorCode = kerr.UnsupportedSaslMechanism.Code
			c.logf("connection from %s asked for SASL mechanism %q; enabled: %s", c.nc.RemoteAddr(), r.Mechanism, strings.Join(s.enabled, ", "))
		default:
			s.mech, s.raw, s.scram, s.oauthErr = r.Mechanism, r.Version == 0, nil, ""
		}
		resp = hr
	case *kmsg.SASLAuthenticateRequest:
		ar := r.ResponseKind().(*kmsg.SASLAuthenticateResponse)
		was, n := s.user, s.auths
		out, err := s.step(r.SASLAuthBytes)
		switch done := s.auths > n; {
		case err != nil || !done:
		case was != "" && s.user != was:
			err = fmt.Errorf("re-authentication as %s on a connection of %s", s.user, was)
		default:
			if was != "" {
				c.logf("connection from %s re-authenticated as %s (KIP-368)", c.nc.RemoteAddr(), s.user)
			}
			if s.lifetime > 0 && r.Version >= 1 {
				ar.SessionLifetimeMillis = s.lifetime.Milliseconds()
				s.expires = time.Now().Add(s.lifetime)
			}
		}
		if err != nil {
			s.failed = true
			code, msg := kerr.SaslAuthenticationFailed.Code, err.Error()
			if s.mech == "" {
				code = kerr.IllegalSaslState.Code
			}
			ar.ErrorCode, ar.ErrorMessage = code, &msg
			c.logf("SASL authentication of %s failed: %s", c.nc.RemoteAddr(), msg)
		}
		ar.SASLAuthBytes = out
		resp = ar
	default:
		if s.user == "" {
			return true, fmt.Errorf("unexpected %s during SASL authentication (listener %s): closing", kmsg.NameForKey(h.Key), c.listener)
		}
		if !s.expires.IsZero() && time.Now().After(s.expires) {
			return true, fmt.Errorf("the SASL session of %s expired (connections.max.reauth.ms) without re-authentication: closing", s.user)
		}
		return false, nil
	}
	c.enqueue(&slot{corr: h.CorrelationID, size: size, resp: resp, ready: true})
	c.signal()
	return true, nil
}

// rawToken handles a bare SASL token after SaslHandshake v0: the answer
// is a bare frame too; a failure closes the connection, as Kafka does.
func (c *conn) rawToken(token []byte) error {
	out, err := c.sasl.step(token)
	if err != nil {
		return fmt.Errorf("SASL authentication failed: %w", err)
	}
	if c.sasl.user != "" {
		c.sasl.raw = false
	}
	frame := binary.BigEndian.AppendUint32(nil, uint32(len(out)))
	c.enqueue(&slot{size: int64(len(token)), raw: append(frame, out...), ready: true})
	c.signal()
	return nil
}

// authFailed is the message of every failed authentication: it does not
// tell whether the user exists.
func authFailed(mech string) error {
	return fmt.Errorf("Authentication failed during authentication due to invalid credentials with SASL mechanism %s", mech)
}

// step runs one SaslAuthenticate of the chosen mechanism.
func (s *saslConn) step(token []byte) ([]byte, error) {
	switch {
	case s.mech == "":
		return nil, fmt.Errorf("SaslAuthenticate before SaslHandshake")
	case s.mech == oauthMechanism:
		return s.oauthStep(token, time.Now())
	case s.mech == "PLAIN":
		parts := bytes.Split(token, []byte{0})
		if len(parts) != 3 || len(parts[1]) == 0 {
			return nil, fmt.Errorf("a PLAIN token is authzid NUL user NUL password")
		}
		user, pass := string(parts[1]), parts[2]
		if authz := string(parts[0]); authz != "" && authz != user {
			return nil, fmt.Errorf("authorization id %q differs from the user %q", authz, user)
		}
		if s.plain != nil {
			want, ok := s.plain[user]
			if !ok || subtle.ConstantTimeCompare([]byte(want), pass) != 1 {
				return nil, authFailed(s.mech)
			}
			s.user = user
			s.auths++
			return nil, nil
		}
		for _, mech := range []int8{cluster.ScramSHA512, cluster.ScramSHA256} {
			if cred := s.creds(user, mech); cred != nil && passwordMatches(cred, pass) {
				s.user = user
				s.auths++
				return nil, nil
			}
		}
		return nil, authFailed(s.mech)
	case s.scram == nil:
		return s.scramFirst(token)
	default:
		return s.scramFinal(token)
	}
}

// credential looks a credential up on the engine.
func (c *conn) credential(user string, mech int8) *cluster.ScramCredential {
	var cred *cluster.ScramCredential
	c.e.call(func() { cred = c.e.b.ScramCredential(user, mech) })
	return cred
}

// passwordMatches derives the salted password and compares its stored key.
func passwordMatches(cred *cluster.ScramCredential, pass []byte) bool {
	salted, err := pbkdf2.Key(cluster.ScramHash(cred.Mechanism), string(pass), cred.Salt, int(cred.Iterations), cluster.ScramHash(cred.Mechanism)().Size())
	if err != nil {
		return false
	}
	derived := cluster.NewScramCredential(cred.Name, cred.Mechanism, cred.Salt, salted, cred.Iterations)
	return subtle.ConstantTimeCompare(derived.StoredKey, cred.StoredKey) == 1
}

// scramFirst reads client-first-message and answers server-first-message.
func (s *saslConn) scramFirst(token []byte) ([]byte, error) {
	msg := string(token)
	if !strings.HasPrefix(msg, "n,") {
		return nil, fmt.Errorf("SCRAM: channel binding is not supported (want a gs2 header n,,)")
	}
	_, bare, ok := strings.Cut(msg[2:], ",")
	if !ok {
		return nil, fmt.Errorf("SCRAM: malformed client-first-message")
	}
	attrs := scramAttrs(bare)
	user := strings.NewReplacer("=2C", ",", "=3D", "=").Replace(attrs["n"])
	if user == "" || attrs["r"] == "" {
		return nil, fmt.Errorf("SCRAM: client-first-message without user or nonce")
	}
	mech := cluster.MechanismOf(s.mech)
	cred := s.creds(user, mech)
	if cred == nil {
		return nil, authFailed(s.mech)
	}
	var n [24]byte
	_, _ = rand.Read(n[:])
	nonce := attrs["r"] + base64.RawStdEncoding.EncodeToString(n[:])
	first := "r=" + nonce + ",s=" + base64.StdEncoding.EncodeToString(cred.Salt) + ",i=" + strconv.Itoa(int(cred.Iterations))
	s.scram = &scramExchange{mech: mech, cred: cred, clientBare: bare, serverFirst: first, nonce: nonce}
	return []byte(first), nil
}

// scramFinal checks client-final-message's proof and answers
// server-final-message.
func (s *saslConn) scramFinal(token []byte) ([]byte, error) {
	x := s.scram
	msg := string(token)
	i := strings.LastIndex(msg, ",p=")
	if i < 0 {
		return nil, fmt.Errorf("SCRAM: client-final-message without proof")
	}
	withoutProof := msg[:i]
	attrs := scramAttrs(msg)
	proof, err := base64.StdEncoding.DecodeString(attrs["p"])
	// Kafka's ScramSaslServer accepts a final nonce that ends with the
	// server-first one: librdkafka sends its client nonce twice.
	if err != nil || !strings.HasSuffix(attrs["r"], x.nonce) {
		return nil, authFailed(s.mech)
	}
	auth := x.clientBare + "," + x.serverFirst + "," + withoutProof
	h := cluster.ScramHash(x.mech)
	mac := func(key []byte) []byte {
		m := hmac.New(h, key)
		m.Write([]byte(auth))
		return m.Sum(nil)
	}
	sig := mac(x.cred.StoredKey)
	if len(proof) != len(sig) {
		return nil, authFailed(s.mech)
	}
	clientKey := make([]byte, len(sig))
	subtle.XORBytes(clientKey, proof, sig)
	stored := h()
	stored.Write(clientKey)
	if subtle.ConstantTimeCompare(stored.Sum(nil), x.cred.StoredKey) != 1 {
		return nil, authFailed(s.mech)
	}
	s.user = x.cred.Name
	s.auths++
	return []byte("v=" + base64.StdEncoding.EncodeToString(mac(x.cred.ServerKey))), nil
}

// scramAttrs splits a SCRAM message into its attributes (k=value,...).
func scramAttrs(msg string) map[string]string {
	out := map[string]string{}
	for _, kv := range strings.Split(msg, ",") {
		if k, v, ok := strings.Cut(kv, "="); ok && len(k) == 1 {
			out[k] = v
		}
	}
	return out
}

// scramBootstrap derives the --add-scram credentials, each with a fresh
// salt.
func scramBootstrap(specs []string) ([]*cluster.ScramCredential, error) {
	var out []*cluster.ScramCredential
	for _, spec := range specs {
		user, pass, mech, iter, err := cluster.ParseScramSpec(spec)
		if err != nil {
			return nil, fmt.Errorf("--add-scram %w", err)
		}
		salt := make([]byte, 32)
		_, _ = rand.Read(salt)
		h := cluster.ScramHash(mech)
		salted, err := pbkdf2.Key(h, pass, salt, int(iter), h().Size())
		if err != nil {
			return nil, fmt.Errorf("--add-scram: %w", err)
		}
		out = append(out, cluster.NewScramCredential(user, mech, salt, salted, iter))
	}
	return out, nil
}

// bootstrapScram adds the --add-scram credentials to a single broker; a
// cluster's controller writes them (startCluster).
func (s *Server) bootstrapScram(creds []*cluster.ScramCredential) error {
	if s.e.cl != nil {
		return nil
	}
	for _, c := range creds {
		added, err := s.e.b.BootstrapScram(c)
		if err != nil {
			return err
		}
		if added {
			s.cfg.Logf("added a %s credential for %s", cluster.MechanismName(c.Mechanism), c.Name)
		}
	}
	return nil
}
