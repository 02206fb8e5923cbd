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
	"time"

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

// distCols returns the DuckDB aggregates of a Dist over the DOUBLE column x
// (quantile_cont is linear interpolation, like numpy's default), named
// with prefix p.
func distCols(x, p string) string {
	return fmt.Sprintf(`count(%[1]s)::DOUBLE %[2]s_c, coalesce(sum(%[1]s), 0) %[2]s_s, coalesce(avg(%[1]s), 0) %[2]s_m,
		coalesce(min(%[1]s), 0) %[2]s_mi, coalesce(quantile_cont(%[1]s, 0.10), 0) %[2]s_p10, coalesce(quantile_cont(%[1]s, 0.25), 0) %[2]s_p25,
		coalesce(quantile_cont(%[1]s, 0.5), 0) %[2]s_p50, coalesce(quantile_cont(%[1]s, 0.75), 0) %[2]s_p75,
		coalesce(quantile_cont(%[1]s, 0.90), 0) %[2]s_p90, coalesce(quantile_cont(%[1]s, 0.99), 0) %[2]s_p99, coalesce(max(%[1]s), 0) %[2]s_mx`, x, p)
}

// rowDist reads the Dist named p from a row of distCols.
func rowDist(t *testing.T, r map[string]any, p string) Dist {
	t.Helper()
	f := func(k string) float64 { return num(t, r, p+"_"+k) }
	return Dist{Count: int64(f("c")), Sum: f("s"), Mean: f("m"), Min: f("mi"), P10: f("p10"), P25: f("p25"),
		P50: f("p50"), P75: f("p75"), P90: f("p90"), P99: f("p99"), Max: f("mx")}
}

