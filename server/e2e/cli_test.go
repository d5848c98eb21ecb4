package e2e

import (
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// runGregor runs the binary to completion (it must exit by itself within
// 60s, a loaded machine's bound) and returns its exit code and combined
// output.
func runGregor(t *testing.T, args ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, gregorBin, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("gregor %s did not exit within 60s; output:\n%s", strings.Join(args, " "), out.String())
	}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("running gregor: %v", err)
	}
	return cmd.ProcessState.ExitCode(), out.String()
}

// expectOneLineError checks the failure contract: non-zero exit, exactly
// one non-empty line, no panic or stack trace, mentioning each of want.
func expectOneLineError(t *testing.T, code int, out string, want ...string) {
	t.Helper()
	if code == 0 {
		t.Errorf("exit code 0, want non-zero")
	}
	if strings.Contains(out, "goroutine ") || strings.Contains(out, "panic") {
		t.Errorf("output has a panic or stack trace:\n%s", out)
	}
	var lines []string
	for l := range strings.Lines(out) {
		if strings.TrimSpace(l) != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) != 1 {
		t.Errorf("want exactly one error line, got %d:\n%s", len(lines), out)
	}
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("the error does not mention %q:\n%s", w, out)
		}
	}
}

func TestCLI(t *testing.T) {
	t.Parallel()
	requireBinary(t)

	serve := func(t *testing.T, extra ...string) []string {
		// Port 0: these runs must fail before they serve.
		args := []string{"serve", "--kafka-addr", "127.0.0.1:0", "--http-addr", "127.0.0.1:0", "--data-dir", t.TempDir()}
		return append(args, extra...)
	}

	t.Run("Help", func(t *testing.T) {
		code, out := runGregor(t, "serve", "--help")
		if code != 0 {
			t.Errorf("serve --help exit code %d, want 0", code)
		}
		// Go's flag package prints "-name"; "--name" contains it too.
		for _, f := range []string{"-kafka-addr", "-http-addr", "-data-dir", "-config", "-log.segment.bytes", "-num.partitions"} {
			if !strings.Contains(out, f) {
				t.Errorf("serve --help does not document %s:\n%s", f, out)
			}
		}
	})

	t.Run("UnknownFlag", func(t *testing.T) {
		code, out := runGregor(t, serve(t, "--no-such-flag", "1")...)
		expectOneLineError(t, code, out, "no-such-flag")
	})

	t.Run("BadConfigValue", func(t *testing.T) {
		code, out := runGregor(t, serve(t, "--log.segment.bytes", "lots")...)
		expectOneLineError(t, code, out, "log.segment.bytes")
	})

	t.Run("UnknownSubcommand", func(t *testing.T) {
		code, out := runGregor(t, "frobnicate")
		expectOneLineError(t, code, out, "frobnicate")
	})

	t.Run("DataDirIsAFile", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "not-a-dir")
		if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		args := []string{"serve", "--kafka-addr", "127.0.0.1:0", "--http-addr", "127.0.0.1:0", "--data-dir", file}
		code, out := runGregor(t, args...)
		expectOneLineError(t, code, out, file)
	})

	t.Run("DataDirUnderAFile", func(t *testing.T) {
		// Unwritable even for root: a directory cannot be made inside a file.
		file := filepath.Join(t.TempDir(), "file")
		if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(file, "data")
		args := []string{"serve", "--kafka-addr", "127.0.0.1:0", "--http-addr", "127.0.0.1:0", "--data-dir", dir}
		code, out := runGregor(t, args...)
		expectOneLineError(t, code, out, file) // the path, or the part of it that failed
	})

	t.Run("DataDirReadOnly", func(t *testing.T) {
		if os.Geteuid() == 0 {
			t.Skip("root can write to a 0500 directory; DataDirUnderAFile covers this case")
		}
		dir := t.TempDir()
		if err := os.Chmod(dir, 0o500); err != nil {
			t.Fatal(err)
		}
		defer os.Chmod(dir, 0o700)
		args := []string{"serve", "--kafka-addr", "127.0.0.1:0", "--http-addr", "127.0.0.1:0", "--data-dir", dir}
		code, out := runGregor(t, args...)
		expectOneLineError(t, code, out, dir)
	})

	for _, which := range []string{"--kafka-addr", "--http-addr"} {
		t.Run("PortInUse"+which, func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			busy := ln.Addr().String()
			args := []string{"serve", "--kafka-addr", "127.0.0.1:0", "--http-addr", "127.0.0.1:0", "--data-dir", t.TempDir()}
			for i := range args {
				if args[i] == which {
					args[i+1] = busy
				}
			}
			code, out := runGregor(t, args...)
			expectOneLineError(t, code, out, busy)
		})
	}

	t.Run("SecondBrokerOnSameDataDir", func(t *testing.T) {
		b := startBroker(t)
		args := []string{"serve", "--kafka-addr", "127.0.0.1:0", "--http-addr", "127.0.0.1:0", "--data-dir", b.DataDir}
		code, out := runGregor(t, args...)
		expectOneLineError(t, code, out, b.DataDir)
	})

	// A signal the moment the Kafka port accepts (as a supervisor's stop
	// right after a start, or Ctrl-C during recovery) is still a clean
	// shutdown: the broker catches signals before it opens any port.
	t.Run("CleanShutdownRightAfterStart", func(t *testing.T) {
		b := startBroker(t)
		if code, err := b.Stop(); err != nil || code != 0 {
			t.Fatalf("stop right after start: exit code %d, %v; want 0", code, err)
		}
	})

	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run("CleanShutdownOn"+sig.String(), func(t *testing.T) {
			b := startBroker(t)
			// Some traffic first, so shutdown has connections to close.
			mustCreateTopic(t, b.Admin(t), topicName(t, ""), 1, nil)
			if err := b.Signal(sig); err != nil {
				t.Fatal(err)
			}
			b.mu.Lock()
			p := b.proc
			b.mu.Unlock()
			select {
			case <-p.done:
			case <-time.After(shutdownTimeout):
				t.Fatalf("no exit within %v of %v", shutdownTimeout, sig)
			}
			if code := p.state.ExitCode(); code != 0 {
				t.Errorf("exit code %d after %v, want 0", code, sig)
			}
			if out := b.Output(); strings.Contains(out, "goroutine ") || strings.Contains(out, "panic") {
				t.Errorf("shutdown output has a panic or stack trace:\n%s", out)
			}
			// The ports are free again.
			ln, err := net.Listen("tcp", b.Addr)
			if err != nil {
				t.Errorf("kafka port still taken after exit: %v", err)
			} else {
				ln.Close()
			}
		})
	}
}
