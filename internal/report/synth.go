package report

import (
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/foldcorpus/foldcorpus/internal/blob"
	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/ledger"
)

// SynthConfig describes a synthetic run for tests and `foldcorpus bench
// report`: Shards output files of RowsPerShard contacts-and-distances-v2-like
// documents in the output schema, with the accounting metadata; every
// FailEvery-th shard is failed (no file) and the last shard is left pending
// (missing) when Missing is set. With Resume set, the run is interrupted
// after its first half of shards and resumed Resume later: the second
// half's times come that much later.
type SynthConfig struct {
	Shards       int
	RowsPerShard int
	FailEvery    int // 0: no failed shards
	Missing      bool
	Seed         uint64
	Resume       time.Duration
}

var synthAA = []string{"ALA", "ARG", "ASN", "ASP", "CYS", "GLN", "GLU", "GLY", "HIS", "ILE", "LEU", "LYS", "MET", "PHE", "PRO", "SER", "THR", "TRP", "TYR", "VAL", "UNK"}

// synthDoc returns a document shaped like contacts-and-distances-v2 (header,
// sequence, statements with think tokens, pLDDT token, end).
func synthDoc(r *rand.Rand, n int) (doc string, emitted int64) {
	var b strings.Builder
	b.WriteString("<contacts-and-distances-v2> <begin_sequence>")
	for i := 0; i < n; i++ {
		b.WriteString(" <" + synthAA[r.IntN(len(synthAA))] + ">")
	}
	b.WriteString(" <begin_statements>")
	kinds := []string{"<long-range-contact>", "<medium-range-contact>", "<short-range-contact>"}
	stmts := 20 + r.IntN(200)
	for s := 0; s < stmts; s++ {
		if r.IntN(30) == 0 {
			b.WriteString(" <think>")
		}
		i, j := 1+r.IntN(n), 1+r.IntN(n)
		if r.IntN(3) == 0 {
			fmt.Fprintf(&b, " <distance> <p%d> <p%d> <CA> <CB> <d%.1f>", i, j, 0.5*float64(1+r.IntN(64)))
		} else {
			fmt.Fprintf(&b, " %s <p%d> <p%d>", kinds[r.IntN(3)], i, j)
			emitted++
		}
	}
	b.WriteString(" <plddt_80_85> <end>")
	return b.String(), emitted
}