// duckDist computes a Dist over the expression x of relation from in DuckDB.
func duckDist(t *testing.T, x, from string) Dist {
	t.Helper()
	r := duckcheck.Query(t, fmt.Sprintf("SELECT %s FROM (SELECT (%s)::DOUBLE x FROM %s)", distCols("x", "d"), x, from))[0]
	return rowDist(t, r, "d")
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

// histCols returns DuckDB aggregates recounting every bin of h over the
// DOUBLE column x, named with prefix p.
func histCols(h Histogram, x, p string) string {
	var cols []string
	last := len(h.Counts) - 1
	for i := range h.Counts {
		op := "<"
		if i == last {
			op = "<="
		}
		cols = append(cols, fmt.Sprintf("count_if(%s >= %v AND %s %s %v)::DOUBLE %s_b%d", x, h.Edges[i], x, op, h.Edges[i+1], p, i))
	}
	cols = append(cols, fmt.Sprintf("count_if(%s < %v)::DOUBLE %s_below", x, h.Edges[0], p), fmt.Sprintf("count_if(%s > %v)::DOUBLE %s_above", x, h.Edges[last+1], p))
	return strings.Join(cols, ", ")
}

// checkHist compares h with a row of histCols.
func checkHist(t *testing.T, name string, h Histogram, r map[string]any, p string) {
	t.Helper()
	for i, c := range h.Counts {
		if w := num(t, r, fmt.Sprintf("%s_b%d", p, i)); float64(c) != w {
			t.Errorf("summary %s histogram bin [%v, %v]: %d, DuckDB counts %v", name, h.Edges[i], h.Edges[i+1], c, w)
		}
	}
	if float64(h.Below) != num(t, r, p+"_below") || float64(h.Above) != num(t, r, p+"_above") {
		t.Errorf("summary %s histogram below/above %d/%d, DuckDB %v/%v", name, h.Below, h.Above, r[p+"_below"], r[p+"_above"])
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

// valuesFrom2 renders the done shards' start and finish times, in seconds
// since the first record's start (full precision), as a DuckDB VALUES
// relation with columns st, f.
func valuesFrom2(shards []ledger.Shard) string {
	var parts []string
	var ref time.Time
	for _, sh := range shards {
		if sh.Status == ledger.Done && !sh.Started.IsZero() && !sh.Finished.IsZero() {
			if ref.IsZero() {
				ref = sh.Started
			}
			parts = append(parts, fmt.Sprintf("(%v::DOUBLE, %v::DOUBLE)", sh.Started.Sub(ref).Seconds(), sh.Finished.Sub(ref).Seconds()))
		}
	}
	return "(VALUES " + strings.Join(parts, ", ") + ") AS v(st, f)"
}

// checkSummary reads dir/report/summary.json and checks every figure in it
// against DuckDB over the output parquet (and over the ledger records for
// the ledger's figures).
func checkSummary(t *testing.T, dir string, shards []ledger.Shard, contextLength int, readDocs bool) Summary {
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

	// Files, documents and documents per file, from the parquet footers.
	r := duckcheck.Query(t, fmt.Sprintf("SELECT count(*)::DOUBLE files, sum(num_rows)::DOUBLE docs, %s FROM parquet_file_metadata('%s')",
		distCols("num_rows::DOUBLE", "dps"), glob))[0]
	if float64(s.Documents) != num(t, r, "docs") || float64(s.Files) != num(t, r, "files") {
		t.Errorf("summary documents/files = %d/%d, DuckDB counts %v/%v", s.Documents, s.Files, r["docs"], r["files"])
	}
	checkDist(t, "documents_per_shard", s.DocsPerShard, rowDist(t, r, "dps"))

	// Every per-document figure and histogram, in one query over the rows.
	tokens := "len(string_split(document, ' '))"
	exprs := []string{"seq_len", "global_plddt", tokens, fmt.Sprintf("%s / %d", tokens, contextLength)}
	for _, tok := range stmtTokens {
		exprs = append(exprs, fmt.Sprintf("list_count(list_filter(string_split(document, ' '), tok -> tok = '%s'))", tok))
	}
	hists := []struct {
		name string
		d    *DistHist
	}{{"seq_len", s.SeqLen}, {"global_plddt", s.GlobalPLDDT}, {"num_tokens", s.NumTokens}, {"context_fill", s.ContextFill}}
	var inner, outer []string
	for i, e := range exprs {
		inner = append(inner, fmt.Sprintf("(%s)::DOUBLE x%d", e, i))
		outer = append(outer, distCols(fmt.Sprintf("x%d", i), fmt.Sprintf("v%d", i)))
	}
	for i, h := range hists {
		if h.d == nil {
			t.Fatalf("summary has no %s", h.name)
		}
		outer = append(outer, histCols(h.d.Histogram, fmt.Sprintf("x%d", i), fmt.Sprintf("h%d", i)))
	}
	if s.Statements == nil {
		t.Fatalf("summary has no statements")
	}
	r = duckcheck.Query(t, fmt.Sprintf("SELECT %s FROM (SELECT %s FROM %s)", strings.Join(outer, ", "), strings.Join(inner, ", "), pq))[0]
	for i, h := range hists {
		checkDist(t, h.name, h.d.Dist, rowDist(t, r, fmt.Sprintf("v%d", i)))
		checkHist(t, h.name, h.d.Histogram, r, fmt.Sprintf("h%d", i))
	}
	// Sequence tokens: between the two markers, by list positions in DuckDB.
	comp := duckcheck.Query(t, fmt.Sprintf(`SELECT sum(list_position(tk, '<begin_statements>') - list_position(tk, '<begin_sequence>') - 1)::DOUBLE seq,
		sum(len(tk))::DOUBLE alltok FROM (SELECT string_split(document, ' ') tk FROM %s)`, pq))[0]
	tc := s.Statements.TokenComposition
	var sumTC int64
	for _, n := range tc {
		sumTC += n
	}
	if float64(tc["sequence"]) != num(t, comp, "seq") || float64(sumTC) != num(t, comp, "alltok") ||
		tc["think"] != s.Statements.Totals["think_tokens"] || tc["distance_statements"] != 6*s.Statements.Totals["distance_statements"] || tc["other"] < 0 {
		t.Errorf("summary statements.token_composition = %v, DuckDB counts %v sequence tokens of %v", tc, comp["seq"], comp["alltok"])
	}
	mm := duckcheck.Query(t, fmt.Sprintf("SELECT count_if(num_tokens <> %s)::DOUBLE n FROM %s", tokens, pq))[0]
	if float64(s.Statements.NumTokensMismatch) != num(t, mm, "n") {
		t.Errorf("summary statements.num_tokens_mismatch = %d, DuckDB %v", s.Statements.NumTokensMismatch, mm["n"])
	}
	for k, name := range stmtNames {
		want := rowDist(t, r, fmt.Sprintf("v%d", len(hists)+k))
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
	if want := len(failed) == 0 && len(missing) == 0; s.Accounting.Complete != want {
		t.Errorf("summary complete = %v, want %v (failed %v, missing %v)", s.Accounting.Complete, want, failed, missing)
	}
	if len(wall) > 0 {
		if s.ShardWallClock == nil {
			t.Fatalf("summary has no shard wall-clock")
		}
		checkDist(t, "shard_wall_clock_s", *s.ShardWallClock, duckDist(t, "x", valuesFrom(wall)))
		if s.Throughput == nil || !near(s.Throughput.DocsPerS, float64(s.Accounting.DocsOut)/s.Throughput.ActiveS) {
			t.Errorf("summary throughput %+v inconsistent with %d docs", s.Throughput, s.Accounting.DocsOut)
		}
		// Running time: the union of the shards' spans, as islands (a span
		// that starts after every earlier one ended starts a new island).
		r := duckcheck.Query(t, fmt.Sprintf(`SELECT (SELECT (max(f) - min(st))::DOUBLE FROM %[1]s) wall,
			coalesce(sum(e - b), 0)::DOUBLE active FROM (SELECT min(st) b, max(f) e FROM (
				SELECT st, f, sum(CASE WHEN st > prev THEN 1 ELSE 0 END) OVER (ORDER BY st, f ROWS UNBOUNDED PRECEDING) island FROM (
					SELECT st, f, max(f) OVER (ORDER BY st, f ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) prev FROM %[1]s WHERE f >= st))
				GROUP BY island)`, valuesFrom2(shards)))[0]
		if !near(s.Throughput.WallS, num(t, r, "wall")) {
			t.Errorf("summary throughput.wall_s = %v, DuckDB over the ledger's times %v", s.Throughput.WallS, r["wall"])
		}
		if math.Abs(s.Throughput.ActiveS-num(t, r, "active")) > 1e-9*s.Throughput.WallS || !near(s.Throughput.ActiveS+s.Throughput.IdleS, s.Throughput.WallS) {
			t.Errorf("summary throughput.active_s = %v (idle %v, wall %v), DuckDB over the ledger's times %v", s.Throughput.ActiveS, s.Throughput.IdleS, s.Throughput.WallS, r["active"])
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
	want := []string{"global_plddt", "num_tokens", "seq_len"}
	if readDocs {
		want = append([]string{"document"}, want...)
	}
	if !slices.Equal(s.IO.ColumnsRead, want) {
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
