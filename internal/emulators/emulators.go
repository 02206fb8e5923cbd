// Package emulators starts the real components that cloud tests run
// against: the official Firestore and Pub/Sub emulators (Java jars installed
// with the Google Cloud CLI packages, started directly with java, one process
// each, on a free loopback port, stopped by PID) and fake-gcs-server over TCP.
//
// When a jar is missing, Start returns an error wrapping ErrNotInstalled;
// tests go through Require (or RunMain in a TestMain), which fails when the
// environment variable CI is "true" and skips loudly otherwise.
//
// Every emulator is private to the process that started it; tests isolate
// themselves further with a unique project id.
package emulators

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// ErrNotInstalled: the emulator's jar (or java) is not on this machine.
var ErrNotInstalled = errors.New("emulator not installed")

// Kind names an emulator.
type Kind string

const (
	Firestore Kind = "firestore"
	PubSub    Kind = "pubsub"
)

// HostEnv is the environment variable the Google client libraries read
// the emulator's HOST:PORT from.
func (k Kind) HostEnv() string {
	switch k {
	case Firestore:
		return "FIRESTORE_EMULATOR_HOST"
	case PubSub:
		return "PUBSUB_EMULATOR_HOST"
	}
	return ""
}

// Default jar locations (Debian packages google-cloud-cli-*-emulator).
var (
	FirestoreJar  = "/usr/lib/google-cloud-sdk/platform/cloud-firestore-emulator/cloud-firestore-emulator.jar"
	PubSubJarGlob = "/usr/lib/google-cloud-sdk/platform/pubsub-emulator/lib/cloud-pubsub-emulator-*-all.jar"
)

// Emulator is one running emulator process.
type Emulator struct {
	Kind Kind
	// Host is HOST:PORT, the value for FIRESTORE_EMULATOR_HOST or
	// PUBSUB_EMULATOR_HOST.
	Host string
	cmd  *exec.Cmd
	done chan struct{}
	log  *tailBuffer
	once sync.Once
}

// Installed reports whether kind can be started here, or an error wrapping
// ErrNotInstalled that says what is missing.
func Installed(kind Kind) error {
	if _, err := exec.LookPath("java"); err != nil {
		return fmt.Errorf("%w: java not on PATH (install openjdk-17-jre-headless)", ErrNotInstalled)
	}
	_, err := jar(kind)
	return err
}

func jar(kind Kind) (string, error) {
	switch kind {
	case Firestore:
		if _, err := os.Stat(FirestoreJar); err != nil {
			return "", fmt.Errorf("%w: %s (Debian package google-cloud-cli-firestore-emulator)", ErrNotInstalled, FirestoreJar)
		}
		return FirestoreJar, nil
	case PubSub:
		m, _ := filepath.Glob(PubSubJarGlob)
		if len(m) == 0 {
			return "", fmt.Errorf("%w: %s (Debian package google-cloud-cli-pubsub-emulator)", ErrNotInstalled, PubSubJarGlob)
		}
		return m[len(m)-1], nil
	}
	return "", fmt.Errorf("unknown emulator %q", kind)
}

// Start starts the emulator on a free loopback port and waits until it
// answers (Firestore: GET / says Ok; Pub/Sub: its log says "Server started").
// The caller must Stop it. Not idempotent: each call starts a new process.
func Start(ctx context.Context, kind Kind) (*Emulator, error) {
	if err := Installed(kind); err != nil {
		return nil, err
	}
	j, _ := jar(kind)
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	host := fmt.Sprintf("127.0.0.1:%d", port)
	var args []string
	switch kind {
	case Firestore:
		args = []string{"-cp", j, "com.google.cloud.datastore.emulator.firestore.CloudFirestore", "--host=127.0.0.1", fmt.Sprintf("--port=%d", port)}
	case PubSub:
		args = []string{"-jar", j, "--host=127.0.0.1", fmt.Sprintf("--port=%d", port)}
	}
	cmd := exec.Command("java", append([]string{"-Xss2m"}, args...)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	e := &Emulator{Kind: kind, Host: host, cmd: cmd, done: make(chan struct{}), log: &tailBuffer{}}
	pr, pw := io.Pipe()
	cmd.Stdout = pw
	cmd.Stderr = pw
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("emulators.Start(%s): %w", kind, err)
	}
	started := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		var once sync.Once
		for sc.Scan() {
			line := sc.Text()
			e.log.add(line)
			if strings.Contains(line, "Server started") {
				once.Do(func() { close(started) })
			}
		}
		io.Copy(io.Discard, pr)
	}()
	go func() {
		cmd.Wait()
		pw.Close()
		close(e.done)
	}()
	deadline := time.NewTimer(60 * time.Second)
	defer deadline.Stop()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			e.Stop()
			return nil, ctx.Err()
		case <-deadline.C:
			e.Stop()
			return nil, fmt.Errorf("emulators.Start(%s): not ready after 60s; log:\n%s", kind, e.log)
		case <-e.done:
			return nil, fmt.Errorf("emulators.Start(%s): exited early; log:\n%s", kind, e.log)
		case <-started:
			if kind == PubSub {
				return e, nil
			}
		case <-tick.C:
			if kind == Firestore && firestoreReady(host) {
				return e, nil
			}
		}
	}
}

func firestoreReady(host string) bool {
	c := http.Client{Timeout: time.Second}
	resp, err := c.Get("http://" + host + "/")
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode == 200 && strings.HasPrefix(strings.TrimSpace(string(b)), "Ok")
}

// Stop kills the emulator's process group (the one Start created) and waits
// for it to exit. Safe to call more than once.
func (e *Emulator) Stop() {
	e.once.Do(func() {
		if e.cmd.Process != nil {
			syscall.Kill(-e.cmd.Process.Pid, syscall.SIGKILL)
		}
		select {
		case <-e.done:
		case <-time.After(10 * time.Second):
		}
	})
}

// Log returns the last lines the emulator printed.
func (e *Emulator) Log() string { return e.log.String() }

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// tailBuffer keeps the last 200 lines of output.
type tailBuffer struct {
	mu    sync.Mutex
	lines []string
}

func (b *tailBuffer) add(s string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.lines = append(b.lines, s)
	if len(b.lines) > 200 {
		b.lines = b.lines[len(b.lines)-200:]
	}
}

func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return strings.Join(b.lines, "\n")
}
