package server

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gregor-kafka/gregor/core/broker"
	"github.com/gregor-kafka/gregor/core/config"
	"github.com/gregor-kafka/gregor/server/access"
	"github.com/gregor-kafka/gregor/server/filestore"
)

// Config is what `gregor serve` was asked to run.
type Config struct {
	KafkaAddr string
	HTTPAddr  string
	DataDir   string
	Settings  *config.Broker
	// IndexHTML is the page served at / on the HTTP address.
	IndexHTML []byte
	// Assets is the browser build served under /assets/ (see WebHandler).
	Assets fs.FS
	Logf   func(format string, args ...any)
	// ControllerQuorum (--controller-quorum) makes the broker one of a
	// cluster: node id -> controller address of every voter. Nil runs a
	// single broker. ControllerAddr (--controller-addr) is where this
	// node listens for its peers; empty means its entry in the quorum.
	ControllerQuorum map[int32]string
	ControllerAddr   string
	// OperatorToken (--http.operator.token) lets a client beyond loopback
	// watch /live and open classes (package access). Empty: Start makes
	// one, and Run prints it.
	OperatorToken string
}

// Server is a running broker with its listeners.
type Server struct {
	cfg    Config
	e      *engine
	kafka  net.Listener
	web    *http.Server
	webLn  net.Listener
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
	armed, err := fs.ArmFromEnv() // test-only
	if err != nil {
		return fail(err)
	}
	for _, f := range armed {
		cfg.Logf("TEST ONLY: storage fault armed from %s: %s", filestore.FaultsEnv, f)
	}
	if s.kafka, err = net.Listen("tcp", cfg.KafkaAddr); err != nil {
		return fail(fmt.Errorf("kafka listener: %w", err))
	}
	if s.webLn, err = net.Listen("tcp", cfg.HTTPAddr); err != nil {
		return fail(fmt.Errorf("http listener: %w", err))
	}
	host, port, err := advertised(s.kafka.Addr())
	if err != nil {
		return fail(err)
	}
	logDir, err := filepath.Abs(cfg.DataDir)
	if err != nil {
		return fail(err)
	}
	s.e = newEngine(cfg.Logf)
	now := time.Now()
	bcfg := broker.Config{
		NodeID:    int32(cfg.Settings.Int64("node.id")),
		Host:      host,
		Port:      port,
		Settings:  cfg.Settings,
		Rand:      rand.New(rand.NewPCG(uint64(now.UnixNano()), uint64(now.Unix()))),
		Logf:      cfg.Logf,
		LogDir:    logDir,
		DiskSpace: diskSpace(logDir),
	}
	if cfg.ControllerQuorum != nil {
		if err := s.startCluster(&bcfg, fs); err != nil {
			return fail(err)
		}
	}
	s.e.node = bcfg.NodeID
	s.e.b, err = broker.New(bcfg, fs, s.e.deliver, now.UnixMilli())
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
	s.web = &http.Server{Handler: s.routes(), ReadHeaderTimeout: 10 * time.Second}
	return s, nil
}

// KafkaAddr and HTTPAddr are the bound addresses (useful with port 0).
func (s *Server) KafkaAddr() net.Addr { return s.kafka.Addr() }
func (s *Server) HTTPAddr() net.Addr  { return s.webLn.Addr() }

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
	s.cfg.Logf("kafka listening on %s, http on http://%s, data in %s (cluster %s)",
		s.kafka.Addr(), s.webLn.Addr(), s.cfg.DataDir, cid)
	if s.printToken {
		s.cfg.Logf("operator token for the web UI beyond loopback (/live, opening a class): %s", s.cfg.OperatorToken)
	}
	conns := map[*conn]bool{}
	var mu sync.Mutex
	adm := newAdmission(s.cfg.Settings.Int64("max.connections"), s.cfg.Settings.Int64("max.connections.per.ip"))
	go func() {
		<-ctx.Done()
		s.kafka.Close()
		mu.Lock()
		for c := range conns {
			c.close()
		}
		mu.Unlock()
	}()
	for {
		nc, err := s.kafka.Accept()
		if err != nil {
			if ctx.Err() == nil {
				s.cfg.Logf("accept: %v", err)
				cancel()
			}
			break
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
	if s.kafka != nil {
		s.kafka.Close()
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
