// Package duckcheck runs SQL in DuckDB through its official Node.js client
// (@duckdb/node-api, installed from npm by .ci/run or `npm install` at the
// repository root), so tests can prove that users' tools read our parquet.
package duckcheck

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

func root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// Available reports whether node and @duckdb/node-api are installed.
func Available() bool {
	if _, err := exec.LookPath("node"); err != nil {
		return false
	}
	_, err := os.Stat(filepath.Join(root(), "node_modules", "@duckdb", "node-api"))
	return err == nil
}

// Query runs sql and returns the rows as JSON objects (DuckDB's JSON
// rendering: BIGINT as strings, DOUBLE as numbers). It skips the test when
// DuckDB is not installed, and fails it when CI=true or
// FOLDCORPUS_REQUIRE_DUCKDB=1.
func Query(tb testing.TB, sql string) []map[string]any {
	tb.Helper()
	if !Available() {
		if os.Getenv("CI") == "true" || os.Getenv("FOLDCORPUS_REQUIRE_DUCKDB") == "1" {
			tb.Fatalf("DuckDB (@duckdb/node-api) is required but not installed: run `npm install` at the repository root")
		}
		tb.Skipf("SKIP: DuckDB (@duckdb/node-api) not installed: run `npm install` at the repository root")
	}
	cmd := exec.Command("node", filepath.Join(root(), "internal", "duckcheck", "query.mjs"), sql)
	cmd.Dir = root()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		tb.Fatalf("duckdb query %q: %v\n%s", sql, err, stderr.String())
	}
	var rows []map[string]any
	if err := json.Unmarshal(out, &rows); err != nil {
		tb.Fatalf("duckdb query %q: decoding %q: %v", sql, out, err)
	}
	return rows
}
