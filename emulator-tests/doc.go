// Package emulatortests runs foldcorpus end to end against the official
// Firestore and Pub/Sub emulators and fake-gcs-server over TCP, with the
// functions built exactly as the Cloud Functions Go buildpack builds them
// (a generated main that blank-imports ./functions and calls
// funcframework.Start) and served over HTTP, one process per target, with
// the Pub/Sub emulator pushing to them.
//
// The tests need java and the emulator jars (see internal/emulators): they
// fail when CI=true and the jars are missing and skip loudly otherwise.
// FOLDCORPUS_LOAD_SHARDS sets the size of the load test (default 60; the
// issue's full size is 1000).
package emulatortests
