package functions

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/foldcorpus/foldcorpus/internal/config"
	"github.com/foldcorpus/foldcorpus/internal/formats/registry"
	"github.com/foldcorpus/foldcorpus/internal/gcs"
)

// Config is the functions' configuration, read once from the environment
// (see the package doc for the variable names).
type Config struct {
	Project          string        // FOLDCORPUS_PROJECT, else GOOGLE_CLOUD_PROJECT
	Region           string        // FOLDCORPUS_REGION
	InputBuckets     []string      // FOLDCORPUS_INPUT_BUCKETS (comma-separated)
	OutputPrefix     string        // FOLDCORPUS_OUTPUT_PREFIX (gs://BUCKET/PREFIX)
	ShardTopic       string        // FOLDCORPUS_SHARD_TOPIC
	TokenizeTopic    string        // FOLDCORPUS_TOKENIZE_TOPIC (optional)
	StagingPrefix    string        // FOLDCORPUS_STAGING_PREFIX (optional, gs://OUTPUT_BUCKET/PREFIX; default gs://OUTPUT_BUCKET/staging)
	DefaultFormat    string        // FOLDCORPUS_FORMAT
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
}

// Defaults for the optional settings.
const (
	DefaultFormat           = registry.Default
	DefaultFetchConcurrency = 32
	DefaultMaxObjectBytes   = 512 << 20
	DefaultRetryWindow      = 24 * time.Hour
	DefaultLease            = 15 * time.Minute
	DefaultLedgerCollection = config.DefaultLedgerCollection
)

// FromEnv reads the configuration with getenv (os.Getenv when nil). It
// reports malformed numbers, durations and booleans; call Validate for the
// rest.
func FromEnv(getenv func(string) string) (Config, error) {
	e := config.NewEnv(getenv, "")
	c := Config{
		Project:           e.String("FOLDCORPUS_PROJECT", e.Raw("GOOGLE_CLOUD_PROJECT")),
		Region:            e.String("FOLDCORPUS_REGION", ""),
		OutputPrefix:      strings.TrimSuffix(e.String("FOLDCORPUS_OUTPUT_PREFIX", ""), "/"),
		ShardTopic:        e.String("FOLDCORPUS_SHARD_TOPIC", ""),
		TokenizeTopic:     e.String("FOLDCORPUS_TOKENIZE_TOPIC", ""),
		StagingPrefix:     strings.TrimSuffix(e.String("FOLDCORPUS_STAGING_PREFIX", ""), "/"),
		DefaultFormat:     e.String("FOLDCORPUS_FORMAT", DefaultFormat),
		FetchConcurrency:  e.Int("FOLDCORPUS_FETCH_CONCURRENCY", DefaultFetchConcurrency),
		MaxObjectBytes:    int64(e.Int("FOLDCORPUS_MAX_OBJECT_BYTES", DefaultMaxObjectBytes)),
		RetryWindow:       e.Duration("FOLDCORPUS_RETRY_WINDOW", DefaultRetryWindow),
		Lease:             e.Duration("FOLDCORPUS_LEASE", DefaultLease),
		UserProject:       e.String("FOLDCORPUS_USER_PROJECT", ""),
		FirestoreDB:       e.String("FOLDCORPUS_FIRESTORE_DATABASE", config.DefaultFirestoreDB),
		LedgerCollection:  e.String("FOLDCORPUS_LEDGER_COLLECTION", DefaultLedgerCollection),
		RowGroupsPerShard: e.Int("FOLDCORPUS_ROW_GROUPS_PER_SHARD", 0),
		LogLevel:          e.String("FOLDCORPUS_LOG_LEVEL", config.DefaultLogLevel),
		TriggerParquet:    e.Bool("FOLDCORPUS_TRIGGER_PARQUET", true),
		InputBuckets:      e.List("FOLDCORPUS_INPUT_BUCKETS"),
		RequesterPays:     e.List("FOLDCORPUS_REQUESTER_PAYS_BUCKETS"),
	}
	if len(c.RequesterPays) > 0 && c.UserProject == "" {
		c.UserProject = c.Project
	}
	return c, e.Err()
}

// Validate reports every missing or out-of-range setting at once.
func (c Config) Validate() error {
	var errs []error
	need := func(v, key string) {
		if v == "" {
			errs = append(errs, fmt.Errorf("%s is required", key))
		}
	}
	need(c.Project, "FOLDCORPUS_PROJECT (or GOOGLE_CLOUD_PROJECT)")
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
	if _, _, err := gcs.ParseURI(c.OutputPrefix+"/x", nil); err != nil || c.OutputPrefix == "" {
		errs = append(errs, fmt.Errorf("FOLDCORPUS_OUTPUT_PREFIX=%q: want gs://BUCKET/PREFIX", c.OutputPrefix))
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
	if err := config.CheckLogLevel(c.LogLevel); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// OutputBucket is the bucket of OutputPrefix.
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

// stagingPrefix is where shards of a neural format stage their adapted
// inputs for the accelerator job: FOLDCORPUS_STAGING_PREFIX, else
// gs://OUTPUT_BUCKET/staging.
func (c Config) stagingPrefix() string {
	if c.StagingPrefix != "" {
		return c.StagingPrefix
	}
	return "gs://" + c.OutputBucket() + "/staging"
}
