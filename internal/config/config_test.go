package config

import (
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestEnv(t *testing.T) {
	env := map[string]string{
		"S": "  text ", "I": "12", "D": "90s", "B": "No", "L": " a, ,b ,",
		"BAD_I": "twelve", "BAD_D": "1d", "BAD_B": "maybe",
	}
	e := NewEnv(func(k string) string { return env[k] }, "p: ")
	if got := e.String("S", "def"); got != "text" {
		t.Errorf("String(S) = %q, want text", got)
	}
	if got := e.String("UNSET", "def"); got != "def" {
		t.Errorf("String(UNSET) = %q, want def", got)
	}
	if got := e.Int("I", 3); got != 12 {
		t.Errorf("Int(I) = %d, want 12", got)
	}
	if got := e.Int("UNSET", 3); got != 3 {
		t.Errorf("Int(UNSET) = %d, want 3", got)
	}
	if got := e.Duration("D", time.Second); got != 90*time.Second {
		t.Errorf("Duration(D) = %s, want 1m30s", got)
	}
	if got := e.Bool("B", true); got {
		t.Errorf("Bool(B=No) = true, want false")
	}
	if got := e.Bool("UNSET", true); !got {
		t.Errorf("Bool(UNSET, true) = false")
	}
	if got := e.List("L"); !reflect.DeepEqual(got, []string{"a", "b"}) {
		t.Errorf("List(L) = %q, want [a b]", got)
	}
	if err := e.Err(); err != nil {
		t.Fatalf("Err() after good values = %v", err)
	}
	e.Int("BAD_I", 0)
	e.Duration("BAD_D", 0)
	e.Bool("BAD_B", false)
	err := e.Err()
	for _, want := range []string{`p: BAD_I="twelve": not an integer`, `p: BAD_D="1d": not a duration`, `p: BAD_B="maybe": want true or false`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Err() = %v, want it to contain %s", err, want)
		}
	}
	for lvl, ok := range map[string]bool{"debug": true, "info": true, "warn": true, "error": true, "loud": false, "": false} {
		if got := CheckLogLevel(lvl) == nil; got != ok {
			t.Errorf("CheckLogLevel(%q) ok = %v, want %v", lvl, got, ok)
		}
	}
}

// TestReadReadsVars: what Read asks the environment for is Vars' list (plus
// GOOGLE_CLOUD_PROJECT, FOLDCORPUS_PROJECT's fallback), per process, so
// that infra's tests, which check Vars against the Terraform, check what
// each process reads.
func TestReadReadsVars(t *testing.T) {
	for _, p := range []Process{Functions, TPUJob, CLI} {
		asked := map[string]bool{}
		if _, err := Read(func(k string) string { asked[k] = true; return "" }, p, "f"); err != nil {
			t.Fatal(err)
		}
		var got []string
		for k := range asked {
			if k != "GOOGLE_CLOUD_PROJECT" {
				got = append(got, k)
			}
		}
		slices.Sort(got)
		if want := Vars(p); !slices.Equal(got, want) {
			t.Errorf("process %d: Read asked for\n  %v\nVars lists\n  %v", p, got, want)
		}
	}
}

func TestValidate(t *testing.T) {
	fn := map[string]string{"FOLDCORPUS_PROJECT": "p", "FOLDCORPUS_REGION": "r", "FOLDCORPUS_INPUT_BUCKETS": "in", "FOLDCORPUS_OUTPUT_PREFIX": "gs://out/corpus/", "FOLDCORPUS_SHARD_TOPIC": "s"}
	job := map[string]string{"GOOGLE_CLOUD_PROJECT": "p", "FOLDCORPUS_TOKENIZE_SUBSCRIPTION": "tok", "FOLDCORPUS_TOKENIZE_WEIGHTS": "generated:1", "FOLDCORPUS_OUTPUT_PREFIX": "gs://out/corpus"}
	tests := []struct {
		p     Process
		base  map[string]string
		over  map[string]string
		wantE string // "" for valid
	}{
		{Functions, fn, nil, ""},
		{TPUJob, job, nil, ""},
		{Functions, fn, map[string]string{"FOLDCORPUS_OUTPUT_PREFIX": "gs://out"}, "FOLDCORPUS_OUTPUT_PREFIX"},
		{TPUJob, job, map[string]string{"FOLDCORPUS_OUTPUT_PREFIX": "/tmp/out"}, "FOLDCORPUS_OUTPUT_PREFIX"},
		{TPUJob, job, map[string]string{"FOLDCORPUS_TOKENIZE_RUNGS": "17"}, "FOLDCORPUS_TOKENIZE_RUNGS"},
		{Functions, fn, map[string]string{"FOLDCORPUS_SHARD_TOPIC": ""}, "FOLDCORPUS_SHARD_TOPIC"},
		// The job does not need the functions' settings, nor they the job's.
		{TPUJob, job, map[string]string{"FOLDCORPUS_REGION": ""}, ""},
		{Functions, fn, map[string]string{"FOLDCORPUS_TOKENIZE_WEIGHTS": ""}, ""},
	}
	for _, tt := range tests {
		env := maps.Clone(tt.base)
		maps.Copy(env, tt.over)
		c, err := Read(func(k string) string { return env[k] }, tt.p, "f")
		if err == nil {
			err = c.Validate(tt.p)
		}
		if (err == nil) != (tt.wantE == "") || err != nil && !strings.Contains(err.Error(), tt.wantE) {
			t.Errorf("process %d, %v: err = %v, want %q", tt.p, tt.over, err, tt.wantE)
		}
	}
}
