// Command gregor runs a Kafka-compatible broker.
//
//	gregor serve --kafka-addr 127.0.0.1:9092 --http-addr 127.0.0.1:8080 --data-dir ./data
//
// One broker of a three-node cluster (each node a broker and a voter of the
// metadata quorum, KRaft's combined mode):
//
//	gregor serve --node-id 1 --kafka-addr 127.0.0.1:9092 --http-addr 127.0.0.1:8080 \
//	  --controller-addr 127.0.0.1:9192 \
//	  --controller-quorum 1@127.0.0.1:9192,2@127.0.0.1:9193,3@127.0.0.1:9194 --data-dir ./data/1
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/gregor-kafka/gregor"
	"github.com/gregor-kafka/gregor/core/cluster"
	"github.com/gregor-kafka/gregor/core/config"
	"github.com/gregor-kafka/gregor/server"
	"github.com/gregor-kafka/gregor/server/cli"
)

func main() {
	if len(os.Args) > 1 && cli.Nouns(os.Args[1]) {
		os.Exit(cli.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(os.Stderr, "gregor: %v\n", err)
			os.Exit(2)
		}
	}
}

const usage = `Usage: gregor serve [flags]
       gregor site [--out DIR] [--root /PATH/]
` + cli.Usage + `
serve runs a Kafka broker: clients connect to --kafka-addr with Kafka's wire
protocol; --http-addr serves the web UI. Broker settings use Kafka's names,
as flags or in a properties file (--config); flags win over the file.

site writes the playground as static files (every lesson in every language,
the playground, the browser build) that any static host serves as they are.
`

