// Package functions exists only for Cloud Functions deployment (infra/,
// docs/deploy.md): it is the package Google's Go buildpack builds.
//
// The buildpack (GoogleCloudPlatform/buildpacks,
// cmd/go/functions_framework/lib/lib.go) first moves the uploaded source
// into serverless_function_source_code/, then reads the name of the package
// at its root (functions) and looks for a folder of that name at the
// application root, which after the move never exists. So the main it
// generates blank-imports the module root, this package: it must register
// the functions itself, which it does by importing the package that
// registers Planner, ShardFn and DeadLetter in its init. Because this
// package imports the framework's functions package, the buildpack
// generates the declarative main, which serves the function named by
// FUNCTION_TARGET. emulator-tests/deploy_test.go replays that sequence.
//
// Keep _test.go files out of this folder: the buildpack parses every .go
// file here, and an external test package would be a second package.
package functions

import (
	_ "github.com/GoogleCloudPlatform/functions-framework-go/functions"

	_ "github.com/foldcorpus/foldcorpus/functions"
)
