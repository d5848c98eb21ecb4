//go:build noquorum

package broker

import "github.com/twmb/franz-go/pkg/kmsg"

// The single-broker browser bundle (-tags noquorum) has no cluster, so
// no request is forwarded and no Envelope is sent or received; leaving
// envelope.go and the forwardable codecs (core/wire) out keeps their
// encoders out of the bundle. forwardUntil and an enveloped request are
// never reached there: a request would go as it is.

type enveloped struct{}

func (b *Broker) forwards(*Request) bool { return false }

func seal(r Request) kmsg.Request { return r.Msg }

func unseal(kmsg.Request, *kmsg.EnvelopeResponse) kmsg.Response { return nil }

func (*enveloped) wrap(msg kmsg.Response) kmsg.Response { return msg }
