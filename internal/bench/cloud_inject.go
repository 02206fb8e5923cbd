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
	"google.golang.org/grpc/status"

	"github.com/foldcorpus/foldcorpus/internal/emulators"
	"github.com/foldcorpus/foldcorpus/internal/ledger"
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
	// that its shard outlives its lease and is claimed again, and every
	// other zombie's outlives zombieTimeout.
	zombieLatency time.Duration
	// ackDeadline is the shard subscription's ack deadline, and
	// zombieTimeout, past it, the function timeout at which every other
	// zombie delivery is answered 500 (the rest are answered at once), so
	// that Pub/Sub redelivers while the first delivery still works.
	ackDeadline, zombieTimeout time.Duration
	// killRate is the fraction of shard deliveries sent to an instance
	// that is SIGKILLed while it works on them (at a moment uniform in
	// [0, killWithin) after the delivery reaches it) and replaced. Each
	// such instance serves one delivery at a time, as the deployed shard
	// function does (infra/functions.tf: max_instance_request_concurrency
	// = 1), so a kill takes down one shard's delivery, not every delivery
	// in flight; and kills are spread over the deliveries, not the clock,
	// so that the last few shards of a run are not killed again and again
	// (a timer that waits for something in flight finds only them).
	killRate   float64
	killWithin time.Duration
	// txExpiry is how long a transaction its killed client left open
	// holds its locks (ledgerProxy.expireAbandoned): Firestore's 60 s idle
	// expiry scaled as the lease is (a fifteenth of it).
	txExpiry time.Duration
}

// victims is how many instances serve the deliveries rolled to be killed
// (a delivery rolled while all are busy goes to the shard instance).
const victims = 4

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

// enter and leave count a delivery in flight on the instance.
func (in *instance) enter() { in.inflight.Add(1) }

func (in *instance) leave() { in.inflight.Add(-1) }

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
// proxies in front of the functions, the shard instance, the instances that
// are killed under their delivery (victims) and the zombie instance.
type injector struct {
	plan           *faultPlan
	endpoints      map[string]string // function target -> push base URL
	storage        storageFaults
	ledger         ledgerFaults
	push           pushFaults
	shard          *instance
	zombie         *instance
	planner        *instance
	dead           *instance
	client         *http.Client
	victims        chan *instance // idle victim instances
	owed           atomic.Int64   // kills rolled and not yet done (see killDuring)
	victimList     []*instance
	zombies        group
	stops          []func()
	republish      *pubsub.Publisher
	plannerStorage *storageProxy
	// trace records each shard's deliveries and the kills (printTimeline).
	trace *shardTrace
}

func startInjector(ctx context.Context, p cloudPass, env []string, gcsURL string, ps *pubsub.Client) (_ *injector, err error) {
	plan := p.faults
	in := &injector{plan: plan, endpoints: map[string]string{}, client: &http.Client{}, victims: make(chan *instance, victims), trace: newShardTrace()}
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
	lp.txExpiry = plan.txExpiry
	lp.onCall = func(shard int, method string, t0 time.Time, err error) {
		if d := time.Since(t0); d > time.Second || (err != nil && !strings.HasSuffix(method, "/Rollback")) {
			in.trace.record(shard, "ledger "+method[strings.LastIndex(method, "/")+1:], int(status.Code(err)), t0, 0)
		}
	}
	base := append(append([]string(nil), env...), "FOLDCORPUS_LEASE="+plan.lease.String())
	fenv := append(append([]string(nil), base...), "STORAGE_EMULATOR_HOST="+faulty, emulators.Firestore.HostEnv()+"="+lp.addr)
	// The planner has a storage proxy of its own (the same faults, counted
	// together), so that its requests can be told apart (printTimeline).
	if in.plannerStorage, err = newStorageProxy(gcsURL, period, 0, &in.storage); err != nil {
		return nil, err
	}
	plannerHost, err := host(in.plannerStorage)
	if err != nil {
		return nil, err
	}
	penv := append(append([]string(nil), base...), "STORAGE_EMULATOR_HOST="+plannerHost, emulators.Firestore.HostEnv()+"="+lp.addr)
	for _, x := range []struct {
		dst    **instance
		target string
		env    []string
	}{{&in.shard, "ShardFn", fenv}, {&in.zombie, "ShardFn", append(append([]string(nil), base...), "STORAGE_EMULATOR_HOST="+slowHost)},
		{&in.planner, "Planner", penv}, {&in.dead, "DeadLetter", fenv}} {
		if *x.dst, err = startInstance(ctx, p.bin, x.target, x.env); err != nil {
			return nil, err
		}
		i := *x.dst
		in.stops = append(in.stops, i.stop)
	}
	for range victims {
		v, err := startInstance(ctx, p.bin, "ShardFn", fenv)
		if err != nil {
			return nil, err
		}
		in.stops = append(in.stops, v.stop)
		in.victims <- v
		in.victimList = append(in.victimList, v)
	}
	in.republish = ps.Publisher(cloudShardTopic)
	in.stops = append(in.stops, in.republish.Stop)
	roll := &roller{rng: rand.New(rand.NewPCG(plan.seed, 1)), rate: plan.rate, killRate: plan.killRate}
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
	return in, nil
}

