package verify

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// WriteText writes the report for people: a summary, then every missing
// shard, extra object and disagreement, one a line; then rerun, the lines
// that rerun the missing shards (the caller's: it knows how the run was
// made), and WHOLE or NOT WHOLE.
func WriteText(w io.Writer, r *Report, rerun []string) error {
	var b strings.Builder
	manifest := r.Manifest
	if manifest == "" {
		manifest = "(not given: each file's footer names its manifest rows)"
	}
	fmt.Fprintf(&b, "verify %s\n  run       %s\n  manifest  %s\n", r.Out, dash(r.RunID), manifest)
	fmt.Fprintf(&b, "  shards    %d, %d files under their own names, %d missing, %d extra objects, %d disagreements\n",
		r.Shards, r.Files, len(r.Missing), len(r.Extra), len(r.Disagrees))
	rows := "unknown (no manifest)"
	if r.Rows >= 0 {
		rows = fmt.Sprint(r.Rows)
	}
	fmt.Fprintf(&b, "  rows      %s in the manifest, %d accounted for: %d documents, %d filtered, %d skipped\n",
		rows, r.Accounted, r.Documents, sum(r.Filtered), r.Skipped)
	if r.SkippedParse > 0 {
		fmt.Fprintf(&b, "  skipped   %d of them because their object failed to parse (--lenient-parse; `foldcorpus status` names them)\n", r.SkippedParse)
	}
	for _, k := range sortedKeys(r.Filtered) {
		fmt.Fprintf(&b, "  filtered  %-20s %d\n", k, r.Filtered[k])
	}
	if r.SuspectSeqLen > 0 {
		ids := slices.Sorted(slices.Values(r.Suspects))
		more := ""
		if len(ids) > 10 {
			ids, more = ids[:10], "..."
		}
		fmt.Fprintf(&b, "WARNING   %d rows whose structure's length differs from the manifest's seq_len (truncated objects?), written as any other; not a failure: %s%s\n",
			r.SuspectSeqLen, strings.Join(ids, ", "), more)
	}
	if r.Unchecked > 0 {
		fmt.Fprintf(&b, "  unchecked %d files name no manifest: their rows were checked against their own accounting only\n", r.Unchecked)
	}
	if r.Deep {
		fmt.Fprintf(&b, "  deep      %d documents' sha1 recomputed\n", r.Hashed)
	}
	fmt.Fprintf(&b, "  read      %d bytes of footers and columns (%d reads) in %s\n", r.BytesRead, r.Reads, r.Wall.Round(time.Millisecond))
	for _, m := range r.Missing {
		fmt.Fprintf(&b, "MISSING   shard %05d: no %s", m.Shard, m.Name)
		if m.Manifest != "" {
			fmt.Fprintf(&b, " (%d rows of %s%s)", m.Rows, m.Manifest, rowGroups(m.RowGroups))
		}
		switch m.Ledger {
		case "":
		case "done":
			b.WriteString("; the ledger says done: it is wrong, and a rerun skips shards the ledger says done")
		default:
			fmt.Fprintf(&b, "; the ledger says %s", m.Ledger)
		}
		b.WriteByte('\n')
	}
	for _, e := range r.Extra {
		fmt.Fprintf(&b, "EXTRA     %s (%s): %s\n", e.Name, e.Kind, e.Detail)
	}
	for _, d := range r.Disagrees {
		fmt.Fprintf(&b, "DISAGREES %s (shard %05d, %s): %s\n", d.Name, d.Shard, d.Check, d.Detail)
	}
	if len(r.Missing) > 0 && len(rerun) > 0 {
		b.WriteString("rerun the missing shards:\n")
		for _, l := range rerun {
			b.WriteString("  " + l + "\n")
		}
	}
	if r.OK() {
		b.WriteString("WHOLE\n")
	} else {
		b.WriteString("NOT WHOLE\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func rowGroups(rgs []int) string {
	if len(rgs) == 0 {
		return ""
	}
	return fmt.Sprintf(" row groups %v", rgs)
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
