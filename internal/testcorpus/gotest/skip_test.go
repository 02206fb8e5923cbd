package main

import (
	"strings"
	"testing"
)

// TestSkipReasonNotTestName: a skipped test whose "--- SKIP: NAME (0.00s)"
// line comes before its t.Skip message is counted under the message, not
// under its name.
func TestSkipReasonNotTestName(t *testing.T) {
	events := `{"Action":"run","Package":"p","Test":"TestPageInChromium"}
{"Action":"output","Package":"p","Test":"TestPageInChromium","Output":"=== RUN   TestPageInChromium\n"}
{"Action":"output","Package":"p","Test":"TestPageInChromium","Output":"--- SKIP: TestPageInChromium (0.00s)\n"}
{"Action":"output","Package":"p","Test":"TestPageInChromium","Output":"    page_test.go:31: chromium not installed\n"}
{"Action":"skip","Package":"p","Test":"TestPageInChromium"}
{"Action":"output","Package":"p","Test":"TestQuiet","Output":"--- SKIP: TestQuiet (0.00s)\n"}
{"Action":"skip","Package":"p","Test":"TestQuiet"}
{"Action":"output","Package":"p","Test":"TestLoud","Output":"--- SKIP: TestLoud (0.00s)\n"}
{"Action":"output","Package":"p","Test":"TestLoud","Output":"    chromium_test.go:30: SKIP (LOUD): browser not found; apt-get install -y chromium\n"}
{"Action":"skip","Package":"p","Test":"TestLoud"}
`
	var out strings.Builder
	summarize(&out, render(strings.NewReader(events), &out))
	got := out.String()
	if !strings.Contains(got, "     1  page_test.go:31: chromium not installed\n") || !strings.Contains(got, "     1  no reason given\n") || strings.Contains(got, "  TestPageInChromium") ||
		!strings.Contains(got, "     1  browser not found\n") {
		t.Errorf("skip summary lists a test name where a reason belongs:\n%s", got)
	}
}
