package tpujob

import (
	"fmt"

	b2t "github.com/foldcorpus/foldcorpus/internal/bio2token"
	"github.com/foldcorpus/foldcorpus/internal/bio2token/neural"
	"github.com/foldcorpus/foldcorpus/internal/config"
)

// SettingsFromEnv reads the job's variables (config.Vars(config.TPUJob),
// the names infra/tpujob.tf sets: infra's TestTPUJobEnvironment checks them)
// with getenv (os.Getenv in production) and validates them, reporting every
// malformed or missing setting at once.
func SettingsFromEnv(getenv func(string) string) (config.Config, error) {
	c, err := config.Read(getenv, config.TPUJob, "")
	if err == nil {
		err = c.Validate(config.TPUJob)
	}
	if err != nil {
		return c, fmt.Errorf("tpujob: %w", err)
	}
	return c, nil
}

// NewEncoder loads the weights read from path (a local checkpoint file, or
// "generated:SEED"; a gs:// c.Weights must be downloaded first, as the
// command does) onto c.Backend. The "xla:*" backends need a binary that
// registers GoMLX's xla backend (blank import of
// github.com/gomlx/gomlx/backends/xla) and the PJRT plugin installed in the
// image; without them this returns an error naming the backend.
func NewEncoder(c config.Config, path string) (*neural.Encoder, error) {
	return neural.Open(path, c.Backend)
}

// JobConfig is the job configuration c gives.
func JobConfig(c config.Config) Config {
	return Config{Devices: c.Devices, Ladder: b2t.Ladder(c.Rungs), FlushAfter: c.FlushAfter}
}
