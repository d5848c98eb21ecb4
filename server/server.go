package server

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gregor-kafka/gregor/core/broker"
	"github.com/gregor-kafka/gregor/core/cluster"
	"github.com/gregor-kafka/gregor/core/config"
	"github.com/gregor-kafka/gregor/lessons"
	"github.com/gregor-kafka/gregor/server/access"
	"github.com/gregor-kafka/gregor/server/filestore"
	"github.com/gregor-kafka/gregor/server/linkstore"
)

// Config is what `gregor serve` was asked to run.
type Config struct {
	// KafkaAddr (--kafka-addr) is the one PLAINTEXT listener when
	// Listeners is empty; Listeners (listeners.go) are Kafka's
	// listeners with their security protocols and advertised addresses.
	KafkaAddr string
	Listeners []Listener
	// Security secures each listener of Listeners, by name
	// (ResolveSecurity, security.go): TLS for SSL and SASL_SSL, the
	// mechanisms and PLAIN users of SASL ones (nil: all of Mechanisms,
	// PLAIN checked against SCRAM credentials).
	Security map[string]Security
	// SASLReauth (connections.max.reauth.ms) is how long a SASL session
	// lasts before the client must re-authenticate; 0: for ever.
	SASLReauth time.Duration
	// Authorizer (authorizer.class.name, super.users,
	// allow.everyone.if.no.acl.found) enforces the ACLs; nil: none are.
	Authorizer *cluster.Authorizer
	// ScramBootstrap are credentials added at startup when the user has
	// none of that mechanism (--add-scram): by a single broker to its
	// metadata, by a cluster's active controller to the metadata log.
	ScramBootstrap []string
	// Features (--feature name=level) are the feature levels new
	// metadata starts with in place of the release's (KIP-1022,
	// kafka-storage format --feature).
	Features []string
	HTTPAddr string
	DataDir  string
	Settings *config.Broker
	// IndexHTML is the page served at / on the HTTP address.
	IndexHTML []byte
	// Assets is the browser build served under /assets/ (see WebHandler).
	Assets fs.FS
	Logf   func(format string, args ...any)
	// HTTPPeers (--http-peers) is every node's HTTP address, node id ->
	// host:port, so that /live links a partition to the same partition
	// on its other replicas' pages. Nil: no links.
	HTTPPeers map[int32]string
	// ControllerQuorum (--controller-quorum) makes the broker one of a
	// cluster: node id -> controller address of every voter. Nil runs a
	// single broker. ControllerAddr (--controller-addr) is where this
	// node listens for its peers; empty means its entry in the quorum.
	ControllerQuorum map[int32]string
	ControllerAddr   string
	// Peer, when set, secures the links between nodes: mutual TLS (an
	// SSL controller listener) or SASL (SASL_PLAINTEXT, SASL_SSL), as
	// ResolveSecurity made it.
	Peer *PeerSecurity
	// OperatorToken (--http.operator.token) lets a client beyond loopback
	// watch /live and open classes (package access). Empty: Start makes
	// one, and Run prints it.
	OperatorToken string
	// ConsolePrincipal (--http.console.principal) is the Kafka principal
	// the operator's console acts as ("User:alice"): with an authorizer
	// on, its record reads and writes, and the topics it creates, are
	// checked against that principal's ACLs. Empty: User:ANONYMOUS.
	ConsolePrincipal string
	// MetricsNeedToken (--http.metrics.require.token) puts /metrics
	// behind the operator token beyond loopback, as /live is.
	MetricsNeedToken bool
	// NoMetrics (--http.metrics.enable false) keeps no metrics: nothing
	// counted on the engine goroutine, no /metrics.
	NoMetrics bool
}

// Server is a running broker with its listeners.
type Server struct {
	cfg    Config
	e      *engine
	links  *linkstore.Store // the playground's saved links
	kafka  []*kafkaListener
	web    *http.Server
	webLn  net.Listener
	fs     *filestore.FS // the data directory's storage
	unlock func()
	nextID atomic.Uint64
	wg     sync.WaitGroup
	// printToken: the operator token was made here, so Run prints it.
	printToken bool
}

