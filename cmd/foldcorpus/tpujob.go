package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"cloud.google.com/go/firestore"
	"cloud.google.com/go/pubsub/v2"
	"cloud.google.com/go/storage"

	"github.com/foldcorpus/foldcorpus/internal/blob"
	"github.com/foldcorpus/foldcorpus/internal/cloudlog"
	"github.com/foldcorpus/foldcorpus/internal/config"
	"github.com/foldcorpus/foldcorpus/internal/firestoreledger"
	"github.com/foldcorpus/foldcorpus/internal/gcs"
	"github.com/foldcorpus/foldcorpus/tpujob"
)

// tpujobDrain is how long the shards in flight may run after SIGTERM: a
// spot TPU VM gets 30 s notice; the startup script gives docker stop 30 s.
const tpujobDrain = 25 * time.Second

func runTPUJob(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("tpujob", flag.ContinueOnError)
	drain := fs.Duration("drain", tpujobDrain, "after SIGTERM, how long the shards in flight may run before they are released and nacked")
	if err := parseFlags(fs, args); err != nil {
		return &exitError{2, err}
	}
	s, err := tpujob.SettingsFromEnv(os.Getenv)
	if err != nil {
		return &exitError{2, err}
	}
	var level slog.Level
	_ = level.UnmarshalText([]byte(s.LogLevel)) // validated by SettingsFromEnv
	return serveTPUJob(ctx, s, *drain, cloudlog.New(os.Stderr, level, s.Project))
}

// serveTPUJob connects the Google Cloud adapters (they honour
// STORAGE_EMULATOR_HOST, FIRESTORE_EMULATOR_HOST and PUBSUB_EMULATOR_HOST),
// loads the weights, compiles every bucket and pulls tokenize requests
// until ctx ends (SIGTERM); then it stops pulling and lets the shards in
// flight finish for up to drain (see tpujob.Job.ReceiveDrain). It returns
// nil after a clean stop.
func serveTPUJob(ctx context.Context, s config.Config, drain time.Duration, log *slog.Logger) error {
	start := time.Now()
	// The clients outlive ctx: the shards in flight still write, mark
	// done and ack after SIGTERM.
	cctx := context.WithoutCancel(ctx)
	sc, err := storage.NewClient(cctx)
	if err != nil {
		return fmt.Errorf("storage client: %w", err)
	}
	defer sc.Close()
	buckets := []string{s.OutputBucket()}
	if b, _, err := gcs.ParseURI(s.Weights, nil); err == nil && b != s.OutputBucket() {
		buckets = append(buckets, b)
	}
	store := gcs.New(sc, gcs.Options{AllowedBuckets: buckets})
	fc, err := firestore.NewClientWithDatabase(cctx, s.Project, s.FirestoreDB)
	if err != nil {
		return fmt.Errorf("firestore client: %w", err)
	}
	defer fc.Close()
	pc, err := pubsub.NewClient(cctx, s.Project)
	if err != nil {
		return fmt.Errorf("pubsub client: %w", err)
	}
	defer pc.Close()

	weights, cleanup, err := localWeights(ctx, store, s.Weights)
	if err != nil {
		return err
	}
	enc, err := tpujob.NewEncoder(s, weights)
	cleanup()
	if err != nil {
		return err
	}
	cfg := tpujob.JobConfig(s)
	cfg.Logger = log
	job, err := tpujob.New(cfg, enc, store, firestoreledger.New(fc, firestoreledger.Options{Collection: s.LedgerCollection}))
	if err != nil {
		return err
	}
	defer job.Close()
	st := job.Stats()
	log.Info("tpujob started", "subscription", s.Subscription, "backend", s.Backend, "devices", len(st.DeviceBatches),
		"buckets", len(cfg.Ladder), "compiles", st.Compiles, "max_in_flight", s.MaxInFlight, "startup_seconds", time.Since(start).Seconds())
	err = job.ReceiveDrain(ctx, pc.Subscriber(s.Subscription), s.MaxInFlight, drain)
	st = job.Stats()
	log.Info("tpujob stopped", "device_batches", st.DeviceBatches, "device_atoms", st.DeviceAtoms,
		"padding_efficiency", st.PaddingEfficiency, "compiles", st.Compiles)
	if err != nil && !errors.Is(err, context.Canceled) {
		return fmt.Errorf("receiving from %s: %w", s.Subscription, err)
	}
	return nil
}

// localWeights returns a local path for the weights setting: a remote
// checkpoint (gs://) is downloaded through store to a temporary file
// (removed by cleanup once loaded); a path, a file:// URI or
// generated:SEED is passed through.
func localWeights(ctx context.Context, store blob.Store, spec string) (path string, cleanup func(), err error) {
	if blob.IsLocal(spec) {
		return spec, func() {}, nil
	}
	data, err := store.ReadAll(ctx, spec)
	if err != nil {
		return "", nil, fmt.Errorf("weights %s: %w", spec, err)
	}
	dir, err := os.MkdirTemp("", "foldcorpus-weights-")
	if err != nil {
		return "", nil, err
	}
	cleanup = func() { os.RemoveAll(dir) }
	path = filepath.Join(dir, "bio2token.ckpt")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		cleanup()
		return "", nil, err
	}
	return path, cleanup, nil
}
