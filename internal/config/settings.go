package config

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/foldcorpus/foldcorpus/internal/gcs"
)

// A Process is one of the programs whose environment Config reads; each
// reads its own set of variables (Vars).
type Process uint8

const (
	// Functions are the Cloud Functions (package functions).
	Functions Process = 1 << iota
	// TPUJob is the accelerator job (package tpujob, `foldcorpus tpujob`).
	TPUJob
	// CLI is the CLI's cloud commands (status --run, rerun): the variables
	// give their flags' defaults.
	CLI
)

// Defaults of the functions' optional settings.
const (
	DefaultFetchConcurrency = 32
	DefaultMaxObjectBytes   = 512 << 20
	DefaultRetryWindow      = 24 * time.Hour
	DefaultLease            = 15 * time.Minute
	DefaultTokenizeBackend  = "go"
	DefaultTokenizeRungs    = 4 // ladder rungs per octave (bio2token.DefaultRungs)
	DefaultMaxInFlight      = 16
	DefaultFlushAfter       = 500 * time.Millisecond
)

// Config is the configuration of the deployed processes, read once from
// the environment by Read (each process its own variables: see Vars) and
// checked by Validate. The comment of each field names its variable.
type Config struct {
	Project       string   // FOLDCORPUS_PROJECT, else GOOGLE_CLOUD_PROJECT
	Region        string   // FOLDCORPUS_REGION
	InputBuckets  []string // FOLDCORPUS_INPUT_BUCKETS (comma-separated)
	OutputPrefix  string   // FOLDCORPUS_OUTPUT_PREFIX: gs://BUCKET/PREFIX, no trailing slash
	ShardTopic    string   // FOLDCORPUS_SHARD_TOPIC
	TokenizeTopic string   // FOLDCORPUS_TOKENIZE_TOPIC (optional)
	// StagingPrefix is where shards of a neural format stage their inputs
	// for the accelerator job (FOLDCORPUS_STAGING_PREFIX, optional:
	// gs://OUTPUT_BUCKET/PREFIX; see Staging).
	StagingPrefix    string
	DefaultFormat    string        // FOLDCORPUS_FORMAT, default registry.Default (given to Read)
	FetchConcurrency int           // FOLDCORPUS_FETCH_CONCURRENCY
	MaxObjectBytes   int64         // FOLDCORPUS_MAX_OBJECT_BYTES
	RetryWindow      time.Duration // FOLDCORPUS_RETRY_WINDOW
	Lease            time.Duration // FOLDCORPUS_LEASE
	UserProject      string        // FOLDCORPUS_USER_PROJECT (default: Project when RequesterPays is set)
	// RequesterPays are the input buckets configured requester-pays
	// (FOLDCORPUS_REQUESTER_PAYS_BUCKETS, comma-separated; default none):
	// only requests to them carry UserProject.
	RequesterPays     []string
	FirestoreDB       string // FOLDCORPUS_FIRESTORE_DATABASE
	LedgerCollection  string // FOLDCORPUS_LEDGER_COLLECTION
	RowGroupsPerShard int    // FOLDCORPUS_ROW_GROUPS_PER_SHARD
	LogLevel          string // FOLDCORPUS_LOG_LEVEL (debug, info, warn, error)
	// TriggerParquet: a finalized NAME.parquet starts a run by itself
	// (FOLDCORPUS_TRIGGER_PARQUET, default true); when false only
	// NAME.run.json objects do.
	TriggerParquet bool

	Subscription string        // FOLDCORPUS_TOKENIZE_SUBSCRIPTION: the tokenize subscription id
	Backend      string        // FOLDCORPUS_TOKENIZE_BACKEND: "go" (CPU), "xla:tpu", "xla:cuda"
	Weights      string        // FOLDCORPUS_TOKENIZE_WEIGHTS: checkpoint path or gs:// URI
	Devices      int           // FOLDCORPUS_TOKENIZE_DEVICES: device workers, 0 = one per device
	Rungs        int           // FOLDCORPUS_TOKENIZE_RUNGS: ladder rungs per octave
	MaxInFlight  int           // FOLDCORPUS_TOKENIZE_MAX_IN_FLIGHT: shards in flight
	FlushAfter   time.Duration // FOLDCORPUS_TOKENIZE_FLUSH_AFTER: partial-batch wait
}

