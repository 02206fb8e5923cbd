// Package config is the configuration of the deployed processes
// (functions/, tpujob/) and of the CLI's cloud commands, as pkgsite-metrics'
// internal/config is: one Config, read once from the environment (Read,
// each process its own variables, from one table) and validated
// (Config.Validate), with the defaults they share. Vars lists the variables
// a process reads; infra's tests check those lists against the Terraform.
// Env reads FOLDCORPUS_* variables into typed settings and collects every
// malformed value instead of stopping at the first.
package config

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// Defaults shared by the functions, the accelerator job and the CLI.
const (
	// DefaultFirestoreDB is the Firestore database of the ledger
	// (FOLDCORPUS_FIRESTORE_DATABASE).
	DefaultFirestoreDB = "(default)"
	// DefaultLedgerCollection is the collection of run documents
	// (FOLDCORPUS_LEDGER_COLLECTION).
	DefaultLedgerCollection = "foldcorpus_runs"
	// DefaultLogLevel is the slog level (FOLDCORPUS_LOG_LEVEL).
	DefaultLogLevel = "info"
)

// Env reads settings from an environment. Each getter returns the
// variable's value, or def when it is unset or blank; a malformed value is
// recorded (Err) and the getter returns the zero value. Not safe for
// concurrent use; read once at startup.
type Env struct {
	getenv func(string) string
	prefix string
	errs   []error
}

// NewEnv reads with getenv (os.Getenv when nil); prefix starts every error
// message (e.g. "tpujob: "), or is empty.
func NewEnv(getenv func(string) string, prefix string) *Env {
	if getenv == nil {
		getenv = os.Getenv
	}
	return &Env{getenv: getenv, prefix: prefix}
}

func (e *Env) fail(format string, args ...any) {
	e.errs = append(e.errs, fmt.Errorf(e.prefix+format, args...))
}

// Raw is the variable's value as set, untrimmed.
func (e *Env) Raw(key string) string { return e.getenv(key) }

// String is the variable's value, spaces trimmed, or def.
func (e *Env) String(key, def string) string {
	if v := strings.TrimSpace(e.getenv(key)); v != "" {
		return v
	}
	return def
}

// Int is the variable as a decimal integer, or def.
func (e *Env) Int(key string, def int) int {
	v := strings.TrimSpace(e.getenv(key))
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		e.fail("%s=%q: not an integer", key, v)
	}
	return n
}

// Duration is the variable as a Go duration (500ms, 15m, 24h), or def.
func (e *Env) Duration(key string, def time.Duration) time.Duration {
	v := strings.TrimSpace(e.getenv(key))
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		e.fail("%s=%q: not a duration (e.g. 500ms, 15m, 24h)", key, v)
	}
	return d
}

// Bool is the variable as true/1/yes or false/0/no (any case), or def.
func (e *Env) Bool(key string, def bool) bool {
	switch v := strings.ToLower(strings.TrimSpace(e.getenv(key))); v {
	case "":
		return def
	case "true", "1", "yes":
		return true
	case "false", "0", "no":
		return false
	default:
		e.fail("%s=%q: want true or false", key, v)
		return false
	}
}

// List is the variable as a comma-separated list, empty items dropped.
func (e *Env) List(key string) []string { return List(e.getenv(key)) }

// Err joins every malformed value read so far; nil when there was none.
func (e *Env) Err() error { return errors.Join(e.errs...) }

// List splits a comma-separated list, dropping empty items.
func List(v string) []string {
	var out []string
	for _, b := range strings.Split(v, ",") {
		if b = strings.TrimSpace(b); b != "" {
			out = append(out, b)
		}
	}
	return out
}

// CheckLogLevel reports a FOLDCORPUS_LOG_LEVEL other than debug, info,
// warn or error.
func CheckLogLevel(level string) error {
	switch level {
	case "debug", "info", "warn", "error":
		return nil
	}
	return fmt.Errorf("FOLDCORPUS_LOG_LEVEL=%q: want debug, info, warn or error", level)
}