// Start opens the data directory, recovers the logs and binds both
// listeners. Any failure is returned as one descriptive error.
func Start(cfg Config) (*Server, error) {
	s := &Server{cfg: cfg}
	if s.cfg.OperatorToken == "" {
		s.cfg.OperatorToken = access.NewToken()
		s.printToken = true
	}
	unlock, err := lockDataDir(cfg.DataDir)
	if err != nil {
		return nil, err
	}
	s.unlock = unlock
	fail := func(err error) (*Server, error) {
		s.closeListeners()
		unlock()
		return nil, err
	}
	fs, err := filestore.New(cfg.DataDir)
	if err != nil {
		return fail(fmt.Errorf("data directory %s: %w", cfg.DataDir, err))
	}
	if bound, _ := storageDescriptors(); bound > 0 {
		fs.SetMaxOpen(bound)
	}
	s.fs = fs
	armed, err := fs.ArmFromEnv() // test-only
	if err != nil {
		return fail(err)
	}
	for _, f := range armed {
		cfg.Logf("TEST ONLY: storage fault armed from %s: %s", filestore.FaultsEnv, f)
	}
	// The web listener first: once the Kafka port accepts connections
	// (what a supervisor or a test waits for), the web UI does too.
	if s.webLn, err = net.Listen("tcp", cfg.HTTPAddr); err != nil {
		return fail(fmt.Errorf("http listener: %w", err))
	}
	endpoints, err := s.listen()
	if err != nil {
		return fail(err)
	}
	s.e = newEngine(cfg.Logf)
	if !cfg.NoMetrics {
		s.e.metrics = newMetrics(s.e, int32(cfg.Settings.Int64("node.id")))
		fs.OnSync = func(d time.Duration) { s.e.metrics.fsync.Observe(d.Seconds()) }
		s.e.metrics.storage(fs)
	}
	now := time.Now()
	logDir, err := filepath.Abs(cfg.DataDir)
	if err != nil {
		return fail(err)
	}
	bcfg := broker.Config{
		NodeID:     int32(cfg.Settings.Int64("node.id")),
		Host:       endpoints[0].Host,
		Port:       endpoints[0].Port,
		Listeners:  endpoints,
		Authorizer: cfg.Authorizer,
		Settings:   cfg.Settings,
		Rand:       rand.New(rand.NewPCG(uint64(now.UnixNano()), uint64(now.Unix()))),
		Logf:       cfg.Logf,
		LogDir:     logDir,
		DiskSpace:  diskSpace(logDir),
		Clock:      func() int64 { return int64(time.Since(now)) }, // monotonic
	}
	creds, err := scramBootstrap(cfg.ScramBootstrap)
	if err != nil {
		return fail(err)
	}
	if bcfg.Features, err = parseFeatures(cfg.Features); err != nil {
		return fail(err)
	}
	if cfg.ControllerQuorum != nil {
		if err := s.startCluster(&bcfg, fs, creds); err != nil {
			return fail(err)
		}
	}
	s.e.node = bcfg.NodeID
	s.e.b, err = broker.New(bcfg, fs, now.UnixMilli())
	if err != nil {
		if s.e.cl != nil {
			s.e.cl.close()
			_ = s.e.cl.node.Close()
		}
		return fail(err)
	}
	if s.e.cl != nil {
		if err := s.e.b.ApplyMetadata(now.UnixMilli(), s.e.cl.node.Image().Clone()); err != nil {
			s.e.cl.close()
			_ = s.e.cl.node.Close()
			return fail(err)
		}
	}
	if err := s.bootstrapScram(creds); err != nil {
		if s.e.cl != nil {
			s.e.cl.close()
			_ = s.e.cl.node.Close()
		}
		_ = s.e.b.Close()
		return fail(err)
	}
	links, err := linkstore.Open(cfg.DataDir, linkstore.Defaults, lessons.Versions(), func(w http.ResponseWriter, r *http.Request) { serveNoPage(w, r, cfg.IndexHTML) })
	if err != nil {
		if s.e.cl != nil {
			s.e.cl.close()
			_ = s.e.cl.node.Close()
		}
		_ = s.e.b.Close()
		return fail(err)
	}
	s.links = links
	s.web = &http.Server{Handler: s.routes(), ReadHeaderTimeout: 10 * time.Second}
	return s, nil
}

// KafkaAddr and HTTPAddr are the bound addresses (useful with port 0);
// KafkaAddr is the first listener's.
func (s *Server) KafkaAddr() net.Addr { return s.kafka[0].ln.Addr() }
func (s *Server) HTTPAddr() net.Addr  { return s.webLn.Addr() }

// ListenerAddr is the bound address of the named listener, nil if there
// is none.
func (s *Server) ListenerAddr(name string) net.Addr {
	for _, l := range s.kafka {
		if l.Name == name {
			return l.ln.Addr()
		}
	}
	return nil
}

// listen binds every Kafka listener and returns their advertised
// endpoints, in order.
func (s *Server) listen() ([]cluster.Endpoint, error) {
	ls := s.cfg.Listeners
	if len(ls) == 0 {
		ls = []Listener{{Name: broker.DefaultListener, Protocol: Plaintext, Addr: s.cfg.KafkaAddr}}
	}
	var out []cluster.Endpoint
	for _, l := range ls {
		sec := s.cfg.Security[l.Name]
		if l.Protocol.TLS() && sec.TLS == nil {
			return nil, fmt.Errorf("listener %s is %s: set ssl.keystore.location (a PEM file of the certificate chain and key)", l.Name, l.Protocol)
		}
		ln, err := net.Listen("tcp", l.Addr)
		if err != nil {
			return nil, fmt.Errorf("listener %s: %w", l.Name, err)
		}
		if l.Protocol.TLS() {
			ln = tls.NewListener(ln, sec.TLS)
		}
		kl := &kafkaListener{Listener: l, ln: ln}
		s.kafka = append(s.kafka, kl)
		e, err := kl.endpoint()
		if err != nil {
			return nil, fmt.Errorf("listener %s: %w", l.Name, err)
		}
		out = append(out, e)
	}
	return out, nil
}

