package bench

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"cloud.google.com/go/pubsub/v2"

	"github.com/foldcorpus/foldcorpus/internal/emulators"
)

// faultPlan says how often to inject faults in a `bench cloud --faults`
// pass.
type faultPlan struct {
	rate float64 // the fraction of shard deliveries and storage requests faulted
	seed uint64
	// lease is the shard claim's lease (FOLDCORPUS_LEASE): short, so that
	// killed and zombie claims expire within the run.
	lease time.Duration
	// zombieLatency slows every storage request of the zombie instance, so
	// that its shard outlives its lease and is claimed again.
	zombieLatency time.Duration
	// killEvery is the mean interval between SIGKILLs of the shard
	// function's instance, and maxKills their number: without a cap, the
	// last few shards of a run are killed again and again (each needs its
	// lease to expire and a redelivery) and the run only ends by luck.
	killEvery time.Duration
	maxKills  int
}

// instance is a function process that can be killed (SIGKILL) and
// replaced on the same port, as Cloud Run replaces an instance.
type instance struct {
	bin, target string
	env         []string
	port        int
	logs        *emulators.LogBuffer
	inflight    atomic.Int64
	mu          sync.Mutex
	fn          *emulators.Function
	peakRSS     string
}

func startInstance(ctx context.Context, bin, target string, env []string) (*instance, error) {
	in := &instance{bin: bin, target: target, env: env, logs: &emulators.LogBuffer{}}
	fn, err := emulators.StartFunction(ctx, bin, env, target, 0, in.logs)
	if err != nil {
		return nil, fmt.Errorf("%w\n%s", err, in.logs)
	}
	in.fn, in.port = fn, fn.Port
	return in, nil
}

func (in *instance) url() string { return fmt.Sprintf("http://127.0.0.1:%d", in.port) }

// replace kills the process (SIGKILL) and starts a new one on the same
// port; it reports whether a request was in flight when it was killed.
func (in *instance) replace(ctx context.Context) (bool, error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	mid := in.inflight.Load() > 0
	in.peakRSS = in.fn.PeakRSS()
	in.fn.Stop()
	var err error
	for try := 0; try < 20; try++ { // the port may linger a moment
		var fn *emulators.Function
		if fn, err = emulators.StartFunction(ctx, in.bin, in.env, in.target, in.port, in.logs); err == nil {
			in.fn = fn
			return mid, nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return mid, fmt.Errorf("replacing %s: %w", in.target, err)
}

func (in *instance) stop() {
	in.mu.Lock()
	defer in.mu.Unlock()
	if p := in.fn.PeakRSS(); p != "?" {
		in.peakRSS = p
	}
	in.fn.Stop()
}

// injector is the harness of a fault pass: the storage proxies, the push
// proxies in front of the functions, the killer of the shard instance and
// the zombie instance.
type injector struct {
	plan       *faultPlan
	endpoints  map[string]string // function target -> push base URL
	storage    storageFaults
	ledger     ledgerFaults
	push       pushFaults
	shard      *instance
	zombie     *instance
	planner    *instance
	dead       *instance
	client     *http.Client
	zombies    group
	cancel     context.CancelFunc
	killerDone chan struct{}
	stops      []func()
	republish  *pubsub.Publisher
}

func startInjector(ctx context.Context, p cloudPass, env []string, gcsURL string, ps *pubsub.Client) (_ *injector, err error) {
	plan := p.faults
	in := &injector{plan: plan, endpoints: map[string]string{}, client: &http.Client{}, killerDone: make(chan struct{})}
	defer func() {
		if err != nil {
			in.stopAll()
		}
	}()
	period := int64(0)
	if plan.rate > 0 {
		period = max(2, int64(1/plan.rate))
	}
	host := func(h http.Handler) (string, error) {
		u, stop, err := serve(h)
		if err != nil {
			return "", err
		}
		in.stops = append(in.stops, stop)
		return strings.TrimPrefix(u, "http://"), nil
	}
	sp, err := newStorageProxy(gcsURL, period, 0, &in.storage)
	if err != nil {
		return nil, err
	}
	faulty, err := host(sp)
	if err != nil {
		return nil, err
	}
	slow, err := newStorageProxy(gcsURL, 0, plan.zombieLatency, &in.storage)
	if err != nil {
		return nil, err
	}
	slowHost, err := host(slow)
	if err != nil {
		return nil, err
	}
	lp, err := startLedgerProxy(os.Getenv(emulators.Firestore.HostEnv()), period, &in.ledger)
	if err != nil {
		return nil, err
	}
	in.stops = append(in.stops, lp.stop)
	base := append(append([]string(nil), env...), "FOLDCORPUS_LEASE="+plan.lease.String())
	fenv := append(append([]string(nil), base...), "STORAGE_EMULATOR_HOST="+faulty, emulators.Firestore.HostEnv()+"="+lp.addr)
	for _, x := range []struct {
		dst    **instance
		target string
		env    []string
	}{{&in.shard, "ShardFn", fenv}, {&in.zombie, "ShardFn", append(append([]string(nil), base...), "STORAGE_EMULATOR_HOST="+slowHost)},
		{&in.planner, "Planner", fenv}, {&in.dead, "DeadLetter", fenv}} {
		if *x.dst, err = startInstance(ctx, p.bin, x.target, x.env); err != nil {
			return nil, err
		}
		i := *x.dst
		in.stops = append(in.stops, i.stop)
	}
	in.republish = ps.Publisher(cloudShardTopic)
	in.stops = append(in.stops, in.republish.Stop)
	roll := &roller{rng: rand.New(rand.NewPCG(plan.seed, 1)), rate: plan.rate}
	if in.endpoints["ShardFn"], err = host(in.shardPush(ctx, roll)); err != nil {
		return nil, err
	}
	if in.endpoints["Planner"], err = host(in.plannerPush(ctx)); err != nil {
		return nil, err
	}
	in.endpoints["DeadLetter"] = in.dead.url()
	for t, h := range in.endpoints {
		if !strings.HasPrefix(h, "http://") {
			in.endpoints[t] = "http://" + h
		}
	}
	kctx, cancel := context.WithCancel(ctx)
	in.cancel = cancel
	go in.killer(kctx, rand.New(rand.NewPCG(plan.seed, 2)))
	return in, nil
}

// shardPush is the push endpoint of the shard subscription. Per delivery
// it injects (roller): a zombie (the delivery goes to the slow instance,
// which keeps working, while Pub/Sub is answered 500 at once, as a timed
// out function's caller is, and redelivers), a second publish of the same
// message, or a second concurrent delivery to the shard instance.
func (in *injector) shardPush(ctx context.Context, roll *roller) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			w.WriteHeader(http.StatusBadGateway)
			return
		}
		to := func(i *instance, c context.Context) int {
			i.inflight.Add(1)
			defer i.inflight.Add(-1)
			return forward(c, in.client, i.url(), r, body)
		}
		switch roll.next() {
		case 1:
			in.push.Zombies.Add(1)
			r = r.Clone(context.WithoutCancel(r.Context()))
			in.zombies.goDo(func() {
				t0 := time.Now()
				to(in.zombie, ctx)
				if time.Since(t0) > in.plan.lease {
					in.push.ZombiesPastLease.Add(1)
				}
			})
			w.WriteHeader(http.StatusInternalServerError)
			return
		case 2:
			if m, err := decodePush(body); err == nil {
				if _, err := in.republish.Publish(ctx, &pubsub.Message{Data: m.Message.Data, Attributes: m.Message.Attributes}).Get(ctx); err == nil {
					in.push.Republished.Add(1)
				}
			}
		case 3:
			in.push.Concurrent.Add(1)
			r2 := r.Clone(context.WithoutCancel(r.Context()))
			in.zombies.goDo(func() {
				in.shard.inflight.Add(1)
				defer in.shard.inflight.Add(-1)
				forward(ctx, in.client, in.shard.url(), r2, body)
			})
		}
		w.WriteHeader(to(in.shard, r.Context()))
	})
}

