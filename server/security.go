package server

import (
	"crypto/tls"
	"fmt"
	"slices"
	"strings"
)

// Per-listener security, as Kafka configures it (KIP-103, KIP-86): a
// setting of a listener is listener.name.<lower-case listener
// name>.<setting> when given, else the broker-wide <setting>, for the
// listenerKeys below; a listener's JAAS lines exist only prefixed:
//
//	listener.name.client.ssl.client.auth=required
//	listener.name.controller.sasl.enabled.mechanisms=PLAIN
//	listener.name.controller.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required \
//	    username="broker" password="broker-secret" user_broker="broker-secret";
//
// The controller listener (the peer listener: raft, controller requests,
// follower fetches) may be SASL_PLAINTEXT or SASL_SSL: a dialing node
// authenticates with sasl.mechanism.controller.protocol (or its synonym
// here, sasl.mechanism.inter.broker.protocol: both kinds of traffic share
// the one link) and the username and password of that mechanism's JAAS
// line on the controller listener; the accepting node checks PLAIN
// against the user_<name> entries of the same line and SCRAM against the
// credentials of the metadata, or, until the metadata has the user's
// credential, against those this node was started with (--add-scram):
// raft needs authenticated links before it can replicate a single
// credential, so, as with Kafka's kafka-storage format --add-scram
// (KIP-900), every node is given the inter-broker credential at startup.
//
// Invariants: every listener.name.<name>. key names a configured
// listener; a SASL controller listener has a mechanism and a JAAS line
// with a username and password (PLAIN: and user_ entries), else startup
// fails with an error naming the key.

// listenerKeys are the settings a listener may override.
var listenerKeys = []string{"ssl.keystore.location", "ssl.keystore.type", "ssl.truststore.location", "ssl.truststore.type",
	"ssl.client.auth", "sasl.enabled.mechanisms"}

const listenerPrefix = "listener.name."

// jaasKey is the setting of a mechanism's JAAS line, after the listener
// prefix: plain.sasl.jaas.config, scram-sha-256.sasl.jaas.config, ...
func jaasKey(mech string) string { return strings.ToLower(mech) + ".sasl.jaas.config" }

// ListenerKey reports whether key is a per-listener setting Gregor reads
// (listener.name.<name>.<one of listenerKeys or a JAAS line>); which
// listener it names is checked by ResolveSecurity.
func ListenerKey(key string) bool {
	rest, ok := strings.CutPrefix(key, listenerPrefix)
	if !ok {
		return false
	}
	_, setting, ok := strings.Cut(rest, ".")
	return ok && (slices.Contains(listenerKeys, setting) ||
		slices.ContainsFunc(served, func(m string) bool { return setting == jaasKey(m) }))
}

// setting resolves key for the named listener: its value and the key it
// came from (for errors), the prefixed one first.
func setting(props map[string]string, listener, key string) (string, string) {
	if k := listenerPrefix + strings.ToLower(listener) + "." + key; props[k] != "" {
		return props[k], k
	}
	return props[key], key
}

// Security is how one listener secures its connections.
type Security struct {
	// TLS serves an SSL or SASL_SSL listener.
	TLS *tls.Config
	// Mechanisms (sasl.enabled.mechanisms) are offered on a SASL
	// listener. PlainUsers are the user_<name> entries of its PLAIN JAAS
	// line; nil: PLAIN passwords are checked against SCRAM credentials.
	Mechanisms []string
	PlainUsers map[string]string
}

// PeerSecurity secures the links between nodes (the controller
// listener): Accept is the listening side, the rest the dialing side.
type PeerSecurity struct {
	Listener string
	Accept   Security
	// DialTLS: nil dials in plaintext. Mechanism: empty dials without
	// SASL; else User and Password authenticate this node.
	DialTLS                   *tls.Config
	Mechanism, User, Password string
}

// ResolveSecurity resolves the security of every client listener (by
// name) and of the controller listener ctl (nil when there is none or it
// is PLAINTEXT) from the server settings props.
func ResolveSecurity(props map[string]string, client []Listener, ctl Listener) (map[string]Security, *PeerSecurity, error) {
	all := slices.Clone(client)
	if ctl.Addr != "" {
		all = append(all, ctl)
	}
	for k := range props {
		if rest, ok := strings.CutPrefix(k, listenerPrefix); ok {
			name, _, _ := strings.Cut(rest, ".")
			if !slices.ContainsFunc(all, func(l Listener) bool { return strings.ToLower(l.Name) == name }) {
				return nil, nil, fmt.Errorf("%s: %s is not one of the listeners", k, name)
			}
		}
	}
	out := map[string]Security{}
	for _, l := range client {
		sec, _, err := listenerSecurity(props, l, false)
		if err != nil {
			return nil, nil, err
		}
		out[l.Name] = sec
	}
	if ctl.Addr == "" || ctl.Protocol == Plaintext {
		return out, nil, nil
	}
	sec, dial, err := listenerSecurity(props, ctl, true)
	if err != nil {
		return nil, nil, err
	}
	p := &PeerSecurity{Listener: ctl.Name, Accept: sec, DialTLS: dial}
	if ctl.Protocol.SASL() {
		if p.Mechanism, p.User, p.Password, err = peerCredentials(props, ctl, sec.Mechanisms); err != nil {
			return nil, nil, err
		}
	}
	return out, p, nil
}