// variable is one environment variable: who reads it, and how.
type variable struct {
	name  string
	procs Process
	read  func(c *Config, e *Env, name string)
}

const (
	fn  = Functions
	all = Functions | TPUJob | CLI
)

// variables is every FOLDCORPUS_* variable: the one list Read reads and
// Vars returns (infra's tests check it against the Terraform).
var variables = []variable{
	{"FOLDCORPUS_PROJECT", all, func(c *Config, e *Env, k string) { c.Project = e.String(k, e.String("GOOGLE_CLOUD_PROJECT", "")) }},
	{"FOLDCORPUS_REGION", fn | CLI, func(c *Config, e *Env, k string) { c.Region = e.String(k, "") }},
	{"FOLDCORPUS_INPUT_BUCKETS", fn, func(c *Config, e *Env, k string) { c.InputBuckets = e.List(k) }},
	{"FOLDCORPUS_OUTPUT_PREFIX", fn | TPUJob, func(c *Config, e *Env, k string) { c.OutputPrefix = strings.TrimSuffix(e.String(k, ""), "/") }},
	{"FOLDCORPUS_SHARD_TOPIC", fn | CLI, func(c *Config, e *Env, k string) { c.ShardTopic = e.String(k, "") }},
	{"FOLDCORPUS_TOKENIZE_TOPIC", fn, func(c *Config, e *Env, k string) { c.TokenizeTopic = e.String(k, "") }},
	{"FOLDCORPUS_STAGING_PREFIX", fn, func(c *Config, e *Env, k string) { c.StagingPrefix = strings.TrimSuffix(e.String(k, ""), "/") }},
	{"FOLDCORPUS_FORMAT", fn, func(c *Config, e *Env, k string) { c.DefaultFormat = e.String(k, c.DefaultFormat) }},
	{"FOLDCORPUS_FETCH_CONCURRENCY", fn, func(c *Config, e *Env, k string) { c.FetchConcurrency = e.Int(k, DefaultFetchConcurrency) }},
	{"FOLDCORPUS_MAX_OBJECT_BYTES", fn, func(c *Config, e *Env, k string) { c.MaxObjectBytes = int64(e.Int(k, DefaultMaxObjectBytes)) }},
	{"FOLDCORPUS_RETRY_WINDOW", fn, func(c *Config, e *Env, k string) { c.RetryWindow = e.Duration(k, DefaultRetryWindow) }},
	{"FOLDCORPUS_LEASE", fn, func(c *Config, e *Env, k string) { c.Lease = e.Duration(k, DefaultLease) }},
	{"FOLDCORPUS_USER_PROJECT", fn | CLI, func(c *Config, e *Env, k string) { c.UserProject = e.String(k, "") }},
	{"FOLDCORPUS_REQUESTER_PAYS_BUCKETS", fn | CLI, func(c *Config, e *Env, k string) { c.RequesterPays = e.List(k) }},
	{"FOLDCORPUS_FIRESTORE_DATABASE", all, func(c *Config, e *Env, k string) { c.FirestoreDB = e.String(k, DefaultFirestoreDB) }},
	{"FOLDCORPUS_LEDGER_COLLECTION", all, func(c *Config, e *Env, k string) { c.LedgerCollection = e.String(k, DefaultLedgerCollection) }},
	{"FOLDCORPUS_ROW_GROUPS_PER_SHARD", fn, func(c *Config, e *Env, k string) { c.RowGroupsPerShard = e.Int(k, 0) }},
	{"FOLDCORPUS_LOG_LEVEL", fn | TPUJob, func(c *Config, e *Env, k string) { c.LogLevel = e.String(k, DefaultLogLevel) }},
	{"FOLDCORPUS_TRIGGER_PARQUET", fn, func(c *Config, e *Env, k string) { c.TriggerParquet = e.Bool(k, true) }},
	{"FOLDCORPUS_TOKENIZE_SUBSCRIPTION", TPUJob, func(c *Config, e *Env, k string) { c.Subscription = e.String(k, "") }},
	{"FOLDCORPUS_TOKENIZE_BACKEND", TPUJob, func(c *Config, e *Env, k string) { c.Backend = e.String(k, DefaultTokenizeBackend) }},
	{"FOLDCORPUS_TOKENIZE_WEIGHTS", TPUJob, func(c *Config, e *Env, k string) { c.Weights = e.String(k, "") }},
	{"FOLDCORPUS_TOKENIZE_DEVICES", TPUJob, func(c *Config, e *Env, k string) { c.Devices = e.Int(k, 0) }},
	{"FOLDCORPUS_TOKENIZE_RUNGS", TPUJob, func(c *Config, e *Env, k string) { c.Rungs = e.Int(k, DefaultTokenizeRungs) }},
	{"FOLDCORPUS_TOKENIZE_MAX_IN_FLIGHT", TPUJob, func(c *Config, e *Env, k string) { c.MaxInFlight = e.Int(k, DefaultMaxInFlight) }},
	{"FOLDCORPUS_TOKENIZE_FLUSH_AFTER", TPUJob, func(c *Config, e *Env, k string) { c.FlushAfter = e.Duration(k, DefaultFlushAfter) }},
}