// shardPush is the push endpoint of the shard subscription. Per delivery
// it injects (roller): a zombie (the delivery goes to the slow instance,
// which keeps working, while Pub/Sub is answered 500, as a timed out
// function's caller is, at once or, every other zombie, at
// plan.zombieTimeout, past the ack deadline; it redelivers), a second
// publish of the same
// message, a second concurrent delivery to the shard instance, or a kill
// (killDuring).
func (in *injector) shardPush(ctx context.Context, roll *roller) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			w.WriteHeader(http.StatusBadGateway)
			return
		}
		m, _ := decodePush(body)
		shard, attempt := shardOf(m), m.DeliveryAttempt
		to := func(i *instance, c context.Context) int {
			i.enter()
			defer i.leave()
			return forward(c, in.client, i.url(), r, body)
		}
		kind := roll.next()
		if kind == 4 {
			in.owed.Add(1)
		}
		if kind == 0 && in.owed.Load() > 0 {
			kind = 4 // a kill rolled earlier whose delivery was answered first
		}
		switch kind {
		case 1:
			// Every other zombie times out only after the subscription's
			// ack deadline: Pub/Sub redelivers the message while this
			// delivery is still open and its instance still working.
			late := in.push.Zombies.Add(1)%2 == 0
			r = r.Clone(context.WithoutCancel(r.Context()))
			finished := make(chan struct{})
			in.zombies.goDo(func() {
				defer close(finished)
				t0 := time.Now()
				code := to(in.zombie, ctx)
				if time.Since(t0) > in.plan.lease {
					in.push.ZombiesPastLease.Add(1)
				}
				in.trace.record(shard, traceZombie, attempt, t0, code)
			})
			if late {
				select {
				case <-time.After(in.plan.zombieTimeout):
					in.push.ZombiesPastAck.Add(1)
				case <-finished:
				case <-r.Context().Done():
				}
			}
			w.WriteHeader(http.StatusInternalServerError)
			return
		case 2:
			t0 := time.Now()
			if _, err := in.republish.Publish(ctx, &pubsub.Message{Data: m.Message.Data, Attributes: m.Message.Attributes}).Get(ctx); err == nil {
				in.push.Republished.Add(1)
				in.trace.record(shard, traceRepublish, attempt, t0, 0)
			}
		case 3:
			in.push.Concurrent.Add(1)
			r2 := r.Clone(context.WithoutCancel(r.Context()))
			in.zombies.goDo(func() {
				t0 := time.Now()
				in.shard.enter()
				defer in.shard.leave()
				code := forward(ctx, in.client, in.shard.url(), r2, body)
				in.trace.record(shard, traceConcurrent, attempt, t0, code)
			})
		case 4:
			select {
			case v := <-in.victims:
				t0 := time.Now()
				code := in.killDuring(ctx, v, shard, r, body)
				in.victims <- v
				in.trace.record(shard, "to a victim", attempt, t0, code)
				w.WriteHeader(code)
				return
			default: // every victim busy: an ordinary delivery
			}
		}
		t0 := time.Now()
		code := to(in.shard, r.Context())
		in.trace.record(shard, "delivery", attempt, t0, code)
		w.WriteHeader(code)
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
		t0 := time.Now()
		if !first.CompareAndSwap(false, true) {
			code := forward(r.Context(), in.client, in.planner.url(), r, body)
			in.trace.record(plannerKey, "delivery", 0, t0, code)
			w.WriteHeader(code)
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
			in.trace.record(plannerKey, "delivery", 0, t0, code)
			w.WriteHeader(code)
			return
		case <-time.After(delay):
		}
		if mid, err := in.planner.replace(ctx); err == nil && mid {
			in.push.PlannerKills.Add(1)
		}
		code := <-done
		in.trace.record(plannerKey, "killed", 0, t0, code)
		w.WriteHeader(code)
	})
}

