package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/foldcorpus/foldcorpus/internal/localrun"
)

// stopNotice is how often an interrupted run that has not stopped yet says
// again what it waits for.
const stopNotice = 10 * time.Second

// watchSignals handles SIGINT and SIGTERM during a local run. The first
// cancels the run (cancel: ctx's shards stop and are released) and says on
// w what the run still waits for, again every stopNotice while it has not
// stopped; a read blocked in the kernel (a hung NFS or FUSE mount, a named
// pipe) can keep it from ever stopping. The second releases the shards
// still claimed and exits at once (exit, status 130): their outputs are
// written atomically, so nothing partial is left, and a rerun resumes
// them. The returned function stops watching.
func watchSignals(w io.Writer, tr *localrun.Tracker, cancel context.CancelFunc, exit func(code int)) (stop func()) {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		var tick <-chan time.Time
		first := true
		for {
			select {
			case <-done:
				return
			case <-tick:
				printWaiting(w, tr, "still stopping")
			case s := <-sigs:
				if first {
					first = false
					fmt.Fprintf(w, "\n%s: stopping: the shards in progress are abandoned (nothing partial is written) and resume on a rerun of the same command; %s again to exit at once\n", sigName(s), sigName(s))
					cancel()
					printWaiting(w, tr, "waiting for")
					t := time.NewTicker(stopNotice)
					defer t.Stop()
					tick = t.C
					continue
				}
				released, err := tr.ReleaseClaims(context.Background())
				msg := fmt.Sprintf("%s again: exiting now", sigName(s))
				if len(released) > 0 {
					msg += fmt.Sprintf("; released shard(s) %v for a rerun of the same command to resume", released)
				}
				if err != nil {
					msg += fmt.Sprintf("; releasing the claimed shards failed (%v): a rerun resumes them once their lease ends", err)
				}
				fmt.Fprintln(w, msg)
				exit(130)
				return
			}
		}
	}()
	return func() {
		signal.Stop(sigs)
		close(done)
	}
}

// printWaiting writes what the run waits for, if anything.
func printWaiting(w io.Writer, tr *localrun.Tracker, lead string) {
	waiting := tr.Waiting()
	if len(waiting) == 0 {
		return
	}
	fmt.Fprintf(w, "%s (a read that does not return, e.g. from a hung mount or a named pipe, keeps the run from stopping):\n", lead)
	for i, l := range waiting {
		if i == 10 {
			fmt.Fprintf(w, "  ... and %d more\n", len(waiting)-10)
			break
		}
		fmt.Fprintf(w, "  %s\n", l)
	}
}

func sigName(s os.Signal) string {
	if s == os.Interrupt {
		return "interrupt (SIGINT)"
	}
	if s == syscall.SIGTERM {
		return "SIGTERM"
	}
	return s.String()
}
