package report

import (
	"bytes"
	"fmt"
	"html/template"
	"sort"
)

// pageTmpl is report/index.html: self-contained (inline style, relative PNG
// links), so it opens from a folder or a bucket with no network.
var pageTmpl = template.Must(template.New("page").Funcs(template.FuncMap{
	"f": func(v float64) string { return trimFloat(v) },
	// opt prints an optional figure: "n/a" when it was not measured.
	"opt": func(v any) string {
		switch x := v.(type) {
		case *int64:
			if x != nil {
				return fmt.Sprint(*x)
			}
		case *float64:
			if x != nil {
				return trimFloat(*x)
			}
		}
		return "n/a"
	},
}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>foldcorpus report: {{.S.Source}}</title>
<style>
body { font-family: sans-serif; margin: 1.5em; color: #222; }
h1 { font-size: 1.4em; } h2 { font-size: 1.15em; margin-top: 1.5em; }
table { border-collapse: collapse; margin: 0.5em 0; }
td, th { border: 1px solid #ccc; padding: 2px 8px; text-align: right; }
th { background: #eef; } td.l, th.l { text-align: left; }
.plots { display: flex; flex-wrap: wrap; gap: 12px; }
figure { margin: 0; border: 1px solid #ddd; padding: 4px; }
figure img { width: 576px; height: 288px; display: block; }
figcaption { font-size: 0.85em; text-align: center; }
.bad { color: #b00; font-weight: bold; } .ok { color: #070; }
</style>
</head>
<body>
<h1>foldcorpus report</h1>
<table>
<tr><th class="l">output</th><td class="l">{{.S.Source}}</td></tr>
<tr><th class="l">format</th><td class="l">{{.S.Format}}</td></tr>
<tr><th class="l">files / shards</th><td class="l">{{.S.Files}} / {{.S.ShardsTotal}}</td></tr>
<tr><th class="l">documents</th><td class="l">{{.S.Documents}}</td></tr>
<tr><th class="l">rows in &rarr; documents out</th><td class="l">{{.A.RowsIn}} &rarr; {{.A.DocsOut}}
 ({{if not .A.Complete}}<span class="bad">INCOMPLETE: {{.A.ShardsFailed}} failed and {{.A.ShardsMissing}} missing shards wrote no documents; these counts cover the {{.A.ShardsDone}} done shards only</span>{{else if .A.Balanced}}<span class="ok">balanced</span>{{else}}<span class="bad">NOT balanced</span>{{end}}; from {{.A.Source}})</td></tr>
<tr><th class="l">shards done / failed / missing</th><td class="l">{{.A.ShardsDone}} / {{if .A.ShardsFailed}}<span class="bad">{{.A.ShardsFailed}}</span>{{else}}0{{end}} / {{if .A.ShardsMissing}}<span class="bad">{{.A.ShardsMissing}}</span>{{else}}0{{end}}</td></tr>
{{with .S.Statements}}<tr><th class="l">num_tokens vs document</th><td class="l">{{if .NumTokensMismatch}}<span class="bad">{{.NumTokensMismatch}} documents disagree</span>{{else}}<span class="ok">every document agrees</span>{{end}}</td></tr>{{end}}
{{with .S.Throughput}}<tr><th class="l">throughput</th><td class="l">{{f .DocsPerS}} documents/s over {{f .ActiveS}} s with shards running{{if .IdleS}} ({{f .WallS}} s from the first start to the last finish, of which {{f .IdleS}} s idle){{end}}</td></tr>{{end}}
<tr><th class="l">read</th><td class="l">{{.S.IO.BytesRead}} of {{.S.IO.BytesTotal}} bytes; columns {{range .S.IO.ColumnsRead}}{{.}} {{end}}</td></tr>
</table>

<h2>Plots</h2>
<div class="plots">
{{range .S.Plots}}<figure><img src="{{.File}}" alt="{{.Title}}" width="576" height="288"><figcaption>{{.Title}}</figcaption></figure>
{{end}}</div>

<h2>Distributions</h2>
<table>
<tr><th class="l">figure</th><th>count</th><th>mean</th><th>min</th><th>p10</th><th>p25</th><th>p50</th><th>p75</th><th>p90</th><th>p99</th><th>max</th></tr>
{{range .D}}<tr><td class="l">{{.Name}}</td><td>{{.D.Count}}</td><td>{{f .D.Mean}}</td><td>{{f .D.Min}}</td><td>{{f .D.P10}}</td><td>{{f .D.P25}}</td><td>{{f .D.P50}}</td><td>{{f .D.P75}}</td><td>{{f .D.P90}}</td><td>{{f .D.P99}}</td><td>{{f .D.Max}}</td></tr>
{{end}}</table>

<h2>Rows in vs documents out</h2>
<table>
<tr><th class="l">outcome</th><th>rows</th></tr>
<tr><td class="l">rows in</td><td>{{.A.RowsIn}}</td></tr>
<tr><td class="l">documents out</td><td>{{.A.DocsOut}}</td></tr>
{{range .Reasons}}<tr><td class="l">filtered: {{.Name}}</td><td>{{.N}}</td></tr>
{{end}}<tr><td class="l">skipped (lenient missing)</td><td>{{.A.Skipped}}</td></tr>
{{if .A.SuspectSeqLen}}<tr><td class="l">suspect, written: structure length differs from the manifest's seq_len (truncated objects?)</td><td>{{.A.SuspectSeqLen}}</td></tr>{{end}}
</table>
{{with .S.Story}}
<h2>From the folder to the corpus</h2>
<table>
<tr><th class="l">step</th><th>n</th></tr>
{{with .Selection}}<tr><td class="l">entries scanned (<code>{{.File}}</code>)</td><td>{{.Scanned}}</td></tr>
{{range .Rejected}}<tr><td class="l">&nbsp;&nbsp;rejected: {{.Filter}}</td><td>{{.Entries}}</td></tr>
{{end}}<tr><td class="l">entries selected</td><td>{{.Selected}}</td></tr>
{{end}}{{if $.A.Entries}}<tr><td class="l">entries processed by this run (funnel below)</td><td>{{$.A.Entries}}</td></tr>
{{range $k, $n := $.A.UnitDocs}}<tr><td class="l">&nbsp;&nbsp;documents: {{$k}}</td><td>{{$n}}</td></tr>
{{end}}{{end}}{{with .Dedup}}<tr><td class="l">deduplicated cut (<code>{{.File}}</code>): rows in</td><td>{{.RowsIn}}</td></tr>
<tr><td class="l">&nbsp;&nbsp;cluster compositions</td><td>{{.Groups}}</td></tr>
<tr><td class="l">&nbsp;&nbsp;dropped as duplicates</td><td>{{.Duplicates}}</td></tr>
{{range $k, $n := .BySubset}}<tr><td class="l">&nbsp;&nbsp;kept: {{$k}}</td><td>{{$n}}</td></tr>
{{end}}{{end}}</table>
{{if .Leakage}}<h3>Leakage against the eval set (<code>foldcorpus leakage</code>)</h3>
<table>
<tr><th class="l">subset</th><th>documents</th><th>eval ids present</th><th>exact sequence matches</th><th>40% cluster homologous</th><th>eval entries covered</th></tr>
{{range .Leakage}}<tr><td class="l">{{.Subset}}</td><td>{{.Documents}}</td><td>{{opt .EvalPresent}}</td><td>{{opt .Exact}} ({{opt .ExactFrac}})</td><td>{{opt .Homologous}} ({{opt .HomologFrac}})</td><td>{{opt .Covered}} of {{.EvalEntries}} ({{opt .CoveredFrac}})</td></tr>
{{end}}</table>{{end}}
{{end}}
{{if .A.Entries}}
<h2>Funnel: entries, chains, documents</h2>
<p>Each row is an entry (a PDB structure); its documents are its curated chains and its assembly. Every chain or unit without a document is counted here by its reason; the shard's ledger files (<code>ledger/</code>) hold one row per entry.</p>
<table>
<tr><th class="l">count</th><th>n</th></tr>
<tr><td class="l">entries processed</td><td>{{.A.Entries}}</td></tr>
{{range $k, $n := .A.UnitDocs}}<tr><td class="l">documents: {{$k}}</td><td>{{$n}}</td></tr>
{{end}}{{range $k, $n := .A.Funnel}}<tr><td class="l">{{$k}}</td><td>{{$n}}</td></tr>
{{end}}</table>
{{end}}
<h2>Failures</h2>
{{if .A.Failures}}<table>
<tr><th>shard</th><th class="l">status</th><th>attempts</th><th class="l">entry id</th><th class="l">error</th></tr>
{{range .A.Failures}}<tr><td>{{.Shard}}</td><td class="l bad">{{.Status}}</td><td>{{.Attempts}}</td><td class="l">{{.EntryID}}</td><td class="l">{{.Error}}</td></tr>
{{end}}</table>{{else}}<p class="ok">No failed shards.</p>{{end}}
{{if .A.Missing}}<p class="bad">Missing shards (no output, not failed): {{range .A.Missing}}{{.}} {{end}}</p>{{end}}
<p>The same figures as numbers: <a href="summary.json">summary.json</a>.</p>
</body>
</html>
`))

type namedDist struct {
	Name string
	D    Dist
}

type namedCount struct {
	Name string
	N    int64
}

// renderPage renders index.html from the summary.
func renderPage(s Summary) ([]byte, error) {
	data := struct {
		S       Summary
		A       Accounting
		D       []namedDist
		Reasons []namedCount
	}{S: s, A: s.Accounting}
	data.D = append(data.D, namedDist{"documents per shard", s.DocsPerShard})
	if s.ShardWallClock != nil {
		data.D = append(data.D, namedDist{"shard wall-clock (s)", *s.ShardWallClock})
	}
	for _, h := range []struct {
		name string
		d    *DistHist
	}{{"sequence length", s.SeqLen}, {"tokens per document", s.NumTokens}, {"context fill", s.ContextFill}, {"global pLDDT", s.GlobalPLDDT}} {
		if h.d != nil {
			data.D = append(data.D, namedDist{h.name, h.d.Dist})
		}
	}
	if s.Statements != nil {
		for _, n := range stmtNames {
			data.D = append(data.D, namedDist{n + " per document", s.Statements.PerDocument[n]})
		}
	}
	if c := s.Coordinates; c != nil {
		for _, n := range coordClasses {
			if d, ok := c.PerDocument[n]; ok {
				data.D = append(data.D, namedDist{n + " per document", d})
			}
		}
	}
	for r, n := range s.Accounting.Filtered {
		data.Reasons = append(data.Reasons, namedCount{r, n})
	}
	sort.Slice(data.Reasons, func(i, j int) bool { return data.Reasons[i].Name < data.Reasons[j].Name })
	var buf bytes.Buffer
	if err := pageTmpl.Execute(&buf, data); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
