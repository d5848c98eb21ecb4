package broker

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// SaslHandshake v0-1 and SaslAuthenticate v0-2 (KIP-152). On a SASL
// listener the native server authenticates a connection itself before any
// request reaches the broker (server/sasl.go); a SASL request that reaches
// the broker came on a listener without SASL, or after authentication,
// and is answered ILLEGAL_SASL_STATE, as Kafka answers it.

func handleSaslOutOfPlace(b *Broker, r *Request) kmsg.Response {
	resp := r.Msg.ResponseKind()
	msg := "SASL is not expected here: the listener has no SASL, or the connection is authenticated"
	switch x := resp.(type) {
	case *kmsg.SASLHandshakeResponse:
		x.ErrorCode = kerr.IllegalSaslState.Code
	case *kmsg.SASLAuthenticateResponse:
		x.ErrorCode, x.ErrorMessage = kerr.IllegalSaslState.Code, &msg
	}
	return resp
}
