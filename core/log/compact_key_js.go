//go:build js

package log

// In the browser and Workers builds the offset map keys a record by its
// key itself: the simulator's keys are a few bytes, and MD5 alone would
// keep crypto/md5 and, with it, Go's FIPS module (AES, SHA-3, a DRBG) in
// the bundles. The map tells apart every two keys MD5 tells apart (and
// the two an MD5 collision would confuse), so a pass keeps the same
// records.
type offsetKey = string

func keyHash(k []byte) offsetKey { return string(k) }
