// Package housecheck holds the module's house-style checks, which run as
// tests over its source and have no code of their own.
//
// TestFunctionLength parses every non-test .go file of the module (build
// tags ignored; testdata, node_modules and folders starting with "." or
// "_" skipped) and fails listing each function body longer than
// maxBodyLines lines, counted from its opening brace's line to its closing
// brace's, both included. Functions still over the limit are named in the
// test's allowlist, each with the reason it has not been split; an entry
// whose function is gone or back under the limit fails the test too, so
// that the list only shrinks.
package housecheck
