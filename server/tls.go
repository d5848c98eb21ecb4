package server

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
)

// TLSSettings are the SSL settings under Kafka's names, for PEM files
// (Kafka's ssl.keystore.type=PEM and ssl.truststore.type=PEM, KIP-651):
//
//   - ssl.keystore.location: the server's certificate chain and its
//     private key, PEM blocks in one file (an unencrypted key).
//   - ssl.truststore.location: the CA certificates a client certificate
//     must chain to (mutual TLS).
//   - ssl.client.auth: none (default), requested, or required. With
//     required a client without a certificate signed by the truststore
//     is refused during the handshake.
type TLSSettings struct {
	Keystore   string
	Truststore string
	ClientAuth string
}

// LoadTLS builds the server side of the SSL and SASL_SSL listeners; nil
// when no keystore is set. TLS 1.2 is the least version served, as in
// Kafka 3.x (ssl.enabled.protocols=TLSv1.2,TLSv1.3).
func LoadTLS(s TLSSettings) (*tls.Config, error) {
	if s.Keystore == "" {
		if s.Truststore != "" || s.ClientAuth != "" {
			return nil, errors.New("ssl.truststore.location and ssl.client.auth need ssl.keystore.location")
		}
		return nil, nil
	}
	pemBytes, err := os.ReadFile(s.Keystore)
	if err != nil {
		return nil, fmt.Errorf("ssl.keystore.location: %w", err)
	}
	cert, err := tls.X509KeyPair(pemBytes, pemBytes)
	if err != nil {
		return nil, fmt.Errorf("ssl.keystore.location %s: want the certificate chain and an unencrypted private key as PEM blocks: %w", s.Keystore, err)
	}
	cfg := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	switch s.ClientAuth {
	case "", "none":
		cfg.ClientAuth = tls.NoClientCert
	case "requested":
		cfg.ClientAuth = tls.VerifyClientCertIfGiven
	case "required":
		cfg.ClientAuth = tls.RequireAndVerifyClientCert
	default:
		return nil, fmt.Errorf("ssl.client.auth: %q: want none, requested or required", s.ClientAuth)
	}
	if s.Truststore != "" {
		raw, err := os.ReadFile(s.Truststore)
		if err != nil {
			return nil, fmt.Errorf("ssl.truststore.location: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(raw) {
			return nil, fmt.Errorf("ssl.truststore.location %s: no PEM certificate in it", s.Truststore)
		}
		cfg.ClientCAs = pool
	} else if cfg.ClientAuth != tls.NoClientCert {
		return nil, errors.New("ssl.client.auth needs ssl.truststore.location: the CAs client certificates must chain to")
	}
	return cfg, nil
}
