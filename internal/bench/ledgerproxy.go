package bench

import (
	"context"
	"errors"
	"io"
	"net"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"cloud.google.com/go/firestore/apiv1/firestorepb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/stats"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// ledgerFaults counts what a ledgerProxy injected.
type ledgerFaults struct {
	Aborted, Unavailable, LostAnswer atomic.Int64
	// Expired counts the transactions of killed clients rolled back
	// (ledgerProxy.expireAbandoned).
	Expired atomic.Int64
	// Slow counts the calls that took over slowCall, and slowest is the
	// longest call (its method and duration), for printTimeline.
	Slow    atomic.Int64
	mu      sync.Mutex
	slowest string
	longest time.Duration
}

// slowCall is how long a ledger call takes before ledgerFaults counts it
// slow.
const slowCall = 2 * time.Second

func (f *ledgerFaults) took(method string, d time.Duration) {
	if d < slowCall {
		return
	}
	f.Slow.Add(1)
	f.mu.Lock()
	defer f.mu.Unlock()
	if d > f.longest {
		f.longest, f.slowest = d, method
	}
}

// rawCodec passes gRPC messages through as bytes.
type rawCodec struct{}

func (rawCodec) Marshal(v any) ([]byte, error) {
	b, ok := v.(*[]byte)
	if !ok {
		return nil, errors.New("rawCodec: not *[]byte")
	}
	return *b, nil
}

func (rawCodec) Unmarshal(data []byte, v any) error {
	b, ok := v.(*[]byte)
	if !ok {
		return errors.New("rawCodec: not *[]byte")
	}
	*b = append((*b)[:0], data...)
	return nil
}

func (rawCodec) Name() string { return "proto" }

// ledgerProxy is a gRPC proxy in front of the Firestore emulator that
// injects the errors Firestore is documented to give: every period-th
// commit (cycling) is answered ABORTED or UNAVAILABLE without reaching the
// emulator, or is applied and then answered UNAVAILABLE (a commit whose
// answer was lost). Everything else passes through unchanged.
type ledgerProxy struct {
	conn    *grpc.ClientConn
	srv     *grpc.Server
	addr    string
	period  int64
	commits atomic.Int64
	// loseOwed counts lost-answer slots whose commit failed upstream
	// before it applied: the next commit takes the slot, so that every
	// slot injects one applied-but-lost commit (a short run has few).
	loseOwed atomic.Int64
	faults   *ledgerFaults
	// onCall, when set, is told of every call: the shard document it
	// names (-1 if none), its method, when it started and its error.
	onCall func(shard int, method string, t0 time.Time, err error)
	// txs are the transactions begun and not yet committed or rolled back,
	// by the client connection that began them (see expireAbandoned).
	txMu     sync.Mutex
	txs      map[string]map[string]openTx // client address -> transaction id -> the transaction
	database string                       // the database the transactions are in
	// txExpiry, when set, is how long after its client's connection
	// closes (the process killed) an open transaction is rolled back.
	txExpiry time.Duration
}

// openTx is a transaction a client began and has not ended.
type openTx struct{ id []byte }

func startLedgerProxy(target string, period int64, faults *ledgerFaults) (*ledgerProxy, error) {
	conn, err := grpc.NewClient(target, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.ForceCodec(rawCodec{})))
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		conn.Close()
		return nil, err
	}
	p := &ledgerProxy{conn: conn, addr: ln.Addr().String(), period: period, faults: faults, txs: map[string]map[string]openTx{}}
	p.srv = grpc.NewServer(grpc.ForceServerCodec(rawCodec{}), grpc.UnknownServiceHandler(p.handle), grpc.StatsHandler(connEnds{p}))
	go p.srv.Serve(ln)
	return p, nil
}

func (p *ledgerProxy) stop() {
	p.srv.Stop()
	p.conn.Close()
}

// shardDocName finds a shard document's name in a raw request.
var shardDocName = regexp.MustCompile(`/shards/(\d{6})`)

