// Package harness holds, in its subpackages, the harnesses that run the
// product end to end or over its concrete adapters for tests: they import
// drivers and adapters from above the packages whose tests use them, so
// they live here, outside the product's folders, where no product package
// imports them (cmd/foldcorpus's deps test checks the CLI links none).
//
//   - coordrun: the coordinate formats' golden files through the local
//     driver (planner, localrun, report), as `foldcorpus run` runs them;
//   - stores: blobtest harnesses over the local and GCS stores, for the
//     conformance suites of the stores and of those that wrap them.
package harness