func run(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(stdout, usage)
		return nil
	}
	if args[0] == "site" {
		return runSite(args[1:], stdout)
	}
	if args[0] != "serve" {
		return fmt.Errorf("unknown command %q (try: gregor --help)", args[0])
	}
	// Signals are caught from the start: the Kafka port accepts inside
	// server.Start, and a SIGINT that arrives between then and Run must
	// still shut the broker down cleanly, not kill it half-started.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	kafkaAddr := fs.String("kafka-addr", "127.0.0.1:9092", "address the Kafka protocol listens on (and is advertised)")
	httpAddr := fs.String("http-addr", "127.0.0.1:8080", "address the web UI listens on")
	httpPeers := fs.String("http-peers", "", "in a cluster, every node's --http-addr as id@host:port,... (as --controller-quorum), for /live's links between replicas")
	dataDir := fs.String("data-dir", "./data", "directory holding the logs (Kafka's log.dirs)")
	propsFile := fs.String("config", "", "a Kafka-style .properties file of broker settings")
	nodeID := fs.String("node-id", "", "this node's id (Kafka's node.id); alias of --node.id")
	controllerAddr := fs.String("controller-addr", "", "address the metadata quorum and peer brokers listen on (default: this node's entry in --controller-quorum)")
	controllerQuorum := fs.String("controller-quorum", "", "run as one broker of a cluster: every voter as id@host:port,... (Kafka's controller.quorum.voters)")
	serverFlags := map[string]*string{}
	for _, k := range serverKeys {
		serverFlags[k.name] = fs.String(k.name, "", k.doc)
	}
	settings := map[string]*string{}
	for _, d := range config.BrokerDefs() {
		if !d.Kept { // Kafka's others are for a properties file
			settings[d.Name] = fs.String(d.Name, "", brokerHelp(d))
		}
	}
	for _, d := range config.TopicDefs() {
		if _, dup := settings[d.Name]; !dup && !d.Kept {
			settings[d.Name] = fs.String(d.Name, "", fmt.Sprintf("alias of --%s (topic default)", d.Synonyms[0]))
		}
	}
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(stdout)
			fmt.Fprint(stdout, usage, "\nFlags:\n")
			fs.PrintDefaults()
			return flag.ErrHelp
		}
		return fmt.Errorf("%v (see gregor serve --help)", err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q (see gregor serve --help)", fs.Arg(0))
	}
	logger := log.New(stderr, "", log.LstdFlags)
	b := config.NewBroker()
	sv := map[string]string{} // the server keys' values: file, then flags
	if *propsFile != "" {
		if err := loadProperties(b, *propsFile, sv, logger); err != nil {
			return err
		}
	}
	var setErr error
	kafkaAddrSet := false
	fs.Visit(func(f *flag.Flag) {
		if p, ok := settings[f.Name]; ok && setErr == nil {
			setErr = b.SetStatic(f.Name, *p)
		}
		if p, ok := serverFlags[f.Name]; ok {
			sv[f.Name] = *p
		}
		kafkaAddrSet = kafkaAddrSet || f.Name == "kafka-addr"
	})
	if setErr == nil && *nodeID != "" {
		setErr = b.SetStatic("node.id", *nodeID)
	}
	if setErr != nil {
		return setErr
	}
	for k, v := range sv { // the server's settings that are Kafka's too, for DescribeConfigs
		if d, ok := config.BrokerDef(k); ok && d.Kept {
			b.Static[k] = v
		}
	}
	if kafkaAddrSet && sv["listeners"] != "" {
		return errors.New("--kafka-addr and listeners both given: --kafka-addr is the simple case of listeners=PLAINTEXT://HOST:PORT, give one")
	}
	listeners, ctl, err := server.ParseListeners(server.ListenerSettings{
		Listeners: sv["listeners"], Advertised: sv["advertised.listeners"], ProtocolMap: sv["listener.security.protocol.map"],
		InterBrokerListener: sv["inter.broker.listener.name"], ControllerListeners: sv["controller.listener.names"],
	}, *kafkaAddr)
	if err != nil {
		return err
	}
	if ctl.Addr != "" {
		if *controllerAddr != "" && *controllerAddr != ctl.Addr {
			return fmt.Errorf("--controller-addr %s and the controller listener %s differ: give one", *controllerAddr, ctl.Addr)
		}
		*controllerAddr = ctl.Addr
	}
	security, peer, err := server.ResolveSecurity(sv, listeners, ctl)
	if err != nil {
		return err
	}
	metricsToken := false
	if v := sv[metricsTokenKey]; v != "" {
		if metricsToken, err = strconv.ParseBool(v); err != nil {
			return fmt.Errorf("%s=%s: want true or false", metricsTokenKey, v)
		}
	}
	metricsOn := true
	if v := sv[metricsEnableKey]; v != "" {
		if metricsOn, err = strconv.ParseBool(v); err != nil {
			return fmt.Errorf("%s=%s: want true or false", metricsEnableKey, v)
		}
	}
	var reauth time.Duration
	if v := sv["connections.max.reauth.ms"]; v != "" {
		ms, err := strconv.ParseInt(v, 10, 64)
		if err != nil || ms < 0 {
			return fmt.Errorf("connections.max.reauth.ms=%s: want a number of milliseconds", v)
		}
		reauth = time.Duration(ms) * time.Millisecond
	}
	var authorizer *cluster.Authorizer
	if sv["authorizer.class.name"] != "" {
		authorizer = &cluster.Authorizer{SuperUsers: splitNonEmpty(sv["super.users"], ";")}
		if v := sv["allow.everyone.if.no.acl.found"]; v != "" {
			if authorizer.AllowIfNoACL, err = strconv.ParseBool(v); err != nil {
				return fmt.Errorf("allow.everyone.if.no.acl.found=%s: want true or false", v)
			}
		}
	}
	var voters map[int32]string
	if *controllerQuorum != "" {
		var err error
		if voters, err = server.ParseQuorum(*controllerQuorum); err != nil {
			return err
		}
		// Several nodes often share a terminal (make cluster).
		logger.SetPrefix(fmt.Sprintf("[node %d] ", b.Int64("node.id")))
	} else if *controllerAddr != "" {
		return fmt.Errorf("--controller-addr (or a controller listener) needs --controller-quorum")
	}
	var peers map[int32]string
	if *httpPeers != "" {
		var err error
		if peers, err = server.ParseNodes("http peers", *httpPeers); err != nil {
			return err
		}
	}
	srv, err := server.Start(server.Config{
		KafkaAddr: *kafkaAddr, Listeners: listeners, Security: security, HTTPAddr: *httpAddr, DataDir: *dataDir,
		Settings: b, IndexHTML: gregor.IndexHTML, Assets: gregor.Assets(), Logf: logger.Printf,
		NoMetrics:        !metricsOn,
		ControllerQuorum: voters, ControllerAddr: *controllerAddr, OperatorToken: sv[operatorTokenKey],
		MetricsNeedToken: metricsToken,
		ConsolePrincipal: sv[consolePrincipalKey],
		ScramBootstrap:   splitNonEmpty(sv["add-scram"], ";"),
		Features:         splitNonEmpty(sv["feature"], ","),
		Authorizer:       authorizer,
		SASLReauth:       reauth,
		Peer:             peer,
		HTTPPeers:        peers,
	})
	if err != nil {
		return err
	}
	return srv.Run(ctx)
}

