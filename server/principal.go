package server

import (
	"crypto/tls"
)

// Principals as Kafka's DefaultKafkaPrincipalBuilder makes them: on a
// SASL listener User:<the authenticated user>; on an SSL listener with a
// verified client certificate User:<its subject's distinguished name>
// (CN=alice,O=Example); otherwise User:ANONYMOUS. ACLs name these.

// anonymous is the principal of a client that did not authenticate.
const anonymous = "User:ANONYMOUS"

// principal is the connection's principal, fixed once known.
func (c *conn) principal() string {
	if c.who != "" {
		return c.who
	}
	switch t, _ := c.nc.(*tls.Conn); {
	case c.sasl != nil:
		if c.sasl.user == "" {
			return anonymous // not authenticated yet: only ApiVersions passes
		}
		c.who = "User:" + c.sasl.user
	case t != nil:
		c.who = certPrincipal(t.ConnectionState())
	default:
		c.who = anonymous
	}
	return c.who
}

// certPrincipal is the principal of a TLS connection: User:<the subject
// of its verified client certificate>, else User:ANONYMOUS.
func certPrincipal(cs tls.ConnectionState) string {
	if len(cs.VerifiedChains) > 0 && len(cs.VerifiedChains[0]) > 0 {
		return "User:" + cs.VerifiedChains[0][0].Subject.String()
	}
	return anonymous
}
