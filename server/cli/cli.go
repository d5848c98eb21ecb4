// Package cli is gregor's client side: the subcommands that operate any
// Kafka-compatible cluster (a Gregor broker, Kafka, Redpanda), in rpk's
// shape and with Kafka's names, on franz-go's kgo and kadm.
//
//	gregor topic create orders -p 3
//	gregor topic produce orders          # one record per line of stdin
//	gregor topic consume orders -n 10
//	gregor group describe billing        # lag per partition
//	gregor cluster info
//
// Every read takes --format json. The exit code says what happened, so
// that scripts can rely on it (Exit*).
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Exit codes.
const (
	ExitOK = 0
	// ExitRefused: the cluster answered, and refused at least one of the
	// things asked (each is reported on its own line).
	ExitRefused = 1
	// ExitUsage: the command line is wrong (an unknown command or flag,
	// a missing argument, a malformed value).
	ExitUsage = 2
	// ExitUnreachable: no broker could be reached (every dial failed, or
	// none took a request before --timeout).
	ExitUnreachable = 3
	// ExitTimeout: a broker took a request but did not answer it before
	// --timeout.
	ExitTimeout = 4
)

// defaultTimeout bounds every command's requests: long enough for one
// broker to create 10,000 partitions (47 to 90 s on a loaded two-core
// machine).
const defaultTimeout = 5 * time.Minute

// Nouns are the command groups, by name.
var nouns = map[string]map[string]func(*env) error{
	"topic":    topicVerbs,
	"group":    groupVerbs,
	"cluster":  clusterVerbs,
	"security": securityVerbs,
}

// Usage is the client side's part of gregor's help.
const Usage = `       gregor topic   create|list|describe|alter-config|add-partitions|delete|trim-prefix|produce|consume
       gregor group   list|describe|seek|delete
       gregor cluster info|config
       gregor security user create|delete|list, acl create|list|delete

Client commands operate any Kafka-compatible cluster: -X brokers=HOST:PORT,...
(or GREGOR_BROKERS; default 127.0.0.1:9092), -X sasl.mechanism=SCRAM-SHA-256
-X user=NAME -X pass=SECRET, -X tls.enabled=true -X tls.ca=FILE, or a
--profile FILE holding those keys one per line as key=value. Reads take
--format json. --timeout (default 5m) bounds every request. Exit codes: 0 done,
1 the cluster refused something, 2 a wrong command line, 3 no broker
reachable, 4 a broker did not answer within --timeout. gregor NOUN VERB
--help says more.
`

// Nouns reports whether name is a client command group.
func Nouns(name string) bool { _, ok := nouns[name]; return ok }

// Run runs one client command (args[0] is the noun) and returns its exit
// code; the output goes to stdout, errors to stderr, input comes from
// stdin.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr}
	err := e.run(args)
	if e.cl != nil {
		e.cancel()
		e.cl.Close()
	}
	code := e.code
	switch {
	case errors.Is(err, flag.ErrHelp):
		return ExitOK
	case err == nil:
	case isUsage(err):
		fmt.Fprintf(stderr, "gregor: %v\n", err)
		return ExitUsage
	case isTimeout(err) && e.watch.took():
		if req, ok := e.watch.oldestUnanswered(); ok {
			fmt.Fprintf(stderr, "gregor: %s timed out after %v waiting for %s; raise --timeout\n", req.name(), e.timeout, req.broker)
		} else {
			fmt.Fprintf(stderr, "gregor: timed out after %v: the cluster answered but did not finish (%v); raise --timeout\n", e.timeout, err)
		}
		return ExitTimeout
	case isUnreachable(err), isTimeout(err):
		if errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("none took a request within %v (--timeout)", e.timeout)
		}
		fmt.Fprintf(stderr, "gregor: no broker reachable at %s: %v\n", strings.Join(e.conn.brokers, ","), err)
		return ExitUnreachable
	default:
		fmt.Fprintf(stderr, "gregor: %v\n", err)
		code = ExitRefused
	}
	return code
}

// env is one command's run: its streams, flags and client.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	fs             *flag.FlagSet
	conn           connFlags
	format         string
	timeout        time.Duration
	rest           []string // the command line after the verb
	args           []string // its positional arguments, once parsed
	cl             *kgo.Client
	adm            *kadm.Client
	cancel         context.CancelFunc // ends the context client returned
	watch          watch              // the client's requests, for a timeout's message
	code           int                // ExitRefused once something was refused
}