// Vars returns the FOLDCORPUS_* variables p reads, sorted: what its
// deployment must set (infra's tests compare them with the Terraform).
// GOOGLE_CLOUD_PROJECT, the platform's, is read too (FOLDCORPUS_PROJECT's
// fallback) and not listed.
func Vars(p Process) []string {
	var out []string
	for _, v := range variables {
		if v.procs&p != 0 {
			out = append(out, v.name)
		}
	}
	slices.Sort(out)
	return out
}

// Read reads p's variables with getenv (os.Getenv when nil); the others
// keep their zero values. defaultFormat is FOLDCORPUS_FORMAT's default (the
// format registry's, which this package does not import). It reports every
// malformed number, duration and boolean at once; Validate checks the rest.
func Read(getenv func(string) string, p Process, defaultFormat string) (Config, error) {
	e := NewEnv(getenv, "")
	c := Config{DefaultFormat: defaultFormat}
	for _, v := range variables {
		if v.procs&p != 0 {
			v.read(&c, e, v.name)
		}
	}
	if p&Functions != 0 && len(c.RequesterPays) > 0 && c.UserProject == "" {
		c.UserProject = c.Project // the CLI's --user-project defaults to its --project instead
	}
	return c, e.Err()
}

// Validate reports every missing or out-of-range setting of p at once.
func (c Config) Validate(p Process) error {
	var errs []error
	need := func(v, key string) {
		if v == "" {
			errs = append(errs, fmt.Errorf("%s is required", key))
		}
	}
	if p&(Functions|TPUJob) != 0 {
		need(c.Project, "FOLDCORPUS_PROJECT (or GOOGLE_CLOUD_PROJECT)")
		if _, prefix, err := gcs.ParseURI(c.OutputPrefix, nil); err != nil || prefix == "" {
			errs = append(errs, fmt.Errorf("FOLDCORPUS_OUTPUT_PREFIX=%q: want gs://BUCKET/PREFIX", c.OutputPrefix))
		}
		if err := CheckLogLevel(c.LogLevel); err != nil {
			errs = append(errs, err)
		}
	}
	if p&Functions != 0 {
		errs = append(errs, c.validateFunctions()...)
	}
	if p&TPUJob != 0 {
		need(c.Subscription, "FOLDCORPUS_TOKENIZE_SUBSCRIPTION")
		need(c.Weights, "FOLDCORPUS_TOKENIZE_WEIGHTS (the bio2token checkpoint)")
		if c.Devices < 0 {
			errs = append(errs, fmt.Errorf("FOLDCORPUS_TOKENIZE_DEVICES=%d: want >= 0", c.Devices))
		}
		if c.Rungs < 1 || c.Rungs > 16 {
			errs = append(errs, fmt.Errorf("FOLDCORPUS_TOKENIZE_RUNGS=%d: want 1..16", c.Rungs))
		}
		if c.MaxInFlight < 1 {
			errs = append(errs, fmt.Errorf("FOLDCORPUS_TOKENIZE_MAX_IN_FLIGHT=%d: want >= 1", c.MaxInFlight))
		}
		if c.FlushAfter <= 0 {
			errs = append(errs, fmt.Errorf("FOLDCORPUS_TOKENIZE_FLUSH_AFTER=%s: want > 0", c.FlushAfter))
		}
	}
	return errors.Join(errs...)
}

