//go:build !js

package log

import "crypto/md5"

// offsetKey is the offset map's key for a record key: its MD5, as Kafka's
// SkimpyOffsetMap keeps, 16 bytes whatever the key's length.
type offsetKey = [md5.Size]byte

func keyHash(k []byte) offsetKey { return md5.Sum(k) }
