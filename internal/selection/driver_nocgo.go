//go:build !cgo

package selection

import "github.com/foldcorpus/foldcorpus/internal/needcgo"

// driverReady reports why DuckDB cannot run: its Go bindings need cgo, so a
// build without it links no driver and Select and ScanColumns refuse before
// touching the output folder.
func driverReady() error { return needcgo.Refuse("select (DuckDB)") }