// WriteSynthetic writes the synthetic run under dir through store
// (create-only: writing it twice into one folder fails with ErrExists) and
// returns its ledger records, with deterministic content and times for a
// given config.
func WriteSynthetic(ctx context.Context, store blob.Store, dir string, cfg SynthConfig) (shards []ledger.Shard, err error) {
	defer derrors.Wrap(&err, "report.WriteSynthetic(%s)", dir)
	r := rand.New(rand.NewPCG(cfg.Seed, 7))
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < cfg.Shards; i++ {
		sh := ledger.Shard{RunID: "synthetic", Index: i, Attempts: 1,
			Started: t0.Add(time.Duration(i) * 40 * time.Millisecond)}
		if i >= cfg.Shards/2 {
			sh.Started = sh.Started.Add(cfg.Resume)
		}
		sh.Finished = sh.Started.Add(time.Duration(500+r.IntN(1500)) * time.Millisecond)
		switch {
		case cfg.Missing && i == cfg.Shards-1:
			sh.Status = ledger.Pending
			sh.Started, sh.Finished = time.Time{}, time.Time{}
			shards = append(shards, sh)
			continue
		case cfg.FailEvery > 0 && i%cfg.FailEvery == cfg.FailEvery-1:
			sh.Status = ledger.Failed
			sh.Attempts = 3
			sh.EntryID = fmt.Sprintf("SYN-%05d-0", i)
			sh.Error = "mmcif: line 12: wrong number of values in loop"
			sh.Finished = time.Time{}
			shards = append(shards, sh)
			continue
		}
		var rows []OutputRow
		filtered := map[string]int64{}
		for row := 0; row < cfg.RowsPerShard; row++ {
			if r.IntN(10) == 0 {
				filtered[[]string{"too_short", "multi_chain", "low_plddt"}[r.IntN(3)]]++
				continue
			}
			id := fmt.Sprintf("SYN-%05d-%d", i, row)
			n := 16 + int(r.ExpFloat64()*250)
			doc, emitted := synthDoc(r, n)
			rows = append(rows, OutputRow{EntryID: id, Structure: "gs://synthetic/" + id + ".cif", Document: doc,
				SeqLen: int64(n), GlobalPLDDT: 30 + 70*r.Float64(), ContactsEmitted: emitted,
				NumTokens: int64(strings.Count(doc, " ") + 1)})
		}
		docs := int64(len(rows))
		var filt int64
		for _, n := range filtered {
			filt += n
		}
		sh.Status = ledger.Done
		sh.Counts = ledger.Counts{RowsIn: docs + filt, DocsOut: docs, Filtered: filtered}
		acc := map[string]any{"run_id": "synthetic", "shard": i, "total": cfg.Shards,
			"format": CADv2, "rows_in": sh.Counts.RowsIn, "docs_out": docs, "filtered": filtered, "skipped": 0}
		data, err := EncodeOutput(rows, acc)
		if err != nil {
			return nil, err
		}
		sh.Output = fmt.Sprintf("%s/part-%05d-of-%05d.parquet", strings.TrimSuffix(dir, "/"), i, cfg.Shards)
		if err := store.Create(ctx, sh.Output, data); err != nil {
			return nil, err
		}
		shards = append(shards, sh)
	}
	return shards, nil
}

// OutputRow is one row of the output schema (internal/corpus, for
// contacts-and-distances-v2 with num_tokens), for synthetic runs and test
// fixtures.
type OutputRow struct {
	EntryID, Structure, Document string
	SeqLen                       int64
	GlobalPLDDT                  float64
	ContactsEmitted              int64
	NumTokens                    int64
}

var outputSchema = arrow.NewSchema([]arrow.Field{
	{Name: "entry_id", Type: arrow.BinaryTypes.String},
	{Name: "structure", Type: arrow.BinaryTypes.String},
	{Name: "document", Type: arrow.BinaryTypes.String},
	{Name: "sha1", Type: arrow.BinaryTypes.String},
	{Name: "seq_len", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "global_plddt", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "contacts_emitted", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "num_tokens", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
}, nil)

// EncodeOutput encodes rows as one zstd parquet output file with acc as the
// JSON value of the accounting metadata key; sha1 is computed here.
func EncodeOutput(rows []OutputRow, acc any) ([]byte, error) {
	b := array.NewRecordBuilder(memory.DefaultAllocator, outputSchema)
	defer b.Release()
	for _, row := range rows {
		sum := sha1.Sum([]byte(row.Document))
		b.Field(0).(*array.StringBuilder).Append(row.EntryID)
		b.Field(1).(*array.StringBuilder).Append(row.Structure)
		b.Field(2).(*array.StringBuilder).Append(row.Document)
		b.Field(3).(*array.StringBuilder).Append(hex.EncodeToString(sum[:]))
		b.Field(4).(*array.Int64Builder).Append(row.SeqLen)
		b.Field(5).(*array.Float64Builder).Append(row.GlobalPLDDT)
		b.Field(6).(*array.Int64Builder).Append(row.ContactsEmitted)
		b.Field(7).(*array.Int64Builder).Append(row.NumTokens)
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	js, err := json.Marshal(acc)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Zstd))
	w, err := pqarrow.NewFileWriter(outputSchema, &buf, props, pqarrow.DefaultWriterProps())
	if err != nil {
		return nil, err
	}
	err = w.Write(rec)
	if err == nil {
		err = w.AppendKeyValueMetadata(metaKey, string(js))
	}
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
