package main

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// progressLine writes a command's progress to w: redrawn in place on a
// terminal (at most every 200 ms), a line every 5 s otherwise, and always
// the final state. Safe for concurrent use.
type progressLine struct {
	w    io.Writer
	tty  bool
	mu   sync.Mutex
	last time.Time
}

// show writes line() unless the last line is too recent and final is false.
func (p *progressLine) show(final bool, line func() string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	every := 5 * time.Second
	if p.tty {
		every = 200 * time.Millisecond
	}
	if time.Since(p.last) < every && !final {
		return
	}
	p.last = time.Now()
	if p.tty {
		fmt.Fprintf(p.w, "\r%s ", line())
	} else {
		fmt.Fprintln(p.w, line())
	}
}

// finish ends a redrawn line.
func (p *progressLine) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tty && !p.last.IsZero() {
		fmt.Fprintln(p.w)
	}
}
