package main

import (
	"strings"
	"testing"
)

func TestRenderAndSummarize(t *testing.T) {
	events := `{"Action":"start","Package":"p"}
{"Action":"run","Package":"p","Test":"TestA"}
{"Action":"output","Package":"p","Test":"TestA","Output":"=== RUN   TestA\n"}
{"Action":"output","Package":"p","Test":"TestA","Output":"    a_test.go:9: SKIP: shared corpus not found at /x/shared/corpus (set FOLDCORPUS_CORPUS or check out ../shared); set FOLDCORPUS_REQUIRE_CORPUS=1 to make this a failure\n"}
{"Action":"skip","Package":"p","Test":"TestA"}
{"Action":"output","Package":"p","Test":"TestB","Output":"    b_test.go:3: SKIP: shared corpus not found at /x/shared/corpus (set FOLDCORPUS_CORPUS or check out ../shared); set\n"}
{"Action":"skip","Package":"p","Test":"TestB"}
{"Action":"output","Package":"p","Test":"TestC","Output":"    c_test.go:4: DuckDB not installed\n"}
{"Action":"skip","Package":"p","Test":"TestC"}
{"Action":"output","Package":"p","Test":"TestD","Output":"    d_test.go:5: got 1, want 2\n"}
{"Action":"fail","Package":"p","Test":"TestD"}
{"Action":"output","Package":"p","Test":"TestE","Output":"quiet\n"}
{"Action":"pass","Package":"p","Test":"TestE"}
{"Action":"output","Package":"p","Output":"FAIL\n"}
{"Action":"output","Package":"p","Output":"FAIL\tp\t0.1s\n"}
{"Action":"fail","Package":"p"}
{"Action":"start","Package":"q"}
{"Action":"run","Package":"q","Test":"TestSlow"}
{"Action":"output","Package":"q","Test":"TestSlow","Output":"    s_test.go:3: before\n"}
{"Action":"output","Package":"q","Test":"TestSlow","Output":"panic: test timed out after 2s\n"}
{"Action":"output","Package":"q","Test":"TestDone","Output":"fine\n"}
{"Action":"pass","Package":"q","Test":"TestDone"}
{"Action":"output","Package":"q","Output":"FAIL\tq\t2.0s\n"}
{"Action":"fail","Package":"q"}
`
	var out strings.Builder
	res := render(strings.NewReader(events), &out)
	summarize(&out, res)
	got := out.String()
	for _, want := range []string{
		"d_test.go:5: got 1, want 2\n", "FAIL\tp\t0.1s\n",
		"gotest: 3 tests SKIPPED",
		"     2  shared corpus not found at /x/shared/corpus\n",
		"     1  c_test.go:4: DuckDB not installed\n",
		// A binary killed by -timeout sends no end event for its running
		// test: its output, the panic included, comes with the package's.
		"--- UNFINISHED: TestSlow", "s_test.go:3: before\npanic: test timed out after 2s\n",
		"gotest: FAILED:\n  p TestD\n  p\n  q TestSlow (unfinished)\n  q\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "quiet") || strings.Contains(got, "fine") || strings.Contains(got, "SKIP: shared") {
		t.Errorf("output shows a passing or skipped test's lines:\n%s", got)
	}
}

func TestHasTimeout(t *testing.T) {
	for _, c := range []struct {
		args []string
		want bool
	}{
		{[]string{"./..."}, false},
		{[]string{"-timeout", "5m", "./..."}, true},
		{[]string{"-timeout=5m", "./..."}, true},
		{[]string{"--timeout=5m", "./..."}, true},
		{[]string{"./x", "-run", "TestTimeout"}, false},
		{[]string{"./x", "--", "-timeout", "1s"}, false},
	} {
		if got := hasTimeout(c.args); got != c.want {
			t.Errorf("hasTimeout(%q) = %v, want %v", c.args, got, c.want)
		}
	}
}