// splitNonEmpty splits s at sep, dropping blanks.
func splitNonEmpty(s, sep string) []string {
	var out []string
	for _, p := range strings.Split(s, sep) {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func brokerHelp(d config.Def) string {
	def := d.Default
	if len(def) > 12 && strings.Trim(def, "0123456789") == "" {
		def = "max"
	}
	if def == "" {
		return d.Doc
	}
	return fmt.Sprintf("%s (default %s)", d.Doc, def)
}

// operatorTokenKey is the web UI's operator token (package server/access).
const operatorTokenKey = "http.operator.token"

// consolePrincipalKey is who /console acts as (package server/console).
const consolePrincipalKey = "http.console.principal"

// metricsTokenKey guards /metrics like /live.
const metricsTokenKey = "http.metrics.require.token"

// metricsEnableKey turns the Prometheus metrics off.
const metricsEnableKey = "http.metrics.enable"

// serverKeys are settings of the server around the engine (sockets, TLS,
// the web UI) rather than of the broker: flags and properties-file keys
// under Kafka's names, read by the server package.
var serverKeys = []struct{ name, doc string }{
	{operatorTokenKey, "the token a client beyond loopback needs to watch /live and open a class (default: a fresh one, printed at startup)"},
	{consolePrincipalKey, "the Kafka principal the operator's /console acts as, e.g. User:alice: with an authorizer on, its record reads and writes and the topics it creates are checked against that principal's ACLs (default User:ANONYMOUS)"},
	{metricsEnableKey, "false keeps no Prometheus metrics and serves no /metrics (default true); make bench measures what they cost"},
	{metricsTokenKey, "true puts /metrics behind the operator token beyond loopback, as /live is (default false: open, for a Prometheus scraper)"},
	{"listeners", "NAME://host:port,... to listen on, e.g. PLAINTEXT://:9092,SSL://:9093 (default: PLAINTEXT://--kafka-addr)"},
	{"advertised.listeners", "NAME://host:port,... clients are told to use, per listener (default: the bound address)"},
	{"listener.security.protocol.map", "NAME:PROTOCOL,... with PROTOCOL one of PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL (default: the four names map to themselves)"},
	{"inter.broker.listener.name", "the listener brokers use for each other; checked to be one of listeners (peers travel on the controller listener)"},
	{"controller.listener.names", "the listener of listeners that is this node's --controller-addr (raft, controller requests, follower fetches)"},
	{"sasl.enabled.mechanisms", "the SASL mechanisms SASL_PLAINTEXT and SASL_SSL listeners offer (default PLAIN,SCRAM-SHA-256,SCRAM-SHA-512)"},
	{"sasl.mechanism.controller.protocol", "the SASL mechanism nodes authenticate each other with on a SASL controller listener, with the username and password of listener.name.<controller listener>.<mechanism>.sasl.jaas.config"},
	{"sasl.mechanism.inter.broker.protocol", "synonym of sasl.mechanism.controller.protocol (follower fetches travel on the controller listener too); if both are given they must agree"},
	{"connections.max.reauth.ms", "how long a SASL session lasts before the client must re-authenticate on its connection (KIP-368), nodes on a SASL controller listener included; 0 (default): for ever"},
	{"add-scram", "SCRAM credentials to add at startup unless the user has one, as kafka-storage --add-scram: 'SCRAM-SHA-256=[name=admin,password=secret]', several separated by ;. In a cluster also what a node accepts from its peers on a SASL controller listener until the metadata has that user"},
	{"feature", "levels a new data directory (a new cluster) starts with in place of Kafka 4.0's defaults, as kafka-storage format --feature: transaction.version=1, several separated by ,; existing data keeps its levels (change them with UpdateFeatures)"},
	{"authorizer.class.name", "any class name (e.g. org.apache.kafka.metadata.authorizer.StandardAuthorizer) turns on ACL enforcement; empty (default): no ACL is enforced"},
	{"super.users", "principals that pass every ACL check, separated by ; (User:admin;User:ops)"},
	{"allow.everyone.if.no.acl.found", "true allows everyone on a resource that no ACL names (default false)"},
	{"ssl.keystore.location", "PEM file with the server certificate chain and its unencrypted private key, for SSL listeners"},
	{"ssl.keystore.type", "PEM (the only type read)"},
	{"ssl.truststore.location", "PEM file of the CA certificates client certificates must chain to (mutual TLS)"},
	{"ssl.truststore.type", "PEM (the only type read)"},
	{"ssl.client.auth", "none (default), requested or required: whether SSL clients must present a certificate"},
}

// loadProperties applies a properties file, and reads the server keys
// and the per-listener ones (listener.name.<listener>.<setting>,
// server.ListenerKey) into sv. Keys Gregor does not know (a full Kafka
// server.properties has many) are logged and skipped.
func loadProperties(b *config.Broker, path string, sv map[string]string, logger *log.Logger) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("config file: %w", err)
	}
	props, err := config.ParseProperties(string(raw))
	if err != nil {
		return fmt.Errorf("config file %s: %w", path, err)
	}
	for _, k := range serverKeys {
		if v, ok := props[k.name]; ok {
			sv[k.name] = v
			delete(props, k.name)
		}
	}
	keys := make([]string, 0, len(props))
	for k, v := range props {
		if server.ListenerKey(k) {
			sv[k] = v
			continue
		}
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		err := b.SetStatic(k, props[k])
		if errors.Is(err, config.ErrUnknown) {
			logger.Printf("config file %s: ignoring %s (not a Kafka setting)", path, k)
			continue
		}
		if err != nil {
			return fmt.Errorf("config file %s: %w", path, err)
		}
		if d, _ := config.BrokerDef(k); d != nil && d.Kept {
			logger.Printf("config file %s: keeping %s=%s for DescribeConfigs (a Kafka setting Gregor does not act on)", path, k, props[k])
		}
	}
	return nil
}
