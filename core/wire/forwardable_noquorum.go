//go:build noquorum

package wire

// forwardable is empty in the single-broker bundle: without a cluster
// nothing is forwarded, and no Envelope is sent or received.
var forwardable = map[int16]codec{}