func (c Config) validateFunctions() []error {
	var errs []error
	need := func(v, key string) {
		if v == "" {
			errs = append(errs, fmt.Errorf("%s is required", key))
		}
	}
	need(c.Region, "FOLDCORPUS_REGION")
	need(c.ShardTopic, "FOLDCORPUS_SHARD_TOPIC")
	need(c.DefaultFormat, "FOLDCORPUS_FORMAT")
	if len(c.InputBuckets) == 0 {
		errs = append(errs, errors.New("FOLDCORPUS_INPUT_BUCKETS is required (comma-separated bucket names)"))
	}
	for _, b := range c.InputBuckets {
		if strings.ContainsAny(b, "/: ") {
			errs = append(errs, fmt.Errorf("FOLDCORPUS_INPUT_BUCKETS: %q is not a bucket name", b))
		}
	}
	for _, b := range c.RequesterPays {
		if !slices.Contains(c.InputBuckets, b) {
			errs = append(errs, fmt.Errorf("FOLDCORPUS_REQUESTER_PAYS_BUCKETS: %q is not one of FOLDCORPUS_INPUT_BUCKETS", b))
		}
	}
	if len(c.RequesterPays) > 0 && c.UserProject == "" {
		errs = append(errs, errors.New("FOLDCORPUS_REQUESTER_PAYS_BUCKETS is set but no project is billed (FOLDCORPUS_USER_PROJECT or FOLDCORPUS_PROJECT)"))
	}
	if c.StagingPrefix != "" {
		if b, _, err := gcs.ParseURI(c.StagingPrefix+"/x", nil); err != nil || b != c.OutputBucket() {
			errs = append(errs, fmt.Errorf("FOLDCORPUS_STAGING_PREFIX=%q: want gs://%s/PREFIX (the output bucket)", c.StagingPrefix, c.OutputBucket()))
		}
	}
	if c.FetchConcurrency < 1 || c.FetchConcurrency > 1024 {
		errs = append(errs, fmt.Errorf("FOLDCORPUS_FETCH_CONCURRENCY=%d: want 1..1024", c.FetchConcurrency))
	}
	if c.MaxObjectBytes < 1 {
		errs = append(errs, fmt.Errorf("FOLDCORPUS_MAX_OBJECT_BYTES=%d: want > 0", c.MaxObjectBytes))
	}
	if c.RetryWindow < time.Minute {
		errs = append(errs, fmt.Errorf("FOLDCORPUS_RETRY_WINDOW=%s: want >= 1m", c.RetryWindow))
	}
	if c.Lease < time.Second {
		errs = append(errs, fmt.Errorf("FOLDCORPUS_LEASE=%s: want >= 1s", c.Lease))
	}
	if c.RowGroupsPerShard < 0 {
		errs = append(errs, fmt.Errorf("FOLDCORPUS_ROW_GROUPS_PER_SHARD=%d: want >= 0", c.RowGroupsPerShard))
	}
	return errs
}

// OutputBucket is the bucket of OutputPrefix ("" when it is not a gs:// URI).
func (c Config) OutputBucket() string {
	b, _, _ := gcs.ParseURI(c.OutputPrefix+"/x", nil)
	return b
}

// Buckets are the buckets the functions may touch: the input buckets and
// the output bucket.
func (c Config) Buckets() []string {
	out := append([]string(nil), c.InputBuckets...)
	if b := c.OutputBucket(); b != "" {
		out = append(out, b)
	}
	return out
}

// Staging is where shards of a neural format stage their adapted inputs
// for the accelerator job: StagingPrefix, else gs://OUTPUT_BUCKET/staging.
func (c Config) Staging() string {
	if c.StagingPrefix != "" {
		return c.StagingPrefix
	}
	return gcs.URI(c.OutputBucket(), "staging")
}
