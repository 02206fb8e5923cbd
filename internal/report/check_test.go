package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/duckcheck"
	"github.com/foldcorpus/foldcorpus/internal/ledger"
)

// near compares two figures with a relative tolerance for float sums.
func near(a, b float64) bool {
	if a == b {
		return true
	}
	return math.Abs(a-b) <= 1e-9*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

func num(t *testing.T, row map[string]any, key string) float64 {
	t.Helper()
	v, ok := row[key].(float64)
	if !ok {
		t.Fatalf("duckdb row %v: %s is %T, want a number", row, key, row[key])
	}
	return v
}

// duckDist computes a Dist over the DOUBLE expression x of relation from in
// DuckDB (quantile_cont is linear interpolation, like numpy's default).
func duckDist(t *testing.T, x, from string) Dist {
	t.Helper()
	sql := fmt.Sprintf(`SELECT count(x)::DOUBLE c, coalesce(sum(x), 0) s, coalesce(avg(x), 0) m, coalesce(min(x), 0) mi,
		coalesce(quantile_cont(x, 0.10), 0) p10, coalesce(quantile_cont(x, 0.25), 0) p25, coalesce(quantile_cont(x, 0.5), 0) p50,
		coalesce(quantile_cont(x, 0.75), 0) p75, coalesce(quantile_cont(x, 0.90), 0) p90, coalesce(quantile_cont(x, 0.99), 0) p99,
		coalesce(max(x), 0) mx FROM (SELECT (%s)::DOUBLE x FROM %s)`, x, from)
	r := duckcheck.Query(t, sql)[0]
	return Dist{Count: int64(num(t, r, "c")), Sum: num(t, r, "s"), Mean: num(t, r, "m"), Min: num(t, r, "mi"),
		P10: num(t, r, "p10"), P25: num(t, r, "p25"), P50: num(t, r, "p50"), P75: num(t, r, "p75"),
		P90: num(t, r, "p90"), P99: num(t, r, "p99"), Max: num(t, r, "mx")}
}

func checkDist(t *testing.T, name string, got, want Dist) {
	t.Helper()
	g := []float64{float64(got.Count), got.Sum, got.Mean, got.Min, got.P10, got.P25, got.P50, got.P75, got.P90, got.P99, got.Max}
	w := []float64{float64(want.Count), want.Sum, want.Mean, want.Min, want.P10, want.P25, want.P50, want.P75, want.P90, want.P99, want.Max}
	keys := []string{"count", "sum", "mean", "min", "p10", "p25", "p50", "p75", "p90", "p99", "max"}
	for i := range g {
		if !near(g[i], w[i]) {
			t.Errorf("summary %s.%s = %v, DuckDB says %v", name, keys[i], g[i], w[i])
		}
	}
}

// checkHist recounts every bin of h in DuckDB.
func checkHist(t *testing.T, name string, h Histogram, x, from string) {
	t.Helper()
	if len(h.Edges) != len(h.Counts)+1 || len(h.Counts) == 0 {
		t.Fatalf("summary %s histogram: %d edges for %d counts", name, len(h.Edges), len(h.Counts))
	}
	var cols []string
	last := len(h.Counts) - 1
	for i := range h.Counts {
		op := "<"
		if i == last {
			op = "<="
		}
		cols = append(cols, fmt.Sprintf("count_if(x >= %v AND x %s %v)::DOUBLE b%d", h.Edges[i], op, h.Edges[i+1], i))
	}
	cols = append(cols, fmt.Sprintf("count_if(x < %v)::DOUBLE below", h.Edges[0]), fmt.Sprintf("count_if(x > %v)::DOUBLE above", h.Edges[last+1]))
	r := duckcheck.Query(t, fmt.Sprintf("SELECT %s FROM (SELECT (%s)::DOUBLE x FROM %s)", strings.Join(cols, ", "), x, from))[0]
	for i, c := range h.Counts {
		if w := num(t, r, fmt.Sprintf("b%d", i)); float64(c) != w {
			t.Errorf("summary %s histogram bin [%v, %v]: %d, DuckDB counts %v", name, h.Edges[i], h.Edges[i+1], c, w)
		}
	}
	if float64(h.Below) != num(t, r, "below") || float64(h.Above) != num(t, r, "above") {
		t.Errorf("summary %s histogram below/above %d/%d, DuckDB %v/%v", name, h.Below, h.Above, r["below"], r["above"])
	}
}

// valuesFrom renders numbers as a DuckDB VALUES relation with column x.
func valuesFrom(v []float64) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = fmt.Sprintf("(%v::DOUBLE)", x)
	}
	return "(VALUES " + strings.Join(parts, ", ") + ") AS v(x)"
}

