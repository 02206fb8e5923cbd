package tpujob

import (
	"fmt"
	"strconv"
	"time"

	b2t "github.com/foldcorpus/foldcorpus/internal/bio2token"
	fb2t "github.com/foldcorpus/foldcorpus/internal/formats/bio2token"
)

// Settings configure a tpujob process, read from the environment.
type Settings struct {
	Project      string        // GOOGLE_CLOUD_PROJECT
	Subscription string        // TPUJOB_SUBSCRIPTION: the tokenize subscription
	Backend      string        // TPUJOB_BACKEND: "go" (CPU), "xla:tpu", "xla:cuda"; default "go"
	Weights      string        // TPUJOB_WEIGHTS: checkpoint path (required)
	Devices      int           // TPUJOB_DEVICES: device workers, 0 = one per device
	Rungs        int           // TPUJOB_RUNGS: ladder rungs per octave, default 4
	MaxInFlight  int           // TPUJOB_MAX_IN_FLIGHT: shards in flight, default 16
	FlushAfter   time.Duration // TPUJOB_FLUSH_AFTER: partial-batch wait, default 500ms
}

// SettingsFromEnv reads the settings with getenv (os.Getenv in
// production) and validates them.
func SettingsFromEnv(getenv func(string) string) (Settings, error) {
	s := Settings{
		Project: getenv("GOOGLE_CLOUD_PROJECT"), Subscription: getenv("TPUJOB_SUBSCRIPTION"),
		Backend: getenv("TPUJOB_BACKEND"), Weights: getenv("TPUJOB_WEIGHTS"),
		Rungs: b2t.DefaultRungs, MaxInFlight: 16, FlushAfter: 500 * time.Millisecond,
	}
	if s.Backend == "" {
		s.Backend = "go"
	}
	for _, v := range []struct {
		key string
		dst *int
	}{{"TPUJOB_DEVICES", &s.Devices}, {"TPUJOB_RUNGS", &s.Rungs}, {"TPUJOB_MAX_IN_FLIGHT", &s.MaxInFlight}} {
		if raw := getenv(v.key); raw != "" {
			n, err := strconv.Atoi(raw)
			if err != nil {
				return s, fmt.Errorf("tpujob: %s=%q: %w", v.key, raw, err)
			}
			*v.dst = n
		}
	}
	if raw := getenv("TPUJOB_FLUSH_AFTER"); raw != "" {
		d, err := time.ParseDuration(raw)
		if err != nil {
			return s, fmt.Errorf("tpujob: TPUJOB_FLUSH_AFTER=%q: %w", raw, err)
		}
		s.FlushAfter = d
	}
	return s, s.Validate()
}

// Validate reports settings a process cannot start with.
func (s Settings) Validate() error {
	switch {
	case s.Project == "" || s.Subscription == "":
		return fmt.Errorf("tpujob: GOOGLE_CLOUD_PROJECT and TPUJOB_SUBSCRIPTION are required")
	case s.Weights == "":
		return fmt.Errorf("tpujob: TPUJOB_WEIGHTS (the bio2token checkpoint) is required")
	case s.Devices < 0 || s.Rungs < 1 || s.Rungs > 16 || s.MaxInFlight < 1 || s.FlushAfter <= 0:
		return fmt.Errorf("tpujob: invalid settings %+v", s)
	}
	return nil
}

// NewEncoder loads the weights onto the configured backend. The "xla:*"
// backends need a binary that registers GoMLX's xla backend (blank import
// of github.com/gomlx/gomlx/backends/xla) and the PJRT plugin installed in
// the image; without them this returns an error naming the backend.
func (s Settings) NewEncoder() (*b2t.Encoder, error) {
	w, err := fb2t.LoadWeights(s.Weights)
	if err != nil {
		return nil, err
	}
	backend, err := b2t.NewBackend(s.Backend)
	if err != nil {
		return nil, err
	}
	return b2t.NewEncoder(backend, w)
}

// Config is the job configuration these settings give.
func (s Settings) Config() Config {
	return Config{Devices: s.Devices, Ladder: b2t.Ladder(s.Rungs), FlushAfter: s.FlushAfter}
}
