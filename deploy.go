// Package functions at the repository root is there for the Cloud Functions
// Go buildpack, which builds the package at the root of the uploaded source:
// when that package is named functions and a functions/ folder exists, the
// generated main imports <module>/functions instead, whose init registers
// the entry points (Planner, ShardFn, DeadLetter). Nothing imports this
// package; see functions/README.md and emulator-tests/deploy_test.go.
package functions
