package functions

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/foldcorpus/foldcorpus/internal/formats"
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
	DefaultFormat           = formats.Default
	DefaultFetchConcurrency = 32
	DefaultMaxObjectBytes   = 512 << 20
	DefaultRetryWindow      = 24 * time.Hour
	DefaultLease            = 15 * time.Minute
	DefaultLedgerCollection = "foldcorpus_runs"
)

// FromEnv reads the configuration with getenv (os.Getenv when nil). It
// reports malformed numbers and durations; call Validate for the rest.
func FromEnv(getenv func(string) string) (Config, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	var errs []error
	num := func(key string, def int) int {
		v := getenv(key)
		if v == "" {
			return def
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s=%q: not an integer", key, v))
		}
		return n
	}
	dur := func(key string, def time.Duration) time.Duration {
		v := getenv(key)
		if v == "" {
			return def
		}
		d, err := time.ParseDuration(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s=%q: not a duration (e.g. 24h, 15m)", key, v))
		}
		return d
	}
	str := func(key, def string) string {
		if v := strings.TrimSpace(getenv(key)); v != "" {
			return v
		}
		return def
	}
	c := Config{
		Project:           str("FOLDCORPUS_PROJECT", getenv("GOOGLE_CLOUD_PROJECT")),
		Region:            str("FOLDCORPUS_REGION", ""),
		OutputPrefix:      strings.TrimSuffix(str("FOLDCORPUS_OUTPUT_PREFIX", ""), "/"),
		ShardTopic:        str("FOLDCORPUS_SHARD_TOPIC", ""),
		TokenizeTopic:     str("FOLDCORPUS_TOKENIZE_TOPIC", ""),
		StagingPrefix:     strings.TrimSuffix(str("FOLDCORPUS_STAGING_PREFIX", ""), "/"),
		DefaultFormat:     str("FOLDCORPUS_FORMAT", DefaultFormat),
		FetchConcurrency:  num("FOLDCORPUS_FETCH_CONCURRENCY", DefaultFetchConcurrency),
		MaxObjectBytes:    int64(num("FOLDCORPUS_MAX_OBJECT_BYTES", DefaultMaxObjectBytes)),
		RetryWindow:       dur("FOLDCORPUS_RETRY_WINDOW", DefaultRetryWindow),
		Lease:             dur("FOLDCORPUS_LEASE", DefaultLease),
		UserProject:       str("FOLDCORPUS_USER_PROJECT", ""),
		FirestoreDB:       str("FOLDCORPUS_FIRESTORE_DATABASE", "(default)"),
		LedgerCollection:  str("FOLDCORPUS_LEDGER_COLLECTION", DefaultLedgerCollection),
		RowGroupsPerShard: num("FOLDCORPUS_ROW_GROUPS_PER_SHARD", 0),
		LogLevel:          str("FOLDCORPUS_LOG_LEVEL", "info"),
	}
	switch v := strings.ToLower(str("FOLDCORPUS_TRIGGER_PARQUET", "true")); v {
	case "true", "1", "yes":
		c.TriggerParquet = true
	case "false", "0", "no":
	default:
		errs = append(errs, fmt.Errorf("FOLDCORPUS_TRIGGER_PARQUET=%q: want true or false", v))
	}
	c.InputBuckets = list(getenv("FOLDCORPUS_INPUT_BUCKETS"))
	c.RequesterPays = list(getenv("FOLDCORPUS_REQUESTER_PAYS_BUCKETS"))
	if len(c.RequesterPays) > 0 && c.UserProject == "" {
		c.UserProject = c.Project
	}
	return c, errors.Join(errs...)
}

// list splits a comma-separated list, dropping empty items.
func list(v string) []string {
	var out []string
	for _, b := range strings.Split(v, ",") {
		if b = strings.TrimSpace(b); b != "" {
			out = append(out, b)
		}
	}
	return out
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
	switch c.LogLevel {
	case "debug", "info", "warn", "error":
	default:
		errs = append(errs, fmt.Errorf("FOLDCORPUS_LOG_LEVEL=%q: want debug, info, warn or error", c.LogLevel))
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
