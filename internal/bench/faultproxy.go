package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sync"
	"sync/atomic"
	"time"
)

// storageFaults counts what a storageProxy injected.
type storageFaults struct {
	TooMany, Unavailable, Reset, ResetMidBody, LostAnswer atomic.Int64
}

// storageProxy is an HTTP reverse proxy in front of fake-gcs-server that
// injects the faults Cloud Storage is documented to give: every period-th
// request (cycling through the kinds) is answered 429 or 503 without
// reaching the fake, has its connection reset before it is forwarded, or
// has its response cut mid-body (downloads); and every period-th upload is
// applied and then has its answer lost (its connection reset). latency, when set, delays every request (a slow
// instance's view of storage). period 0 injects nothing.
type storageProxy struct {
	target  *url.URL
	rp      *httputil.ReverseProxy
	period  int64
	latency time.Duration
	seq     atomic.Int64
	uploads atomic.Int64
	faults  *storageFaults
}

func newStorageProxy(target string, period int64, latency time.Duration, faults *storageFaults) (*storageProxy, error) {
	u, err := url.Parse(target)
	if err != nil {
		return nil, err
	}
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.ErrorLog = log.New(io.Discard, "", 0) // the injected resets are expected
	return &storageProxy{target: u, rp: rp, period: period, latency: latency, faults: faults}, nil
}

func (p *storageProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if p.latency > 0 {
		select {
		case <-time.After(p.latency):
		case <-r.Context().Done():
			return
		}
	}
	upload := r.Method == http.MethodPost || r.Method == http.MethodPut
	if upload && p.period > 0 && p.uploads.Add(1)%p.period == p.period/2 {
		// Applied, answer lost: the object exists, the writer sees a
		// reset connection.
		p.faults.LostAnswer.Add(1)
		p.rp.ServeHTTP(discard{}, r)
		panic(http.ErrAbortHandler)
	}
	n := p.seq.Add(1)
	if p.period <= 0 || n%p.period != 0 {
		p.rp.ServeHTTP(w, r)
		return
	}
	switch kind := (n / p.period) % 4; {
	case kind == 0:
		p.faults.TooMany.Add(1)
		http.Error(w, `{"error":{"code":429,"message":"injected: rate limit exceeded"}}`, http.StatusTooManyRequests)
	case kind == 1:
		p.faults.Unavailable.Add(1)
		http.Error(w, `{"error":{"code":503,"message":"injected: backend unavailable"}}`, http.StatusServiceUnavailable)
	case kind == 2:
		p.faults.Reset.Add(1)
		panic(http.ErrAbortHandler) // the connection is closed with no answer
	case upload:
		p.faults.Reset.Add(1)
		panic(http.ErrAbortHandler)
	default:
		p.cutMidBody(w, r)
	}
}

// cutMidBody forwards a read (whole or ranged) and resets the connection
// halfway through its body (a plain pass-through when the body is too
// short to cut or the answer is an error).
func (p *storageProxy) cutMidBody(w http.ResponseWriter, r *http.Request) {
	rec := &recorder{header: http.Header{}, code: http.StatusOK}
	p.rp.ServeHTTP(rec, r)
	body := rec.body.Bytes()
	for k, v := range rec.header {
		w.Header()[k] = v
	}
	if (rec.code != http.StatusOK && rec.code != http.StatusPartialContent) || len(body) < 2 {
		w.WriteHeader(rec.code)
		w.Write(body)
		return
	}
	p.faults.ResetMidBody.Add(1)
	w.WriteHeader(rec.code)
	w.Write(body[:len(body)/2])
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	panic(http.ErrAbortHandler)
}

type discard struct{}

func (discard) Header() http.Header         { return http.Header{} }
func (discard) Write(b []byte) (int, error) { return len(b), nil }
func (discard) WriteHeader(int)             {}

type recorder struct {
	header http.Header
	code   int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header         { return r.header }
func (r *recorder) Write(b []byte) (int, error) { return r.body.Write(b) }
func (r *recorder) WriteHeader(c int)           { r.code = c }

// serve serves h on a free loopback port; it returns the base URL and a
// stop function.
func serve(h http.Handler) (string, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: h, ErrorLog: nil}
	go srv.Serve(ln)
	return "http://" + ln.Addr().String(), func() { srv.Close() }, nil
}

// pushMessage is the body of a Pub/Sub push request.
type pushMessage struct {
	Message struct {
		Data       []byte            `json:"data"`
		Attributes map[string]string `json:"attributes"`
	} `json:"message"`
	DeliveryAttempt int `json:"deliveryAttempt"`
}

// forward posts a push request's body to base (the same path and headers)
// and returns the status. Like Cloud Run's front end, it holds a request
// while the instance is being replaced (connection refused) for up to a
// minute; a request whose instance died under it is answered 503.
func forward(ctx context.Context, client *http.Client, base string, r *http.Request, body []byte) int {
	for t0 := time.Now(); ; {
		req, err := http.NewRequestWithContext(ctx, r.Method, base+r.URL.RequestURI(), bytes.NewReader(body))
		if err != nil {
			return http.StatusBadGateway
		}
		req.Header = r.Header.Clone()
		resp, err := client.Do(req)
		if err != nil {
			var op *net.OpError
			if errors.As(err, &op) && op.Op == "dial" && time.Since(t0) < time.Minute && ctx.Err() == nil {
				time.Sleep(50 * time.Millisecond)
				continue
			}
			return http.StatusServiceUnavailable
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
}

// pushFaults counts what the push proxies injected.
type pushFaults struct {
	Republished, Concurrent, Zombies, ZombiesPastLease, ZombiesPastAck, Kills, KillsMidShard, PlannerKills atomic.Int64
}

// roller decides, deterministically from a seed, which deliveries get a
// fault: the first four deliveries get one of each kind (so that a short
// run injects every kind), then each delivery with probability rate one of
// kinds 1-3 (zombie, published twice, delivered twice concurrently) and
// with probability killRate kind 4 (killed under the delivery).
type roller struct {
	mu             sync.Mutex
	rng            *rand.Rand
	n              int
	rate, killRate float64
}

func (r *roller) next() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.n++
	if r.n <= 4 {
		return r.n
	}
	switch u := r.rng.Float64(); {
	case u < r.rate:
		return 1 + r.rng.IntN(3)
	case u < r.rate+r.killRate:
		return 4
	}
	return 0
}

// group runs the goroutines a fault leaves working (zombies, second
// deliveries), so that the run can wait for them before it verifies.
type group struct{ sync.WaitGroup }

func (g *group) goDo(f func()) {
	g.Add(1)
	go func() { defer g.Done(); f() }()
}

func decodePush(body []byte) (pushMessage, error) {
	var m pushMessage
	if err := json.Unmarshal(body, &m); err != nil {
		return m, fmt.Errorf("push body: %w", err)
	}
	return m, nil
}