func (p *ledgerProxy) handle(_ any, ss grpc.ServerStream) (err error) {
	method, ok := grpc.MethodFromServerStream(ss)
	if !ok {
		return status.Error(codes.Internal, "ledgerProxy: no method")
	}
	var shard atomic.Int64 // the shard document the call names, -1 if none
	shard.Store(-1)
	client := ""
	if pr, ok := peer.FromContext(ss.Context()); ok {
		client = pr.Addr.String()
	}
	var endTx atomic.Pointer[[]byte] // the transaction a Commit or Rollback ends
	defer func(t0 time.Time) {
		if id := endTx.Load(); id != nil && err == nil {
			p.forget(*id)
		}
		p.faults.took(method, time.Since(t0))
		if p.onCall != nil {
			p.onCall(int(shard.Load()), method, t0, err)
		}
	}(time.Now())
	lose := false
	if strings.HasSuffix(method, "/Commit") && p.period > 0 {
		if owed := p.loseOwed.Load(); owed > 0 && p.loseOwed.CompareAndSwap(owed, owed-1) {
			lose = true
		} else if n := p.commits.Add(1); n%p.period == 0 {
			switch (n / p.period) % 3 {
			case 0:
				p.faults.Aborted.Add(1)
				return status.Error(codes.Aborted, "injected: too much contention on these documents")
			case 1:
				p.faults.Unavailable.Add(1)
				return status.Error(codes.Unavailable, "injected: the service is unavailable")
			default:
				lose = true
			}
		}
	}
	lost := false // the lost-answer slot was used: the commit applied
	defer func() {
		if lose && !lost {
			p.loseOwed.Add(1) // the commit did not apply: the next one is lost instead
		}
	}()
	ctx, cancel := context.WithCancel(ss.Context())
	defer cancel()
	if md, ok := metadata.FromIncomingContext(ctx); ok {
		ctx = metadata.NewOutgoingContext(ctx, md.Copy())
	}
	cs, err := p.conn.NewStream(ctx, &grpc.StreamDesc{ServerStreams: true, ClientStreams: true}, method)
	if err != nil {
		return err
	}
	up := make(chan error, 1)
	go func() {
		for {
			var m []byte
			if err := ss.RecvMsg(&m); err != nil {
				if errors.Is(err, io.EOF) {
					up <- cs.CloseSend()
				} else {
					up <- err
				}
				return
			}
			if id := p.ends(method, m); id != nil {
				endTx.Store(&id)
			}
			if sm := shardDocName.FindSubmatch(m); sm != nil && shard.Load() < 0 {
				n, _ := strconv.Atoi(string(sm[1]))
				shard.Store(int64(n))
			}
			if err := cs.SendMsg(&m); err != nil {
				up <- err
				return
			}
		}
	}()
	if md, err := cs.Header(); err == nil {
		ss.SendHeader(md)
	}
	for {
		var m []byte
		if err := cs.RecvMsg(&m); err != nil {
			ss.SetTrailer(cs.Trailer())
			if errors.Is(err, io.EOF) {
				if lose {
					p.faults.LostAnswer.Add(1)
					lost = true
					return status.Error(codes.Unavailable, "injected: the commit applied, its answer lost")
				}
				return nil
			}
			return err
		}
		if lose {
			continue // applied; the answer never reaches the caller
		}
		p.begun(client, method, m)
		if err := ss.SendMsg(&m); err != nil {
			return err
		}
	}
}

// begun records the transaction a BeginTransaction answer m opened for the
// client connection client.
func (p *ledgerProxy) begun(client, method string, m []byte) {
	if !strings.HasSuffix(method, "/BeginTransaction") {
		return
	}
	var res firestorepb.BeginTransactionResponse
	if proto.Unmarshal(m, &res) != nil || len(res.Transaction) == 0 {
		return
	}
	p.txMu.Lock()
	defer p.txMu.Unlock()
	if p.txs[client] == nil {
		p.txs[client] = map[string]openTx{}
	}
	p.txs[client][string(res.Transaction)] = openTx{id: res.Transaction}
}

// ends returns the transaction a Commit or Rollback request m ends (it is
// forgotten once the call succeeds: one cut short leaves it open), and notes
// the database of a BeginTransaction request (for the rollback of an
// abandoned transaction).
func (p *ledgerProxy) ends(method string, m []byte) []byte {
	switch {
	case strings.HasSuffix(method, "/Commit"):
		var req firestorepb.CommitRequest
		if proto.Unmarshal(m, &req) == nil {
			return req.Transaction
		}
	case strings.HasSuffix(method, "/Rollback"):
		var req firestorepb.RollbackRequest
		if proto.Unmarshal(m, &req) == nil {
			return req.Transaction
		}
	case strings.HasSuffix(method, "/BeginTransaction"):
		var req firestorepb.BeginTransactionRequest
		if proto.Unmarshal(m, &req) == nil {
			p.txMu.Lock()
			p.database = req.Database
			p.txMu.Unlock()
		}
	}
	return nil
}

// forget drops an ended transaction.
func (p *ledgerProxy) forget(id []byte) {
	if len(id) == 0 {
		return
	}
	p.txMu.Lock()
	defer p.txMu.Unlock()
	for _, open := range p.txs {
		delete(open, string(id))
	}
}

// expireAbandoned rolls back, txExpiry after the client connection closed,
// the transactions it left open: a client SIGKILLed inside a transaction
// leaves its locks on the documents it read, and every other transaction on
// them waits and is answered ABORTED until the transaction expires. Firestore
// expires an idle transaction after 60 s (its documented limits: 270 s, 60 s
// idle), a fifteenth of the deployed 15-minute claim lease; the emulator
// about the same, which in a run whose lease is seconds long would stall a
// killed shard for a minute, not for the time-scaled fifteenth of its lease.
func (p *ledgerProxy) expireAbandoned(client string) {
	p.txMu.Lock()
	open, db := p.txs[client], p.database
	delete(p.txs, client)
	p.txMu.Unlock()
	if len(open) == 0 || p.txExpiry <= 0 || db == "" {
		return
	}
	time.AfterFunc(p.txExpiry, func() {
		for _, tx := range open {
			req, err := proto.Marshal(&firestorepb.RollbackRequest{Database: db, Transaction: tx.id})
			if err != nil {
				continue
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			var res []byte
			if p.conn.Invoke(ctx, "/google.firestore.v1.Firestore/Rollback", &req, &res) == nil {
				p.faults.Expired.Add(1)
			}
			cancel()
		}
	})
}

// connEnds tells the proxy when a client connection closes.
type connEnds struct{ p *ledgerProxy }

type connKey struct{}

func (connEnds) TagRPC(ctx context.Context, _ *stats.RPCTagInfo) context.Context { return ctx }
func (connEnds) HandleRPC(context.Context, stats.RPCStats)                       {}
func (connEnds) TagConn(ctx context.Context, info *stats.ConnTagInfo) context.Context {
	return context.WithValue(ctx, connKey{}, info.RemoteAddr.String())
}
func (c connEnds) HandleConn(ctx context.Context, s stats.ConnStats) {
	if _, ok := s.(*stats.ConnEnd); ok {
		if client, ok := ctx.Value(connKey{}).(string); ok {
			c.p.expireAbandoned(client)
		}
	}
}
