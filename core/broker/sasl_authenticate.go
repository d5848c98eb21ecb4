package broker

// SaslAuthenticate v0-2 (KIP-152): out of place here (sasl.go).
func init() {
	register(36, api{min: 0, max: 2, serve: handleSaslOutOfPlace, acl: noCheck{}})
}
