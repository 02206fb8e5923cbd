//go:build cgo

package selection

// The DuckDB database/sql driver (cgo; DuckDB 1.5.6).
import _ "github.com/duckdb/duckdb-go/v2"

// driverReady reports why DuckDB cannot run: with cgo, it can.
func driverReady() error { return nil }
