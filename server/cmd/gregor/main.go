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
	"strings"
	"syscall"

	"github.com/gregor-kafka/gregor"
	"github.com/gregor-kafka/gregor/core/config"
	"github.com/gregor-kafka/gregor/server"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(os.Stderr, "gregor: %v\n", err)
			os.Exit(2)
		}
	}
}

const usage = `Usage: gregor serve [flags]

Runs a Kafka broker: clients connect to --kafka-addr with Kafka's wire
protocol; --http-addr serves the web UI. Broker settings use Kafka's names,
as flags or in a properties file (--config); flags win over the file.
`

func run(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(stdout, usage)
		return nil
	}
	if args[0] != "serve" {
		return fmt.Errorf("unknown command %q (try: gregor serve --help)", args[0])
	}
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
	operatorToken := fs.String(operatorTokenKey, "", "the token a client beyond loopback needs to watch /live and open a class (default: a fresh one, printed at startup)")
	settings := map[string]*string{}
	for _, d := range config.BrokerDefs() {
		settings[d.Name] = fs.String(d.Name, "", brokerHelp(d))
	}
	for _, d := range config.TopicDefs() {
		if _, dup := settings[d.Name]; !dup {
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
	token := ""
	if *propsFile != "" {
		if err := loadProperties(b, *propsFile, &token, logger); err != nil {
			return err
		}
	}
	var setErr error
	fs.Visit(func(f *flag.Flag) {
		if p, ok := settings[f.Name]; ok && setErr == nil {
			setErr = b.SetStatic(f.Name, *p)
		}
		if f.Name == operatorTokenKey {
			token = *operatorToken
		}
	})
	if setErr == nil && *nodeID != "" {
		setErr = b.SetStatic("node.id", *nodeID)
	}
	if setErr != nil {
		return setErr
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
		return fmt.Errorf("--controller-addr needs --controller-quorum")
	}
	var peers map[int32]string
	if *httpPeers != "" {
		var err error
		if peers, err = server.ParseNodes("http peers", *httpPeers); err != nil {
			return err
		}
	}
	srv, err := server.Start(server.Config{
		KafkaAddr: *kafkaAddr, HTTPAddr: *httpAddr, DataDir: *dataDir,
		Settings: b, IndexHTML: gregor.IndexHTML, Assets: gregor.Assets(), Logf: logger.Printf,
		ControllerQuorum: voters, ControllerAddr: *controllerAddr, OperatorToken: token,
		HTTPPeers: peers,
	})
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return srv.Run(ctx)
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

// operatorTokenKey is the web UI's operator token (package server/access),
// a setting of the HTTP server rather than of the broker.
const operatorTokenKey = "http.operator.token"

// loadProperties applies a properties file, and reads the operator token
// into token. Keys Gregor does not know (a full Kafka server.properties
// has many) are logged and skipped.
func loadProperties(b *config.Broker, path string, token *string, logger *log.Logger) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("config file: %w", err)
	}
	props, err := config.ParseProperties(string(raw))
	if err != nil {
		return fmt.Errorf("config file %s: %w", path, err)
	}
	if v, ok := props[operatorTokenKey]; ok {
		*token = v
		delete(props, operatorTokenKey)
	}
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		err := b.SetStatic(k, props[k])
		if errors.Is(err, config.ErrUnknown) {
			logger.Printf("config file %s: ignoring %s (not a setting Gregor knows)", path, k)
			continue
		}
		if err != nil {
			return fmt.Errorf("config file %s: %w", path, err)
		}
	}
	return nil
}
