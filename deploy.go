// Package functions exists only for Cloud Functions deployment (infra/,
// docs/deploy.md). Google's Go buildpack reads the package at the root of
// the uploaded source: because its name is functions and a functions/
// folder exists, the main it generates imports
// github.com/foldcorpus/foldcorpus/functions (where the entry points
// Planner, ShardFn and DeadLetter are registered), and because it imports
// the framework's functions package, that main is the declarative one that
// serves the function named by FUNCTION_TARGET. Nothing imports this package.
package functions

import _ "github.com/GoogleCloudPlatform/functions-framework-go/functions"
