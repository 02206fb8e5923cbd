package firestoreledger

import (
	"context"
	"errors"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"cloud.google.com/go/firestore"
	"google.golang.org/api/option"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/ledger"
)

// ownerCreds is the emulator's credential, as the client library sends it.
type ownerCreds struct{}

func (ownerCreds) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{"authorization": "Bearer owner"}, nil
}
func (ownerCreds) RequireTransportSecurity() bool { return false }

// TestClaimCommitAnswerLost: the claim's commit applies in the emulator
// but its answer is lost on the way back (the connection drops). Claim
// reads the shard back, finds its own token and returns the claim; before,
// it returned an error, and the claim it had made turned every redelivery
// away ("claimed by another worker") until the lease ended, with no one
// working on the shard.
func TestClaimCommitAnswerLost(t *testing.T) {
	ctx := context.Background()
	var drop atomic.Int32 // commits whose answer is lost
	conn, err := grpc.NewClient(os.Getenv("FIRESTORE_EMULATOR_HOST"),
		grpc.WithTransportCredentials(insecure.NewCredentials()), grpc.WithPerRPCCredentials(ownerCreds{}),
		grpc.WithChainUnaryInterceptor(func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoke grpc.UnaryInvoker, opts ...grpc.CallOption) error {
			err := invoke(ctx, method, req, reply, cc, opts...)
			if err == nil && strings.HasSuffix(method, "/Commit") && drop.Add(-1) >= 0 {
				return status.Error(codes.Unavailable, "connection reset by peer (test)")
			}
			return err
		}))
	if err != nil {
		t.Fatal(err)
	}
	c, err := firestore.NewClient(ctx, "test-claim-commit-answer-lost", option.WithGRPCConn(conn))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	l := New(c, Options{})
	if err := l.CreateRun(ctx, ledger.Run{ID: runID, Shards: 1}); err != nil {
		t.Fatal(err)
	}
	drop.Store(1)
	s, err := l.Claim(ctx, runID, 0, time.Minute)
	if drop.Load() >= 1 {
		t.Fatal("no commit answer was dropped")
	}
	if err != nil || s.Status != ledger.Running || s.Attempts != 1 {
		t.Fatalf("Claim whose commit answer was lost = %+v, %v; want the claim (running, attempt 1)", s, err)
	}
	// The claim is really held: another claimer is turned away.
	if _, err := l.Claim(ctx, runID, 0, time.Minute); !errors.Is(err, derrors.ErrTransient) {
		t.Errorf("a second claim = %v, want claimed by another worker", err)
	}
	// Release and complete clear the token: the shard's next claim is new.
	if err := l.Release(ctx, s); err != nil {
		t.Fatal(err)
	}
	if s, err := l.Claim(ctx, runID, 0, time.Minute); err != nil || s.Attempts != 2 {
		t.Errorf("claim after release = %+v, %v; want attempt 2", s, err)
	}
}