// listenerSecurity is the accepting side of one listener and, for the
// controller listener (peer) over TLS, the TLS its node dials peers with.
// An SSL controller listener authenticates nodes by certificate: it
// requires theirs (ssl.client.auth=required).
func listenerSecurity(props map[string]string, l Listener, peer bool) (sec Security, dial *tls.Config, err error) {
	get := func(key string) string { v, _ := setting(props, l.Name, key); return v }
	if l.Protocol.TLS() {
		for _, k := range []string{"ssl.keystore.type", "ssl.truststore.type"} {
			if v, key := setting(props, l.Name, k); v != "" && v != "PEM" {
				return sec, nil, fmt.Errorf("%s=%s: only PEM files are read", key, v)
			}
		}
		ts := TLSSettings{Keystore: get("ssl.keystore.location"), Truststore: get("ssl.truststore.location"), ClientAuth: get("ssl.client.auth")}
		if peer && l.Protocol == SSL {
			ts.ClientAuth = "required"
		}
		if peer && (ts.Keystore == "" || ts.Truststore == "") {
			return sec, nil, fmt.Errorf("controller listener %s is %s: set ssl.keystore.location and ssl.truststore.location (or their %s%s. forms): nodes present their certificates and verify their peers'",
				l.Name, l.Protocol, listenerPrefix, strings.ToLower(l.Name))
		}
		if sec.TLS, err = LoadTLS(ts); err != nil {
			return sec, nil, fmt.Errorf("listener %s: %w", l.Name, err)
		}
		if sec.TLS == nil {
			return sec, nil, fmt.Errorf("listener %s is %s: set ssl.keystore.location or %s%s.ssl.keystore.location (a PEM file of the certificate chain and key)",
				l.Name, l.Protocol, listenerPrefix, strings.ToLower(l.Name))
		}
		if peer {
			dial = &tls.Config{Certificates: sec.TLS.Certificates, RootCAs: sec.TLS.ClientCAs, MinVersion: tls.VersionTLS12}
		}
	}
	if !l.Protocol.SASL() {
		return sec, dial, nil
	}
	sec.Mechanisms = Mechanisms
	if v, key := setting(props, l.Name, "sasl.enabled.mechanisms"); v != "" {
		sec.Mechanisms = splitList(v)
		for _, m := range sec.Mechanisms {
			if !slices.Contains(served, m) {
				return sec, nil, fmt.Errorf("%s: %s is not served (%s are)", key, m, strings.Join(served, ", "))
			}
		}
	}
	if v, key := setting(props, l.Name, jaasKey(oauthMechanism)); strings.Contains(v, "unsecuredValidator") {
		return sec, nil, fmt.Errorf("%s: Gregor validates OAUTHBEARER tokens as Kafka's unsecured validator does with its defaults (principal claim sub, no required scope, no clock skew); its unsecuredValidator options are not read", key)
	}
	if v, key := setting(props, l.Name, jaasKey("PLAIN")); v != "" {
		j, err := parseJAAS(key, v, "PLAIN")
		if err != nil {
			return sec, nil, err
		}
		sec.PlainUsers = j.users
	}
	return sec, dial, nil
}

// peerCredentials are the mechanism, username and password a node
// authenticates to its peers with on a SASL controller listener.
func peerCredentials(props map[string]string, l Listener, enabled []string) (mech, user, pass string, err error) {
	mech, key := props["sasl.mechanism.controller.protocol"], "sasl.mechanism.controller.protocol"
	if ib := props["sasl.mechanism.inter.broker.protocol"]; mech == "" {
		mech, key = ib, "sasl.mechanism.inter.broker.protocol"
	} else if ib != "" && ib != mech {
		return "", "", "", fmt.Errorf("sasl.mechanism.controller.protocol=%s and sasl.mechanism.inter.broker.protocol=%s differ: both travel on the controller listener %s, give one mechanism", mech, ib, l.Name)
	}
	switch {
	case mech == "":
		return "", "", "", fmt.Errorf("controller listener %s is %s: set sasl.mechanism.controller.protocol (PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512), the mechanism nodes authenticate each other with", l.Name, l.Protocol)
	case mech == oauthMechanism:
		return "", "", "", fmt.Errorf("%s=%s: nodes authenticate each other with PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512", key, mech)
	case !slices.Contains(enabled, mech):
		return "", "", "", fmt.Errorf("%s=%s: not among the mechanisms of listener %s (%s)", key, mech, l.Name, strings.Join(enabled, ", "))
	}
	jkey := listenerPrefix + strings.ToLower(l.Name) + "." + jaasKey(mech)
	if props[jkey] == "" {
		return "", "", "", fmt.Errorf("controller listener %s is %s with %s: set %s (the username and password this node authenticates with)", l.Name, l.Protocol, mech, jkey)
	}
	j, err := parseJAAS(jkey, props[jkey], mech)
	switch {
	case err != nil:
		return "", "", "", err
	case j.user == "" || j.password == "":
		return "", "", "", fmt.Errorf(`%s: want username="..." and password="...": this node authenticates to its peers with them`, jkey)
	case mech == "PLAIN" && len(j.users) == 0:
		return "", "", "", fmt.Errorf(`%s: want user_<name>="<password>" entries: the nodes' PLAIN passwords are checked against them`, jkey)
	}
	return mech, j.user, j.password, nil
}
