package emulators

import (
	"context"
	"errors"
	"fmt"
	"os"
	"testing"
)

// InCI reports whether missing emulators must fail tests (CI=true).
func InCI() bool { return os.Getenv("CI") == "true" }

// Require starts kind for one test and stops it at cleanup. A missing jar
// fails the test in CI and skips it loudly elsewhere.
func Require(tb testing.TB, kind Kind) *Emulator {
	tb.Helper()
	e, err := Start(context.Background(), kind)
	if errors.Is(err, ErrNotInstalled) {
		if InCI() {
			tb.Fatalf("CI=true and the %s emulator is missing: %v", kind, err)
		}
		tb.Skipf("SKIP (loud): the %s emulator is not installed here: %v", kind, err)
	}
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(e.Stop)
	return e
}

// RunMain is a TestMain body: it starts the given emulators, sets
// FIRESTORE_EMULATOR_HOST / PUBSUB_EMULATOR_HOST for the process, runs the
// tests, stops the emulators and returns the exit code for os.Exit. A
// missing jar fails (exit 1) in CI and skips every test elsewhere (exit 0,
// with a message on stderr).
func RunMain(m *testing.M, kinds ...Kind) int {
	var started []*Emulator
	defer func() {
		for _, e := range started {
			e.Stop()
		}
	}()
	for _, k := range kinds {
		e, err := Start(context.Background(), k)
		if errors.Is(err, ErrNotInstalled) {
			if InCI() {
				fmt.Fprintf(os.Stderr, "FAIL: CI=true and the %s emulator is missing: %v\n", k, err)
				return 1
			}
			fmt.Fprintf(os.Stderr, "SKIP (loud): every test of this package needs the %s emulator, which is not installed here: %v\n", k, err)
			return 0
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "FAIL: starting the %s emulator: %v\n", k, err)
			return 1
		}
		started = append(started, e)
		os.Setenv(k.HostEnv(), e.Host)
	}
	return m.Run()
}
