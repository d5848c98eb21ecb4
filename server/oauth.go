package server

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// OAUTHBEARER (KIP-255, RFC 7628), validated as Kafka validates it when a
// listener names no validator of its own: OAuthBearerUnsecuredValidator-
// CallbackHandler, which accepts an unsecured JWS ({"alg":"none"} and no
// signature) whose claims name the principal in "sub" and an expiry in
// "exp" (seconds) that has not passed, and an "iat", if any, that is not
// in the future. It is meant for development, as Kafka's is: a listener
// offers it only when sasl.enabled.mechanisms names it.
//
// A token that fails is answered, as RFC 7628 says, with an error
// challenge ({"status":"invalid_token"}) rather than a failure; the
// client acknowledges it with a single %x01, and the authentication then
// fails with SASL_AUTHENTICATION_FAILED and that challenge as its
// message, as Kafka's OAuthBearerSaslServer does.
const oauthMechanism = "OAUTHBEARER"

// invalidToken is the error challenge of a token that does not validate.
const invalidToken = `{"status":"invalid_token"}`

// oauthStep runs one SaslAuthenticate of OAUTHBEARER at time now.
func (s *saslConn) oauthStep(token []byte, now time.Time) ([]byte, error) {
	if s.oauthErr != "" {
		if !bytes.Equal(token, []byte{1}) {
			return nil, fmt.Errorf("OAUTHBEARER: after an error challenge the client must answer %%x01")
		}
		return nil, fmt.Errorf("%s", s.oauthErr)
	}
	authz, bearer, err := parseOAuthClientFirst(string(token))
	if err != nil {
		return nil, err
	}
	sub, ok := validateUnsecuredJWS(bearer, now)
	if !ok {
		s.oauthErr = invalidToken
		return []byte(invalidToken), nil
	}
	if authz != "" && authz != sub {
		return nil, fmt.Errorf("Authentication failed: Client requested an authorization id (%s) that is different from the token's principal name (%s)", authz, sub)
	}
	s.user = sub
	s.auths++
	return nil, nil
}

// parseOAuthClientFirst reads the client's initial response: a GS2
// header without channel binding ("n," and an optional "a=authzid",
// then ","), then %x01-separated key=value pairs, one of them
// auth=Bearer <token>, ended by %x01%x01.
func parseOAuthClientFirst(msg string) (authz, token string, err error) {
	bad := func(why string) (string, string, error) {
		return "", "", fmt.Errorf("OAUTHBEARER: invalid client first message: %s", why)
	}
	rest, ok := strings.CutPrefix(msg, "n,")
	if !ok {
		return bad("want a GS2 header n,[a=authzid],")
	}
	gs2, kvs, ok := strings.Cut(rest, ",")
	if !ok {
		return bad("the GS2 header does not end")
	}
	if gs2 != "" {
		if authz, ok = strings.CutPrefix(gs2, "a="); !ok {
			return bad("the GS2 header's authorization id is not a=...")
		}
	}
	kvs, ok = strings.CutPrefix(kvs, "\x01")
	if !ok || !strings.HasSuffix(kvs, "\x01\x01") {
		return bad("the key=value pairs are not %x01-separated and ended by %x01%x01")
	}
	for _, kv := range strings.Split(strings.TrimSuffix(kvs, "\x01\x01"), "\x01") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return bad(fmt.Sprintf("%q is not key=value", kv))
		}
		if k == "auth" {
			if token, ok = strings.CutPrefix(v, "Bearer "); !ok {
				return bad("auth is not Bearer <token>")
			}
		}
	}
	if token == "" {
		return bad("no auth=Bearer <token>")
	}
	return authz, token, nil
}

// validateUnsecuredJWS checks an unsecured JWS as Kafka's unsecured
// validator does (no allowable clock skew, principal claim "sub") and
// returns its principal.
func validateUnsecuredJWS(token string, now time.Time) (string, bool) {
	parts := strings.Split(token, ".")
	if len(parts) != 3 || parts[2] != "" {
		return "", false
	}
	var header struct {
		Alg string `json:"alg"`
	}
	var claims struct {
		Sub *string  `json:"sub"`
		Exp *float64 `json:"exp"`
		Iat *float64 `json:"iat"`
	}
	if !decodeJWSPart(parts[0], &header) || header.Alg != "none" || !decodeJWSPart(parts[1], &claims) {
		return "", false
	}
	ms := float64(now.UnixMilli())
	switch {
	case claims.Sub == nil || strings.TrimSpace(*claims.Sub) == "":
		return "", false
	case claims.Exp == nil || ms >= *claims.Exp*1000:
		return "", false
	case claims.Iat != nil && *claims.Iat*1000 > ms:
		return "", false
	}
	return *claims.Sub, true
}

func decodeJWSPart(part string, v any) bool {
	raw, err := base64.RawURLEncoding.DecodeString(part)
	return err == nil && json.Unmarshal(raw, v) == nil
}
