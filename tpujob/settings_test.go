package tpujob

import (
	"testing"
	"time"

	b2t "github.com/foldcorpus/foldcorpus/internal/bio2token"
	"github.com/foldcorpus/foldcorpus/internal/config"
)

func TestSettingsFromEnv(t *testing.T) {
	base := map[string]string{"GOOGLE_CLOUD_PROJECT": "p", "FOLDCORPUS_TOKENIZE_SUBSCRIPTION": "tok", "FOLDCORPUS_TOKENIZE_WEIGHTS": "generated:1", "FOLDCORPUS_OUTPUT_PREFIX": "gs://out/corpus"}
	for _, tc := range []struct {
		name    string
		extra   map[string]string
		wantErr bool
		check   func(config.Config) bool
	}{
		{"defaults", nil, false, func(s config.Config) bool {
			return s.Backend == "go" && s.Project == "p" && s.OutputBucket() == "out" && s.FirestoreDB == "(default)" && s.LogLevel == "info" && s.Rungs == 4 && s.MaxInFlight == 16 && s.FlushAfter == 500*time.Millisecond
		}},
		{"set", map[string]string{"FOLDCORPUS_TOKENIZE_BACKEND": "xla:tpu", "FOLDCORPUS_TOKENIZE_DEVICES": "4", "FOLDCORPUS_TOKENIZE_FLUSH_AFTER": "2s"}, false, func(s config.Config) bool {
			return s.Backend == "xla:tpu" && s.Devices == 4 && s.FlushAfter == 2*time.Second
		}},
		{"no weights", map[string]string{"FOLDCORPUS_TOKENIZE_WEIGHTS": ""}, true, nil},
		{"bad devices", map[string]string{"FOLDCORPUS_TOKENIZE_DEVICES": "four"}, true, nil},
		{"bad rungs", map[string]string{"FOLDCORPUS_TOKENIZE_RUNGS": "0"}, true, nil},
		{"project override", map[string]string{"FOLDCORPUS_PROJECT": "q"}, false, func(s config.Config) bool { return s.Project == "q" }},
		{"no output prefix", map[string]string{"FOLDCORPUS_OUTPUT_PREFIX": ""}, true, nil},
		{"output bucket only", map[string]string{"FOLDCORPUS_OUTPUT_PREFIX": "gs://out"}, true, nil},
		{"bad log level", map[string]string{"FOLDCORPUS_LOG_LEVEL": "loud"}, true, nil},
	} {
		env := map[string]string{}
		for k, v := range base {
			env[k] = v
		}
		for k, v := range tc.extra {
			env[k] = v
		}
		s, err := SettingsFromEnv(func(k string) string { return env[k] })
		if (err != nil) != tc.wantErr {
			t.Errorf("%s: err = %v, want error %v", tc.name, err, tc.wantErr)
			continue
		}
		if err == nil && !tc.check(s) {
			t.Errorf("%s: settings %+v", tc.name, s)
		}
	}
	s, _ := SettingsFromEnv(func(k string) string { return base[k] })
	s.Backend = "xla:tpu"
	if _, err := NewEncoder(s, s.Weights); err == nil {
		t.Error("xla:tpu backend started in a binary without the xla backend")
	}
}

// TestDefaultRungs: the configuration's default ladder is the encoder's
// (internal/config does not import the encoder).
func TestDefaultRungs(t *testing.T) {
	if config.DefaultTokenizeRungs != b2t.DefaultRungs {
		t.Errorf("config.DefaultTokenizeRungs = %d, bio2token.DefaultRungs = %d", config.DefaultTokenizeRungs, b2t.DefaultRungs)
	}
}