// checkSummary reads dir/report/summary.json and checks every figure in it
// against DuckDB over the output parquet (and over the ledger records for
// the ledger's figures).
func checkSummary(t *testing.T, dir string, shards []ledger.Shard, contextLength int) Summary {
	t.Helper()
	js, err := os.ReadFile(filepath.Join(dir, "report", "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s Summary
	if err := json.Unmarshal(js, &s); err != nil {
		t.Fatalf("summary.json: %v", err)
	}
	glob := filepath.Join(dir, "*.parquet")
	pq := fmt.Sprintf("read_parquet('%s')", glob)

	r := duckcheck.Query(t, fmt.Sprintf("SELECT count(*)::DOUBLE docs FROM %s", pq))[0]
	if float64(s.Documents) != num(t, r, "docs") {
		t.Errorf("summary documents = %d, DuckDB counts %v", s.Documents, r["docs"])
	}
	r = duckcheck.Query(t, fmt.Sprintf("SELECT count(*)::DOUBLE files FROM parquet_file_metadata('%s')", glob))[0]
	if float64(s.Files) != num(t, r, "files") {
		t.Errorf("summary files = %d, DuckDB counts %v", s.Files, r["files"])
	}
	checkDist(t, "documents_per_shard", s.DocsPerShard, duckDist(t, "num_rows", fmt.Sprintf("parquet_file_metadata('%s')", glob)))

	tokens := "len(string_split(document, ' '))"
	for _, c := range []struct {
		name string
		d    *DistHist
		x    string
	}{
		{"seq_len", s.SeqLen, "seq_len"},
		{"global_plddt", s.GlobalPLDDT, "global_plddt"},
		{"num_tokens", s.NumTokens, tokens},
		{"context_fill", s.ContextFill, fmt.Sprintf("%s / %d", tokens, contextLength)},
	} {
		if c.d == nil {
			t.Errorf("summary has no %s", c.name)
			continue
		}
		checkDist(t, c.name, c.d.Dist, duckDist(t, c.x, pq))
		checkHist(t, c.name, c.d.Histogram, c.x, pq)
	}
	if s.Statements == nil {
		t.Fatalf("summary has no statements")
	}
	for k, name := range stmtNames {
		x := fmt.Sprintf("list_count(list_filter(string_split(document, ' '), tok -> tok = '%s'))", stmtTokens[k])
		want := duckDist(t, x, pq)
		checkDist(t, "statements."+name, s.Statements.PerDocument[name], want)
		if float64(s.Statements.Totals[name]) != want.Sum {
			t.Errorf("summary statements.totals.%s = %d, DuckDB %v", name, s.Statements.Totals[name], want.Sum)
		}
	}

	// Accounting: the files' metadata (read by DuckDB) and the ledger agree
	// with the summary.
	r = duckcheck.Query(t, fmt.Sprintf(`SELECT coalesce(sum(json_extract(decode(value), '$.rows_in')::BIGINT), 0)::DOUBLE rows_in,
		coalesce(sum(json_extract(decode(value), '$.docs_out')::BIGINT), 0)::DOUBLE docs_out
		FROM parquet_kv_metadata('%s') WHERE decode(key) = 'foldcorpus.accounting'`, glob))[0]
	if float64(s.Accounting.RowsIn) != num(t, r, "rows_in") || float64(s.Accounting.DocsOut) != num(t, r, "docs_out") {
		t.Errorf("summary accounting rows_in/docs_out = %d/%d, DuckDB over the files' metadata %v/%v",
			s.Accounting.RowsIn, s.Accounting.DocsOut, r["rows_in"], r["docs_out"])
	}
	// DuckDB reads each file's accounting JSON; the reasons are summed here.
	metas := duckcheck.Query(t, fmt.Sprintf(`SELECT decode(value) v FROM parquet_kv_metadata('%s') WHERE decode(key) = 'foldcorpus.accounting'`, glob))
	wantFiltered := map[string]int64{}
	var wantSkipped int64
	for _, row := range metas {
		var acc struct {
			Filtered map[string]int64 `json:"filtered"`
			Skipped  int64            `json:"skipped"`
		}
		if err := json.Unmarshal([]byte(row["v"].(string)), &acc); err != nil {
			t.Fatalf("accounting metadata %v: %v", row["v"], err)
		}
		for k, n := range acc.Filtered {
			wantFiltered[k] += n
		}
		wantSkipped += acc.Skipped
	}
	if s.Accounting.Skipped != wantSkipped {
		t.Errorf("summary accounting.skipped = %d, DuckDB over the files' metadata %d", s.Accounting.Skipped, wantSkipped)
	}
	if fmt.Sprint(wantFiltered) != fmt.Sprint(s.Accounting.Filtered) {
		t.Errorf("summary accounting.filtered = %v, DuckDB over the files' metadata %v", s.Accounting.Filtered, wantFiltered)
	}
	var failed, missing []int
	var wall []float64
	for _, sh := range shards {
		switch sh.Status {
		case ledger.Failed, ledger.DeadLettered:
			failed = append(failed, sh.Index)
		case ledger.Done:
			wall = append(wall, sh.Finished.Sub(sh.Started).Seconds())
		default:
			missing = append(missing, sh.Index)
		}
	}
	var gotFailed []int
	for _, f := range s.Accounting.Failures {
		gotFailed = append(gotFailed, f.Shard)
		if f.Error == "" || f.EntryID == "" {
			t.Errorf("summary failure %+v lacks its entry id or error", f)
		}
	}
	if !slices.Equal(gotFailed, failed) || s.Accounting.ShardsFailed != len(failed) {
		t.Errorf("summary failures = %v (%d), ledger has failed shards %v", gotFailed, s.Accounting.ShardsFailed, failed)
	}
	if !slices.Equal(s.Accounting.Missing, missing) && !(len(missing) == 0 && len(s.Accounting.Missing) == 0) {
		t.Errorf("summary missing = %v, ledger has unfinished shards %v", s.Accounting.Missing, missing)
	}
	if !s.Accounting.Balanced {
		t.Errorf("summary accounting not balanced: %+v", s.Accounting)
	}
	if len(wall) > 0 {
		if s.ShardWallClock == nil {
			t.Fatalf("summary has no shard wall-clock")
		}
		checkDist(t, "shard_wall_clock_s", *s.ShardWallClock, duckDist(t, "x", valuesFrom(wall)))
		if s.Throughput == nil || !near(s.Throughput.DocsPerS, float64(s.Accounting.DocsOut)/s.Throughput.WallS) {
			t.Errorf("summary throughput %+v inconsistent with %d docs", s.Throughput, s.Accounting.DocsOut)
		}
		var sum float64
		for _, v := range s.Throughput.DocsPerSBy {
			sum += v * s.Throughput.BucketS
		}
		if math.Abs(sum-float64(s.Accounting.DocsOut)) > 1e-6*float64(s.Accounting.DocsOut)+1e-9 {
			t.Errorf("throughput buckets add up to %v documents, want %d", sum, s.Accounting.DocsOut)
		}
	}

	// I/O: the sizes on disk, and only the report's columns read.
	var total int64
	matches, _ := filepath.Glob(glob)
	for _, m := range matches {
		st, err := os.Stat(m)
		if err != nil {
			t.Fatal(err)
		}
		total += st.Size()
	}
	if s.IO.BytesTotal != total {
		t.Errorf("summary io.bytes_total = %d, files hold %d", s.IO.BytesTotal, total)
	}
	if s.IO.BytesRead <= 0 || s.IO.BytesRead >= total {
		t.Errorf("summary io.bytes_read = %d of %d: want some, not all", s.IO.BytesRead, total)
	}
	if want := []string{"document", "global_plddt", "num_tokens", "seq_len"}; !slices.Equal(s.IO.ColumnsRead, want) {
		t.Errorf("summary io.columns_read = %v, want %v", s.IO.ColumnsRead, want)
	}
	return s
}

// checkPNGs decodes every plot the summary lists and checks it is a real
// picture (several colours, the plot's size), and that index.html shows it.
func checkPNGs(t *testing.T, dir string, s Summary, want []string) {
	t.Helper()
	page, err := os.ReadFile(filepath.Join(dir, "report", "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range s.Plots {
		got = append(got, p.File)
		data, err := os.ReadFile(filepath.Join(dir, "report", p.File))
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(data))
		if err != nil {
			t.Errorf("%s: not a valid PNG: %v", p.File, err)
			continue
		}
		if b := img.Bounds(); b.Dx() != 768 || b.Dy() != 384 {
			t.Errorf("%s: %v, want 768x384", p.File, b)
		}
		if n := colours(img, 64); n < 3 {
			t.Errorf("%s: only %d colours: an empty plot", p.File, n)
		}
		if !bytes.Contains(page, []byte(`src="`+p.File+`"`)) {
			t.Errorf("index.html does not show %s", p.File)
		}
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("plots = %v, want %v", got, want)
	}
}

// colours counts distinct colours, stopping at limit.
func colours(img image.Image, limit int) int {
	seen := map[[4]uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, a := img.At(x, y).RGBA()
			seen[[4]uint32{r, g, bl, a}] = true
			if len(seen) >= limit {
				return len(seen)
			}
		}
	}
	return len(seen)
}