// Run serves until parent is cancelled, then shuts down cleanly: a
// clustered broker first hands its leaderships over (controlled
// shutdown), then listeners close, connections close, the logs are
// flushed and closed.
func (s *Server) Run(parent context.Context) error {
	// ctx ends when the server stops serving: when parent ends, after a
	// clustered broker's controlled shutdown (shutdown.go).
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-parent.Done():
			s.controlledShutdown(ctx)
			cancel()
		case <-ctx.Done():
		}
	}()
	s.e.stopping = ctx.Done()
	if s.e.cl != nil {
		go s.e.cl.serveController(s.e)
		s.cfg.Logf("node %d: controller listening on %s", s.e.cl.id, s.e.cl.ln.Addr())
	}
	engineDone := make(chan struct{})
	go func() { defer close(engineDone); s.e.run(ctx) }()
	go func() {
		if err := s.web.Serve(s.webLn); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.cfg.Logf("http: %v", err)
		}
	}()
	cid := s.e.b.ClusterID()
	if cid == "" {
		cid = "to be learnt from the metadata quorum"
	}
	var names []string
	for _, l := range s.kafka {
		names = append(names, fmt.Sprintf("%s://%s", l.Name, l.ln.Addr()))
	}
	s.cfg.Logf("kafka listening on %s, http on http://%s, data in %s (cluster %s)",
		strings.Join(names, ","), s.webLn.Addr(), s.cfg.DataDir, cid)
	if s.printToken {
		s.cfg.Logf("operator token for the web UI beyond loopback (/live, /console, opening a class): %s", s.cfg.OperatorToken)
	}
	conns := map[*conn]bool{}
	var mu sync.Mutex
	adm := newAdmission(s.cfg.Settings.Int64("max.connections"), s.cfg.Settings.Int64("max.connections.per.ip"), s.cfg.Settings.Int64("max.connection.creation.rate"))
	go func() {
		<-ctx.Done()
		for _, l := range s.kafka {
			l.ln.Close()
		}
		mu.Lock()
		for c := range conns {
			c.close()
		}
		mu.Unlock()
	}()
	var accepting sync.WaitGroup
	for _, l := range s.kafka {
		accepting.Go(func() {
			for {
				nc, err := l.ln.Accept()
				if err != nil {
					if ctx.Err() == nil {
						s.cfg.Logf("accept on %s: %v", l.Name, err)
						cancel()
					}
					return
				}
				if !adm.waitCreation(ctx) {
					nc.Close()
					continue
				}
				ip := remoteIP(nc)
				if refused, line := adm.admit(ip, time.Now()); refused {
					if line != "" {
						s.cfg.Logf("%s", line)
					}
					nc.Close()
					continue
				}
				c := newConn(s.nextID.Add(1), nc, s.e, int32(s.cfg.Settings.Int64("socket.request.max.bytes")), s.cfg.Logf)
				c.listener, c.tls = l.Name, l.Protocol.TLS()
				if l.Protocol.SASL() {
					sec := s.cfg.Security[l.Name]
					c.sasl = &saslConn{enabled: sec.Mechanisms, plain: sec.PlainUsers, creds: c.credential, lifetime: s.cfg.SASLReauth}
					if c.sasl.enabled == nil {
						c.sasl.enabled = Mechanisms
					}
				}
				mu.Lock()
				conns[c] = true
				mu.Unlock()
				s.wg.Add(1)
				go func() {
					defer s.wg.Done()
					c.serve()
					mu.Lock()
					delete(conns, c)
					mu.Unlock()
					adm.leave(ip)
				}()
			}
		})
	}
	accepting.Wait()
	<-engineDone
	if s.e.cl != nil {
		s.e.cl.close()
		if err := s.e.cl.node.Close(); err != nil {
			s.cfg.Logf("closing metadata log: %v", err)
		}
	}
	s.wg.Wait()
	shutdownCtx, done := context.WithTimeout(context.Background(), 5*time.Second)
	defer done()
	s.web.Shutdown(shutdownCtx)
	err := s.e.b.Close()
	s.unlock()
	if err != nil {
		return fmt.Errorf("closing logs: %w", err)
	}
	s.cfg.Logf("shut down cleanly")
	return nil
}

func (s *Server) closeListeners() {
	for _, l := range s.kafka {
		l.ln.Close()
	}
	if s.webLn != nil {
		s.webLn.Close()
	}
}

// advertised turns a bound address into the host and port clients are told
// to use. A wildcard bind advertises loopback.
func advertised(a net.Addr) (string, int32, error) {
	host, portStr, err := net.SplitHostPort(a.String())
	if err != nil {
		return "", 0, err
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	port, err := strconv.Atoi(portStr)
	return host, int32(port), err
}
