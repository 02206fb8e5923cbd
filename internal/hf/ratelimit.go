package hf

import (
	"context"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Quota is one item of a RateLimit header as the Hub sends it (IETF
// draft-ietf-httpapi-ratelimit-headers, version 9):
//
//	RateLimit: "resolvers";r=2999;t=118
//	RateLimit-Policy: "fixed window";"resolvers";q=3000;w=300
//
// Remaining is r (requests left in the window), Reset is t (seconds until
// the window resets; fractions accepted), Limit and Window come from the
// policy when it was sent.
type Quota struct {
	Name      string
	Remaining int
	Reset     time.Duration
	Limit     int
	Window    time.Duration
}

// parseQuota reads the RateLimit and RateLimit-Policy headers of h. When
// several items are listed it takes the one named want, else the first.
func parseQuota(h http.Header, want string) (Quota, bool) {
	items := headerItems(h.Values("RateLimit"))
	if len(items) == 0 {
		return Quota{}, false
	}
	it := items[0]
	for _, x := range items {
		if x.name == want {
			it = x
			break
		}
	}
	r, okR := it.params["r"]
	t, okT := it.params["t"]
	if !okR || !okT {
		return Quota{}, false
	}
	q := Quota{Name: it.name, Remaining: int(r), Reset: time.Duration(t * float64(time.Second))}
	for _, p := range headerItems(h.Values("RateLimit-Policy")) {
		if p.name == it.name {
			q.Limit = int(p.params["q"])
			q.Window = time.Duration(p.params["w"] * float64(time.Second))
		}
	}
	return q, true
}

type headerItem struct {
	name   string
	params map[string]float64
}

// headerItems splits structured-field-like values: items separated by
// commas, each a list of quoted strings and key=number parameters separated
// by semicolons. The item's name is its last quoted string (the policy
// header starts with the policy kind, e.g. "fixed window").
func headerItems(values []string) []headerItem {
	var out []headerItem
	for _, v := range values {
		for _, item := range strings.Split(v, ",") {
			hi := headerItem{params: map[string]float64{}}
			for _, part := range strings.Split(item, ";") {
				part = strings.TrimSpace(part)
				if k, val, ok := strings.Cut(part, "="); ok {
					if f, err := strconv.ParseFloat(strings.Trim(val, `"`), 64); err == nil {
						hi.params[strings.TrimSpace(k)] = f
					}
				} else if part != "" {
					hi.name = strings.Trim(part, `"`)
				}
			}
			if len(hi.params) > 0 {
				out = append(out, hi)
			}
		}
	}
	return out
}

// limiter paces one class of requests by the quota the server reports: it
// lets requests go while the last reported window has requests left
// (counting those in flight), and holds them until the window resets when
// it has none. A 429 empties the window until its reset. Before the first
// answer (and after a reset) requests go freely. Safe for concurrent use.
type limiter struct {
	name string

	mu        sync.Mutex
	known     bool
	remaining int
	reset     time.Time
	limit     int
	window    time.Duration
	seq       uint64
	from      uint64          // ticket of the answer the estimate comes from
	inflight  map[uint64]bool // requests sent and not answered, by send order
	changed   chan struct{}   // closed at the next answer
	waited    time.Duration
}

// acquire waits until a request may go and returns its ticket; the caller
// calls done with the ticket and the answer's headers (or nil) afterwards.
func (l *limiter) acquire(ctx context.Context) (uint64, error) {
	for {
		l.mu.Lock()
		now := time.Now()
		if l.known && !now.Before(l.reset) {
			l.known = false
		}
		if !l.known || l.remaining > 0 {
			if l.known {
				l.remaining--
			}
			if l.inflight == nil {
				l.inflight = map[uint64]bool{}
			}
			l.seq++
			seq := l.seq // read under the lock: two requests never share a ticket
			l.inflight[seq] = true
			l.mu.Unlock()
			return seq, nil
		}
		// While requests are in flight their answers will tell exactly what
		// is left (the estimate subtracts them all): wait for the next
		// answer. With none in flight, wait for the reset, plus a little
		// jitter so that the waiting requests do not all land at once.
		wait := l.reset.Sub(now) + time.Duration(rand.Int64N(int64(10*time.Millisecond)))
		changed := l.changed
		if changed == nil {
			changed = make(chan struct{})
			l.changed = changed
		}
		inflight := len(l.inflight) > 0
		l.mu.Unlock()
		t0 := time.Now()
		t := time.NewTimer(wait)
		var ch <-chan struct{}
		if inflight {
			ch = changed
		}
		select {
		case <-ctx.Done():
			t.Stop()
			return 0, ctx.Err()
		case <-t.C:
		case <-ch:
			t.Stop()
		}
		l.mu.Lock()
		l.waited += time.Since(t0)
		l.mu.Unlock()
	}
}

// done records the answer to request ticket: its quota headers, and
// whether it was a 429 (then retryAfter, when positive, is the server's
// Retry-After).
func (l *limiter) done(ticket uint64, h http.Header, tooMany bool, retryAfter time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.inflight, ticket)
	if l.changed != nil {
		close(l.changed)
		l.changed = nil
	}
	now := time.Now()
	q, ok := parseQuota(h, l.name)
	if ok {
		reset := now.Add(q.Reset)
		// Every request still in flight may or may not be counted in r
		// yet: count them all as spent. The estimate is low by at most the
		// requests in flight, and rises again as their answers come.
		left := max(q.Remaining-len(l.inflight), 0)
		// Answers can be processed out of order: in the same window (its
		// reset within half a window of the known one) the answer to a
		// request sent later than the one that set the estimate replaces
		// it, an older one can only lower it; an answer from a later
		// window starts it afresh.
		same := l.known && reset.Sub(l.reset) < max(q.Window, l.window)/2
		if q.Window > 0 {
			l.window = q.Window
		}
		switch {
		case !same:
			l.known, l.remaining, l.reset, l.from = true, left, reset, ticket
		case ticket > l.from:
			l.remaining, l.from = left, ticket
		default:
			l.remaining = min(l.remaining, left)
		}
		if q.Limit > 0 {
			l.limit = q.Limit
		}
	}
	if tooMany {
		wait := retryAfter
		if ok && q.Reset > wait {
			wait = q.Reset
		}
		if wait <= 0 {
			wait = time.Second
		}
		l.known = true
		l.remaining = 0
		if r := now.Add(wait); r.After(l.reset) {
			l.reset = r
		}
	}
}

// state returns the requests left in the current window (-1 when unknown),
// the time to its reset, and the total time spent waiting for resets.
func (l *limiter) state() (remaining int, reset, waited time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.known || !time.Now().Before(l.reset) {
		return -1, 0, l.waited
	}
	return l.remaining, time.Until(l.reset), l.waited
}

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
