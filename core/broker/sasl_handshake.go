package broker

// SaslHandshake v0-1 (KIP-152): out of place here (sasl.go).
func init() {
	register(17, api{min: 0, max: 1, serve: handleSaslOutOfPlace, acl: noCheck{}})
}
