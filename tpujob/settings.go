package tpujob

import (
	"fmt"
	"strings"
	"time"

	b2t "github.com/foldcorpus/foldcorpus/internal/bio2token"
	"github.com/foldcorpus/foldcorpus/internal/bio2token/neural"
	"github.com/foldcorpus/foldcorpus/internal/config"
)

// Settings configure a tpujob process, read from the environment. The
// names are the ones infra/tpujob.tf sets (checked by infra's
// TestTPUJobEnvironment).
type Settings struct {
	Project          string        // FOLDCORPUS_PROJECT, else GOOGLE_CLOUD_PROJECT
	Subscription     string        // FOLDCORPUS_TOKENIZE_SUBSCRIPTION: the tokenize subscription id
	OutputPrefix     string        // FOLDCORPUS_OUTPUT_PREFIX: gs://BUCKET/PREFIX; the job touches only BUCKET (and the weights' bucket)
	FirestoreDB      string        // FOLDCORPUS_FIRESTORE_DATABASE, default config.DefaultFirestoreDB
	LedgerCollection string        // FOLDCORPUS_LEDGER_COLLECTION, default config.DefaultLedgerCollection
	LogLevel         string        // FOLDCORPUS_LOG_LEVEL: debug, info, warn, error; default info
	Backend          string        // FOLDCORPUS_TOKENIZE_BACKEND: "go" (CPU), "xla:tpu", "xla:cuda"; default "go"
	Weights          string        // FOLDCORPUS_TOKENIZE_WEIGHTS: checkpoint path or gs:// URI (required)
	Devices          int           // FOLDCORPUS_TOKENIZE_DEVICES: device workers, 0 = one per device
	Rungs            int           // FOLDCORPUS_TOKENIZE_RUNGS: ladder rungs per octave, default 4
	MaxInFlight      int           // FOLDCORPUS_TOKENIZE_MAX_IN_FLIGHT: shards in flight, default 16
	FlushAfter       time.Duration // FOLDCORPUS_TOKENIZE_FLUSH_AFTER: partial-batch wait, default 500ms
}

// SettingsFromEnv reads the settings with getenv (os.Getenv in
// production) and validates them.
func SettingsFromEnv(getenv func(string) string) (Settings, error) {
	e := config.NewEnv(getenv, "tpujob: ")
	s := Settings{
		Project:          e.String("FOLDCORPUS_PROJECT", e.Raw("GOOGLE_CLOUD_PROJECT")),
		Subscription:     e.String("FOLDCORPUS_TOKENIZE_SUBSCRIPTION", ""),
		OutputPrefix:     strings.TrimSuffix(e.String("FOLDCORPUS_OUTPUT_PREFIX", ""), "/"),
		FirestoreDB:      e.String("FOLDCORPUS_FIRESTORE_DATABASE", config.DefaultFirestoreDB),
		LedgerCollection: e.String("FOLDCORPUS_LEDGER_COLLECTION", config.DefaultLedgerCollection),
		LogLevel:         e.String("FOLDCORPUS_LOG_LEVEL", config.DefaultLogLevel),
		Backend:          e.String("FOLDCORPUS_TOKENIZE_BACKEND", "go"),
		Weights:          e.String("FOLDCORPUS_TOKENIZE_WEIGHTS", ""),
		Devices:          e.Int("FOLDCORPUS_TOKENIZE_DEVICES", 0),
		Rungs:            e.Int("FOLDCORPUS_TOKENIZE_RUNGS", b2t.DefaultRungs),
		MaxInFlight:      e.Int("FOLDCORPUS_TOKENIZE_MAX_IN_FLIGHT", 16),
		FlushAfter:       e.Duration("FOLDCORPUS_TOKENIZE_FLUSH_AFTER", 500*time.Millisecond),
	}
	if err := e.Err(); err != nil {
		return s, err
	}
	return s, s.Validate()
}

// Validate reports settings a process cannot start with.
func (s Settings) Validate() error {
	switch {
	case s.Project == "" || s.Subscription == "":
		return fmt.Errorf("tpujob: FOLDCORPUS_PROJECT (or GOOGLE_CLOUD_PROJECT) and FOLDCORPUS_TOKENIZE_SUBSCRIPTION are required")
	case s.Weights == "":
		return fmt.Errorf("tpujob: FOLDCORPUS_TOKENIZE_WEIGHTS (the bio2token checkpoint) is required")
	case !strings.HasPrefix(s.OutputPrefix, "gs://") || strings.Count(strings.TrimPrefix(s.OutputPrefix, "gs://"), "/") < 1:
		return fmt.Errorf("tpujob: FOLDCORPUS_OUTPUT_PREFIX=%q: want gs://BUCKET/PREFIX", s.OutputPrefix)
	case s.Devices < 0 || s.Rungs < 1 || s.Rungs > 16 || s.MaxInFlight < 1 || s.FlushAfter <= 0:
		return fmt.Errorf("tpujob: invalid settings %+v", s)
	}
	if err := config.CheckLogLevel(s.LogLevel); err != nil {
		return fmt.Errorf("tpujob: %w", err)
	}
	return nil
}

// OutputBucket is the bucket of OutputPrefix: staged inputs (under the
// staging prefix) and outputs are both there.
func (s Settings) OutputBucket() string {
	b, _, _ := strings.Cut(strings.TrimPrefix(s.OutputPrefix, "gs://"), "/")
	return b
}

// NewEncoder loads the weights (a local checkpoint file, or
// "generated:SEED") onto the configured backend; a gs:// Weights must be
// downloaded first (the command does) and its path passed as path. The
// "xla:*" backends need a binary that registers GoMLX's xla backend (blank
// import of github.com/gomlx/gomlx/backends/xla) and the PJRT plugin
// installed in the image; without them this returns an error naming the
// backend.
func (s Settings) NewEncoder() (*neural.Encoder, error) { return s.NewEncoderFrom(s.Weights) }

// NewEncoderFrom is NewEncoder with the weights read from path.
func (s Settings) NewEncoderFrom(path string) (*neural.Encoder, error) {
	return neural.Open(path, s.Backend)
}

// Config is the job configuration these settings give.
func (s Settings) Config() Config {
	return Config{Devices: s.Devices, Ladder: b2t.Ladder(s.Rungs), FlushAfter: s.FlushAfter}
}
