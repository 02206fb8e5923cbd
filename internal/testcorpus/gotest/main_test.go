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
`
	var out strings.Builder
	skips := render(strings.NewReader(events), &out)
	summarize(&out, skips)
	got := out.String()
	for _, want := range []string{
		"d_test.go:5: got 1, want 2\n", "FAIL\tp\t0.1s\n",
		"gotest: 3 tests SKIPPED",
		"     2  shared corpus not found at /x/shared/corpus\n",
		"     1  c_test.go:4: DuckDB not installed\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "quiet") || strings.Contains(got, "SKIP: shared") {
		t.Errorf("output shows a passing or skipped test's lines:\n%s", got)
	}
}
