package cli

import (
	"crypto/tls"
	"crypto/x509"
	"flag"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"

	"github.com/gregor-kafka/gregor/core/config"
)

// connKeys are the -X settings, named as rpk names them.
var connKeys = map[string]string{
	"brokers":        "HOST:PORT,... to bootstrap from (default: $GREGOR_BROKERS, else 127.0.0.1:9092)",
	"sasl.mechanism": "PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512",
	"user":           "the SASL user",
	"pass":           "the SASL password",
	"tls.enabled":    "true to connect with TLS",
	"tls.ca":         "a PEM file of the CAs the brokers' certificates chain to (default: the system's)",
	"tls.cert":       "a PEM client certificate, for mutual TLS",
	"tls.key":        "the PEM key of tls.cert",
}

// connFlags are how a command reaches the cluster: -X key=value flags,
// then a --profile file of the same keys, then $GREGOR_BROKERS.
type connFlags struct {
	x       map[string]string
	profile string
	brokers []string
}

func (c *connFlags) register(fs *flag.FlagSet) {
	c.x = map[string]string{}
	fs.Func("X", "a connection setting key=value, repeatable: "+strings.Join(slices.Sorted(maps.Keys(connKeys)), ", "), func(s string) error {
		k, v, ok := strings.Cut(s, "=")
		if _, known := connKeys[k]; !known {
			return fmt.Errorf("unknown key %q; want one of %s", k, strings.Join(slices.Sorted(maps.Keys(connKeys)), ", "))
		}
		if !ok {
			return fmt.Errorf("want %s=VALUE", k)
		}
		c.x[k] = v
		return nil
	})
	fs.StringVar(&c.profile, "profile", "", "a properties file of -X keys (key=value lines); -X wins")
}

// opts resolves the settings into kgo options.
func (c *connFlags) opts() ([]kgo.Opt, error) {
	set := map[string]string{}
	if c.profile != "" {
		raw, err := os.ReadFile(c.profile)
		if err != nil {
			return nil, usagef("--profile: %v", err)
		}
		props, err := config.ParseProperties(string(raw))
		if err != nil {
			return nil, usagef("--profile %s: %v", c.profile, err)
		}
		for k, v := range props {
			if _, ok := connKeys[k]; !ok {
				return nil, usagef("--profile %s: unknown key %q (want %s)", c.profile, k, strings.Join(slices.Sorted(maps.Keys(connKeys)), ", "))
			}
			set[k] = v
		}
	}
	maps.Copy(set, c.x)
	brokers := set["brokers"]
	if brokers == "" {
		brokers = os.Getenv("GREGOR_BROKERS")
	}
	if brokers == "" {
		brokers = "127.0.0.1:9092"
	}
	c.brokers = strings.Split(brokers, ",")
	opts := []kgo.Opt{kgo.SeedBrokers(c.brokers...), kgo.DialTimeout(5 * time.Second), kgo.ClientID("gregor-cli")}
	if m, err := mechanism(set); err != nil {
		return nil, err
	} else if m != nil {
		opts = append(opts, kgo.SASL(m))
	}
	if cfg, err := tlsConfig(set); err != nil {
		return nil, err
	} else if cfg != nil {
		opts = append(opts, kgo.DialTLSConfig(cfg))
	}
	return opts, nil
}

func mechanism(set map[string]string) (sasl.Mechanism, error) {
	user, pass := set["user"], set["pass"]
	switch m := set["sasl.mechanism"]; m {
	case "":
		if user != "" || pass != "" {
			return nil, usagef("-X user and -X pass need -X sasl.mechanism (PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512)")
		}
		return nil, nil
	case "PLAIN":
		return plain.Auth{User: user, Pass: pass}.AsMechanism(), nil
	case "SCRAM-SHA-256":
		return scram.Auth{User: user, Pass: pass}.AsSha256Mechanism(), nil
	case "SCRAM-SHA-512":
		return scram.Auth{User: user, Pass: pass}.AsSha512Mechanism(), nil
	default:
		return nil, usagef("-X sasl.mechanism=%s: want PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512", m)
	}
}

func tlsConfig(set map[string]string) (*tls.Config, error) {
	on := set["tls.enabled"] == "true" || set["tls.ca"] != "" || set["tls.cert"] != ""
	if v := set["tls.enabled"]; v != "" && v != "true" && v != "false" {
		return nil, usagef("-X tls.enabled=%s: want true or false", v)
	}
	if !on {
		return nil, nil
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if ca := set["tls.ca"]; ca != "" {
		pem, err := os.ReadFile(ca)
		if err != nil {
			return nil, usagef("-X tls.ca: %v", err)
		}
		cfg.RootCAs = x509.NewCertPool()
		if !cfg.RootCAs.AppendCertsFromPEM(pem) {
			return nil, usagef("-X tls.ca=%s: no PEM certificate in it", ca)
		}
	}
	if cert, key := set["tls.cert"], set["tls.key"]; cert != "" || key != "" {
		pair, err := tls.LoadX509KeyPair(cert, key)
		if err != nil {
			return nil, usagef("-X tls.cert and tls.key: %v", err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	return cfg, nil
}
