package functions

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"cloud.google.com/go/firestore"
	"cloud.google.com/go/pubsub/v2"
	"cloud.google.com/go/storage"
	"github.com/cloudevents/sdk-go/v2/event"

	"github.com/foldcorpus/foldcorpus/internal/blob"
	"github.com/foldcorpus/foldcorpus/internal/cloudlog"
	"github.com/foldcorpus/foldcorpus/internal/firestoreledger"
	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/formats/registry"
	"github.com/foldcorpus/foldcorpus/internal/gcs"
	"github.com/foldcorpus/foldcorpus/internal/ledger"
	"github.com/foldcorpus/foldcorpus/internal/pubsubq"
	"github.com/foldcorpus/foldcorpus/internal/queue"
)

// Deps are a Server's adapters; NewServer builds the Google Cloud ones.
type Deps struct {
	Store     blob.Store
	Ledger    ledger.Ledger
	Publisher queue.Publisher
	// Tokenize, when set, receives the tokenize requests of neural-format
	// shards (staged for the accelerator job); nil runs them inline.
	Tokenize TokenizePublisher
	// NewFormat resolves formats (when nil, the builtin registry's, built
	// by New: the functions are a composition root; rotlib=gs://... is
	// read through Store, once per instance; it runs no bio2token encoder:
	// the deployed functions hand neural shards to the tokenize job).
	// Tests that run bio2token-v2 in the function set inprocess.New.
	NewFormat func(name string, opts map[string]string) (format.Format, error)
	Log       *slog.Logger
	Now       func() time.Time // time.Now when nil
}

// Server handles the functions' events. Safe for concurrent use (Cloud
// Functions may run several events per instance).
type Server struct {
	cfg  Config
	deps Deps
	stop func()
	// leaseWait: see LeaseWait (tests shorten it).
	leaseWait time.Duration
}

// New returns a Server over deps. cfg must be valid.
func New(cfg Config, deps Deps) *Server {
	if deps.Now == nil {
		deps.Now = time.Now
	}
	if deps.NewFormat == nil {
		// A library a format loads (rotlib=) is shared by the instance's
		// requests, so its read is not any one request's.
		deps.NewFormat = registry.Builtin().Constructor(context.Background(), format.Env{Store: deps.Store})
	}
	if deps.Log == nil {
		deps.Log = cloudlog.New(os.Stderr, slog.LevelInfo, cfg.Project)
	}
	return &Server{cfg: cfg, deps: deps, stop: func() {}, leaseWait: LeaseWait}
}

// NewServer validates cfg and connects the Google Cloud clients: GCS (reads
// limited to the configured buckets; userProject only on requests to the
// buckets configured requester-pays), the Firestore ledger, the Pub/Sub
// publisher on the shard topic. The clients honour STORAGE_EMULATOR_HOST,
// FIRESTORE_EMULATOR_HOST and PUBSUB_EMULATOR_HOST.
func NewServer(ctx context.Context, cfg Config) (_ *Server, err error) {
	if err := validate(cfg); err != nil {
		return nil, fmt.Errorf("functions: invalid configuration: %w", err)
	}
	sc, err := storage.NewClient(ctx)
	if err != nil {
		return nil, fmt.Errorf("functions: storage client: %w", err)
	}
	fc, err := firestore.NewClientWithDatabase(ctx, cfg.Project, cfg.FirestoreDB)
	if err != nil {
		sc.Close()
		return nil, fmt.Errorf("functions: firestore client: %w", err)
	}
	pc, err := pubsub.NewClient(ctx, cfg.Project)
	if err != nil {
		sc.Close()
		fc.Close()
		return nil, fmt.Errorf("functions: pubsub client: %w", err)
	}
	pub := pubsubq.New(pc, cfg.ShardTopic)
	var tok *PubSubTokenize
	var tokenizer TokenizePublisher
	if cfg.TokenizeTopic != "" {
		tok = NewPubSubTokenize(pc, cfg.TokenizeTopic)
		tokenizer = tok
	}
	s := New(cfg, Deps{
		Tokenize:  tokenizer,
		Store:     gcs.New(sc, gcs.Options{UserProject: cfg.UserProject, RequesterPays: cfg.RequesterPays, MaxObjectBytes: cfg.MaxObjectBytes, AllowedBuckets: cfg.Buckets()}),
		Ledger:    firestoreledger.New(fc, firestoreledger.Options{Collection: cfg.LedgerCollection}),
		Publisher: pub,
		Log:       cloudlog.New(os.Stderr, logLevel(cfg.LogLevel), cfg.Project),
	})
	s.stop = func() {
		pub.Stop()
		if tok != nil {
			tok.Stop()
		}
		pc.Close()
		fc.Close()
		sc.Close()
	}
	return s, nil
}

// Close flushes the publisher and closes the clients NewServer opened.
func (s *Server) Close() { s.stop() }

func logLevel(s string) slog.Level {
	var l slog.Level
	if err := l.UnmarshalText([]byte(s)); err != nil {
		return slog.LevelInfo
	}
	return l
}

// eventContext adds the event's trace (the W3C traceparent extension) to
// ctx for the log handler.
func eventContext(ctx context.Context, e event.Event) context.Context {
	if tp, ok := e.Extensions()["traceparent"].(string); ok {
		return cloudlog.WithTrace(ctx, tp)
	}
	return ctx
}

// tooOld reports whether an event is older than the retry window; such
// events are acknowledged without work (with a log line) so that a poisoned
// event cannot be retried forever.
func (s *Server) tooOld(ctx context.Context, log *slog.Logger, e event.Event, published time.Time) bool {
	t := e.Time()
	if !published.IsZero() {
		t = published
	}
	if t.IsZero() {
		return false
	}
	if age := s.deps.Now().Sub(t); age > s.cfg.RetryWindow {
		log.WarnContext(ctx, "dropping event older than the retry window", "event_id", e.ID(), "event_time", t, "age", age.Round(time.Second).String(), "retry_window", s.cfg.RetryWindow.String())
		return true
	}
	return false
}

// checkOutput requires uri to be a gs:// URI under the output prefix.
func (s *Server) checkOutput(uri string) error {
	if _, _, err := gcs.ParseURI(uri, nil); err != nil {
		return err
	}
	if !strings.HasPrefix(uri, s.cfg.OutputPrefix+"/") || strings.Contains(uri, "/../") {
		return fmt.Errorf("output %q is not under %s/", uri, s.cfg.OutputPrefix)
	}
	return nil
}

var errConfig = errors.New("functions: configuration")
