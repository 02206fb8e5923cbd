package emulators

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// Function is one target of a function binary (internal/buildpack's build)
// served as Cloud Functions serves it: its own process, FUNCTION_TARGET
// naming the function, PORT the port.
type Function struct {
	Target string
	Port   int
	cmd    *exec.Cmd
	done   chan struct{}
}

// StartFunction starts bin serving target (every registered function when
// empty) on port (a free loopback port when 0) with env (the whole
// environment) and output to out, in its own process group, and waits up
// to 30 s until it accepts connections. On error the process is gone.
func StartFunction(ctx context.Context, bin string, env []string, target string, port int, out io.Writer) (*Function, error) {
	if port == 0 {
		var err error
		if port, err = freePort(); err != nil {
			return nil, err
		}
	}
	f := &Function{Target: target, Port: port, done: make(chan struct{})}
	f.cmd = exec.Command(bin)
	f.cmd.Env = append(append([]string(nil), env...), fmt.Sprintf("PORT=%d", port))
	if target != "" {
		f.cmd.Env = append(f.cmd.Env, "FUNCTION_TARGET="+target)
	}
	f.cmd.Stdout, f.cmd.Stderr = out, out
	f.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := f.cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s (%s): %w", bin, target, err)
	}
	go func() { _ = f.cmd.Wait(); close(f.done) }()
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	for t0 := time.Now(); ; time.Sleep(20 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return f, nil
		}
		select {
		case <-f.done:
			return nil, fmt.Errorf("%s (%s) exited before listening on %s", bin, target, addr)
		case <-ctx.Done():
			f.Stop()
			return nil, ctx.Err()
		default:
		}
		if time.Since(t0) > 30*time.Second {
			f.Stop()
			return nil, fmt.Errorf("%s (%s) did not listen on %s within 30 s", bin, target, addr)
		}
	}
}

// URL is the function's base URL.
func (f *Function) URL() string { return fmt.Sprintf("http://127.0.0.1:%d", f.Port) }

// PushURL is the push endpoint a Pub/Sub push subscription of topic in
// project uses: the framework reads the topic from the path when it turns
// a raw push request into a CloudEvent.
func (f *Function) PushURL(project, topic string) string {
	return fmt.Sprintf("%s/projects/%s/topics/%s", f.URL(), project, topic)
}

// Stop kills the process group (SIGKILL, as a crashed instance) and waits
// for the process. Safe to call twice.
func (f *Function) Stop() {
	_ = syscall.Kill(-f.cmd.Process.Pid, syscall.SIGKILL)
	<-f.done
}

// PeakRSS is the process's peak resident memory (VmHWM, e.g. "52344 kB"),
// "?" if unknown.
func (f *Function) PeakRSS() string {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", f.cmd.Process.Pid))
	if err != nil {
		return "?"
	}
	for _, l := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "?"
}
