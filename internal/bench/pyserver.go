package bench

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
)

// pyServer is a Python baseline kept running for a whole bench, answering
// one line per request on its stdout, so that its measurements interleave
// with ours (both see the same machine load) and Python's start-up is paid
// once. Its stderr is the bench's; it runs with OMP_NUM_THREADS=1.
type pyServer struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

func startPyServer(ctx context.Context, python, script string) (*pyServer, error) {
	cmd := exec.CommandContext(ctx, python, "-c", script)
	cmd.Env = append(os.Environ(), "OMP_NUM_THREADS=1")
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &pyServer{cmd: cmd, in: in, out: bufio.NewReader(out)}, nil
}

// send writes one request line that has no answer.
func (s *pyServer) send(line string) error {
	_, err := fmt.Fprintln(s.in, line)
	return err
}

// answer reads the server's next line (a greeting, or the answer to a request).
func (s *pyServer) answer() (string, error) { return s.out.ReadString('\n') }

// ask writes one request line and returns its answer.
func (s *pyServer) ask(line string) (string, error) {
	if err := s.send(line); err != nil {
		return "", err
	}
	return s.answer()
}

// close ends the server (stdin closed) and waits for it.
func (s *pyServer) close() error {
	s.in.Close()
	return s.cmd.Wait()
}
