//go:build !js

package cluster

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/sha512"
	"hash"
)

// ScramHash is the hash of a mechanism (nil for an unknown one).
func ScramHash(m int8) func() hash.Hash {
	switch m {
	case ScramSHA256:
		return sha256.New
	case ScramSHA512:
		return sha512.New
	}
	return nil
}

// NewScramCredential derives a credential from a salted password.
func NewScramCredential(name string, mech int8, salt, salted []byte, iterations int32) *ScramCredential {
	h := ScramHash(mech)
	mac := func(key []byte, msg string) []byte {
		m := hmac.New(h, key)
		m.Write([]byte(msg))
		return m.Sum(nil)
	}
	clientKey := mac(salted, "Client Key")
	stored := h()
	stored.Write(clientKey)
	return &ScramCredential{Name: name, Mechanism: mech, Salt: salt, StoredKey: stored.Sum(nil),
		ServerKey: mac(salted, "Server Key"), Iterations: iterations}
}