// killDuring forwards a delivery to the victim instance v and SIGKILLs v
// at a random moment while it works on it (uniform in [0,
// plan.killWithin)), replacing it on its port as Cloud Run replaces an
// instance; it returns what the delivery was answered (503 when the kill
// cut it). A delivery answered before the kill moment is not killed: the
// kill stays owed (injector.owed), and the next delivery goes to a victim.
func (in *injector) killDuring(ctx context.Context, v *instance, shard int, r *http.Request, body []byte) int {
	done := make(chan int, 1)
	v.enter()
	go func() {
		defer v.leave()
		done <- forward(ctx, in.client, v.url(), r, body)
	}()
	select {
	case code := <-done:
		return code // answered before the kill: the kill stays owed
	case <-time.After(time.Duration(rand.Int64N(int64(in.plan.killWithin)))):
	}
	in.owed.Add(-1)
	mid, err := v.replace(ctx)
	if err == nil {
		in.push.Kills.Add(1)
		if mid {
			in.push.KillsMidShard.Add(1)
		}
		in.trace.kill([]int{shard})
	}
	return <-done
}

// quiesce waits for the zombies to finish writing.
func (in *injector) quiesce() { in.zombies.Wait() }

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

// printStall says where a fault pass stands when no shard has finished for
// a while: the deliveries in flight (the relay's, the instances'), and the
// unfinished shards' ledger records and traces.
func (in *injector) printStall(ctx context.Context, led ledger.Ledger, runID string, relay *pushRelay, quiet time.Duration) {
	fmt.Printf("stall: no shard finished for %s\n", quiet.Round(time.Second))
	if relay != nil {
		n, oldest := relay.inFlight(8)
		fmt.Printf("stall: relay has %d deliveries in flight; oldest %v\n", n, oldest)
	}
	fmt.Printf("stall: in flight on the shard instance %d, the zombie %d; %d of %d victims idle; kills owed %d\n",
		in.shard.inflight.Load(), in.zombie.inflight.Load(), len(in.victims), victims, in.owed.Load())
	shards, err := led.Shards(ctx, runID)
	if err != nil {
		fmt.Printf("stall: ledger: %v\n", err)
		return
	}
	shown := 0
	for _, sh := range shards {
		if sh.Status == ledger.Done || shown >= 10 {
			continue
		}
		shown++
		in.trace.mu.Lock()
		ev := events(in.trace.ev[sh.Index])
		in.trace.mu.Unlock()
		fmt.Printf("stall: shard %d %s attempts %d lease %s last error %q; deliveries %s\n",
			sh.Index, sh.Status, sh.Attempts, sh.Lease.Format(time.TimeOnly), sh.LastError, ev)
	}
}
