package cloudlog

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"testing"
)

func TestRecords(t *testing.T) {
	for _, tc := range []struct {
		name      string
		level     slog.Level
		header    string
		project   string
		wantSev   string
		wantTrace string
		wantSpan  string
	}{
		{"info, traceparent", slog.LevelInfo, "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", "p", "INFO", "projects/p/traces/0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331"},
		{"error, cloud trace header", slog.LevelError, "0af7651916cd43dd8448eb211c80319c/123;o=1", "p", "ERROR", "projects/p/traces/0af7651916cd43dd8448eb211c80319c", "123"},
		{"warning, no trace", slog.LevelWarn, "", "p", "WARNING", "", ""},
		{"debug, garbage trace", slog.LevelDebug, "nope", "", "DEBUG", "", ""},
		{"no project", slog.LevelInfo, "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", "", "INFO", "0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331"},
	} {
		var b bytes.Buffer
		log := New(&b, slog.LevelDebug, tc.project).With("run", "r#1")
		ctx := WithTrace(context.Background(), tc.header)
		log.Log(ctx, tc.level, "shard done", "shard", 3, "entry_id", "AF-1")
		var got map[string]any
		if err := json.Unmarshal(b.Bytes(), &got); err != nil {
			t.Fatalf("%s: %v: %s", tc.name, err, b.String())
		}
		if got["severity"] != tc.wantSev || got["message"] != "shard done" || got["run"] != "r#1" || got["shard"] != 3.0 || got["entry_id"] != "AF-1" {
			t.Errorf("%s: record = %v", tc.name, got)
		}
		if tr, _ := got[TraceKey].(string); tr != tc.wantTrace {
			t.Errorf("%s: trace = %q, want %q", tc.name, tr, tc.wantTrace)
		}
		if sp, _ := got[SpanKey].(string); sp != tc.wantSpan {
			t.Errorf("%s: span = %q, want %q", tc.name, sp, tc.wantSpan)
		}
		if _, ok := got["msg"]; ok {
			t.Errorf("%s: has msg key", tc.name)
		}
	}
}
