package bench

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"sync/atomic"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// ledgerFaults counts what a ledgerProxy injected.
type ledgerFaults struct {
	Aborted, Unavailable, LostAnswer atomic.Int64
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
	faults  *ledgerFaults
}

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
	p := &ledgerProxy{conn: conn, addr: ln.Addr().String(), period: period, faults: faults}
	p.srv = grpc.NewServer(grpc.ForceServerCodec(rawCodec{}), grpc.UnknownServiceHandler(p.handle))
	go p.srv.Serve(ln)
	return p, nil
}

func (p *ledgerProxy) stop() {
	p.srv.Stop()
	p.conn.Close()
}

func (p *ledgerProxy) handle(_ any, ss grpc.ServerStream) error {
	method, ok := grpc.MethodFromServerStream(ss)
	if !ok {
		return status.Error(codes.Internal, "ledgerProxy: no method")
	}
	lose := false
	if strings.HasSuffix(method, "/Commit") && p.period > 0 {
		if n := p.commits.Add(1); n%p.period == 0 {
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
					return status.Error(codes.Unavailable, "injected: the commit applied, its answer lost")
				}
				return nil
			}
			return err
		}
		if lose {
			continue // applied; the answer never reaches the caller
		}
		if err := ss.SendMsg(&m); err != nil {
			return err
		}
	}
}