func (e *env) run(args []string) error {
	verbs := nouns[args[0]]
	if len(args) < 2 || args[1] == "-h" || args[1] == "--help" {
		fmt.Fprintf(e.stdout, "Usage: gregor %s %s [flags]\n", args[0], strings.Join(sortedKeys(verbs), "|"))
		return flag.ErrHelp
	}
	verb, ok := verbs[args[1]]
	if !ok {
		return usagef("unknown command %q (try: gregor %s --help)", args[0]+" "+args[1], args[0])
	}
	e.fs = flag.NewFlagSet("gregor "+args[0]+" "+args[1], flag.ContinueOnError)
	e.fs.SetOutput(io.Discard) // a wrong flag is one line on stderr; --help prints the usage
	e.conn.register(e.fs)
	e.fs.DurationVar(&e.timeout, "timeout", defaultTimeout, "how long every request may wait for the cluster's answer")
	e.rest = args[2:]
	return verb(e)
}

// parse parses the command's flags (they may come before, after or
// between its arguments, as rpk takes them) and checks how many
// arguments it has.
func (e *env) parse(minArgs, maxArgs int, argsHelp string) error {
	rest := e.rest
	for {
		if err := e.fs.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fmt.Fprintf(e.stdout, "Usage: %s %s [flags]\n\nFlags:\n", e.fs.Name(), argsHelp)
				e.fs.SetOutput(e.stdout)
				e.fs.PrintDefaults()
				return err
			}
			msg := err.Error()
			if f, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok {
				msg = "unknown flag " + f
			}
			return usagef("%s (see %s --help)", msg, e.fs.Name())
		}
		if e.fs.NArg() == 0 {
			break
		}
		e.args = append(e.args, e.fs.Arg(0))
		rest = e.fs.Args()[1:]
	}
	if len(e.args) < minArgs || maxArgs >= 0 && len(e.args) > maxArgs {
		return usagef("want %s (see %s --help)", argsHelp, e.fs.Name())
	}
	switch e.format {
	case "", "text", "json":
	default:
		return usagef("--format %s: want text or json", e.format)
	}
	return nil
}

// withFormat adds --format to a read command.
func (e *env) withFormat() { e.fs.StringVar(&e.format, "format", "text", "text or json") }

// open parses the command line, then connects (parse, client).
func (e *env) open(minArgs, maxArgs int, argsHelp string) (*kadm.Client, context.Context, error) {
	if err := e.parse(minArgs, maxArgs, argsHelp); err != nil {
		return nil, nil, err
	}
	return e.client()
}

// client connects (lazily: kgo dials on the first request) and returns
// the admin client and a context that ends after --timeout.
func (e *env) client(extra ...kgo.Opt) (*kadm.Client, context.Context, error) {
	opts, err := e.conn.opts()
	if err != nil {
		return nil, nil, err
	}
	if e.timeout <= 0 {
		return nil, nil, usagef("--timeout %v: want a duration above 0 (e.g. 30s, 10m)", e.timeout)
	}
	// kgo's own bounds (10 s to read an answer, 30 s of retries) would
	// end a slow request before --timeout does; kgo takes a read bound
	// of 100 ms to 15 minutes.
	overhead := min(max(e.timeout, 100*time.Millisecond), 15*time.Minute)
	opts = append(opts, kgo.RequestTimeoutOverhead(overhead), kgo.RetryTimeout(e.timeout), kgo.WithHooks(&e.watch))
	e.cl, err = kgo.NewClient(append(opts, extra...)...)
	if err != nil {
		return nil, nil, usagef("%v", err)
	}
	e.adm = kadm.NewClient(e.cl)
	e.adm.SetTimeoutMillis(int32(e.timeout.Milliseconds()))
	ctx, cancel := e.timeoutCtx()
	e.cancel = cancel
	return e.adm, ctx, nil
}

// timeoutCtx is a context that ends after --timeout.
func (e *env) timeoutCtx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), e.timeout)
}

// refused reports one refused item and remembers to exit with
// ExitRefused.
func (e *env) refused(what string, err error, msg string) {
	e.code = ExitRefused
	if msg != "" {
		fmt.Fprintf(e.stderr, "gregor: %s: %v: %s\n", what, err, msg)
		return
	}
	fmt.Fprintf(e.stderr, "gregor: %s: %v\n", what, err)
}

type usageError struct{ msg string }

func (u usageError) Error() string { return u.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

func isUsage(err error) bool { var u usageError; return errors.As(err, &u) }

// isTimeout reports an error that says --timeout (or a connection's
// deadline) passed before an answer; a broker's own timeout error (a
// Kafka error code) is a refusal instead.
func isTimeout(err error) bool {
	var ke *kerr.Error
	return errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(err, kgo.ErrRecordTimeout) ||
		errors.Is(err, context.DeadlineExceeded) && !errors.As(err, &ke)
}

// isUnreachable reports a connection that failed: a dial refused or
// unroutable, a connection reset.
func isUnreachable(err error) bool { var op *net.OpError; return errors.As(err, &op) }