// plannerPush is the push endpoint of the events subscription: the first
// delivery's planner is killed (SIGKILL) at a random moment while it
// plans and publishes, and replaced; Pub/Sub redelivers the event.
func (in *injector) plannerPush(ctx context.Context) http.Handler {
	var first atomic.Bool
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			w.WriteHeader(http.StatusBadGateway)
			return
		}
		if !first.CompareAndSwap(false, true) {
			w.WriteHeader(forward(r.Context(), in.client, in.planner.url(), r, body))
			return
		}
		done := make(chan int, 1)
		in.planner.inflight.Add(1)
		go func() {
			defer in.planner.inflight.Add(-1)
			done <- forward(ctx, in.client, in.planner.url(), r, body)
		}()
		delay := time.Duration(20+rand.IntN(130)) * time.Millisecond
		select {
		case code := <-done:
			w.WriteHeader(code)
			return
		case <-time.After(delay):
		}
		if mid, err := in.planner.replace(ctx); err == nil && mid {
			in.push.PlannerKills.Add(1)
		}
		w.WriteHeader(<-done)
	})
}

// killer SIGKILLs the shard instance at random moments (mean
// plan.killEvery apart), preferring moments when it is working on a
// shard, and replaces it.
func (in *injector) killer(ctx context.Context, rng *rand.Rand) {
	defer close(in.killerDone)
	for range in.plan.maxKills {
		wait := time.Duration(float64(in.plan.killEvery) * (0.5 + rng.Float64()))
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		for in.shard.inflight.Load() == 0 {
			select {
			case <-ctx.Done():
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
		mid, err := in.shard.replace(ctx)
		if err != nil {
			return
		}
		in.push.Kills.Add(1)
		if mid {
			in.push.KillsMidShard.Add(1)
		}
	}
	<-ctx.Done()
}

// quiesce stops the killer and waits for the zombies to finish writing.
func (in *injector) quiesce() {
	if in.cancel != nil {
		in.cancel()
		<-in.killerDone
		in.cancel = nil
	}
	in.zombies.Wait()
}

func (in *injector) stopAll() {
	in.quiesce()
	for i := len(in.stops) - 1; i >= 0; i-- {
		in.stops[i]()
	}
	in.stops = nil
}

func (in *injector) stop() { in.stopAll() }

func (in *injector) peak() map[string]string {
	out := map[string]string{}
	for name, i := range map[string]*instance{"Planner": in.planner, "ShardFn": in.shard, "DeadLetter": in.dead} {
		i.mu.Lock()
		out[name] = i.fn.PeakRSS()
		i.mu.Unlock()
	}
	return out
}

func (in *injector) plannerLog() string { return in.planner.logs.String() }
