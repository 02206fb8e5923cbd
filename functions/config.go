package functions

import (
	"github.com/foldcorpus/foldcorpus/internal/config"
	"github.com/foldcorpus/foldcorpus/internal/formats/registry"
)

// Config is the functions' configuration: the processes' one Config
// (package internal/config), of which the functions read the variables
// listed in the package doc (config.Vars(config.Functions)).
type Config = config.Config

// Defaults for the optional settings.
const (
	DefaultFormat           = registry.Default
	DefaultFetchConcurrency = config.DefaultFetchConcurrency
	DefaultMaxObjectBytes   = config.DefaultMaxObjectBytes
	DefaultRetryWindow      = config.DefaultRetryWindow
	DefaultLease            = config.DefaultLease
	DefaultLedgerCollection = config.DefaultLedgerCollection
)

// FromEnv reads the functions' variables with getenv (os.Getenv when nil).
// It reports malformed numbers, durations and booleans; validate for the
// rest.
func FromEnv(getenv func(string) string) (Config, error) {
	return config.Read(getenv, config.Functions, DefaultFormat)
}

// validate reports every missing or out-of-range setting of the functions
// at once.
func validate(c Config) error { return c.Validate(config.Functions) }
