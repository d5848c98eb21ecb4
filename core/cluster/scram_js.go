//go:build js

package cluster

// In the browser and Workers builds a credential keeps no keys: no
// simulated client alters SCRAM credentials or authenticates with SASL
// (the keys' one reader, the native server's SCRAM exchange, is not in
// them), and DescribeUserScramCredentials shows mechanisms and
// iterations only. Without HMAC the bundles leave out crypto/hmac and,
// with it, SHA-512, SHA-3 and the AES DRBG that Go's FIPS module brings.

// NewScramCredential records a credential without its keys.
func NewScramCredential(name string, mech int8, salt, _ []byte, iterations int32) *ScramCredential {
	return &ScramCredential{Name: name, Mechanism: mech, Salt: salt, Iterations: iterations}
}
