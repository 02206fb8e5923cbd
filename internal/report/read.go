package report

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/foldcorpus/foldcorpus/internal/blob"
	"github.com/foldcorpus/foldcorpus/internal/corpus"
	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/format"
)

// Column names of the output parquet that the report reads; every other
// column (structure, passthrough, format columns) is never read.
const (
	colSeqLen    = "seq_len"
	colPLDDT     = "global_plddt"
	colNumTokens = "num_tokens"
	colDocument  = "document"
)

// Statement classes counted per contacts-and-distances-v2 document, in the
// order of Stmts.
var stmtTokens = [...]string{"<long-range-contact>", "<medium-range-contact>", "<short-range-contact>", "<distance>", "<think>"}

// stmtNames are the summary.json keys of stmtTokens: the token mix classes
// the generator counts (format.Mixer).
var stmtNames = [...]string{format.MixLongRange, format.MixMediumRange, format.MixShortRange, format.MixDistance, format.MixThink}

const nStmt = len(stmtTokens)

// shardName matches {prefix}-{shard:05d}-of-{total:05d}.parquet.
var shardName = regexp.MustCompile(`-(\d+)-of-(\d+)\.parquet$`)

// shardFile is what the report takes from one output parquet file.
type shardFile struct {
	URI          string
	Index, Total int // -1 when the name does not follow the shard pattern
	Size         int64
	BytesRead    int64
	Rows         int64
	Meta         map[string]string // parquet key-value metadata
	Columns      []string          // the columns actually read
	SeqLen       []float64
	PLDDT        []float64
	Tokens       []float64
	Stmts        [nStmt][]float64 // per document, only when documents were read
	// Composition is {sequence tokens, all tokens} of the documents read.
	Composition [2]int64
	// Coord is the coordinate formats' per-document counts by mix class,
	// from the footer (nil when the file has none).
	Coord map[string][]float64
	// TokenMismatch counts documents whose num_tokens column differs from
	// the tokens counted in the document.
	TokenMismatch int64
}

func parseShardName(uri string) (index, total int) {
	m := shardName.FindStringSubmatch(path.Base(uri))
	if m == nil {
		return -1, -1
	}
	i, err1 := strconv.Atoi(m[1])
	t, err2 := strconv.Atoi(m[2])
	if err1 != nil || err2 != nil {
		return -1, -1
	}
	return i, t
}

// readShard reads the footer of one output file and then only the columns
// the report uses. withDocs asks for the statement mix: from the footer's
// token mix (corpus.MixKey, the generator's counts) when the file carries
// one and useMix is set, else from the document column, which is also
// read when the file has no num_tokens column, to count tokens. Read-only
// and safe to call concurrently for different files; an error names the
// file.
func readShard(ctx context.Context, store blob.Store, uri string, withDocs, useMix bool) (sf *shardFile, err error) {
	defer derrors.Wrap(&err, "report: reading %s", uri)
	obj, err := store.Open(ctx, uri)
	if err != nil {
		return nil, err
	}
	defer obj.Close()
	sf = &shardFile{URI: uri, Size: obj.Size(), Meta: map[string]string{}}
	sf.Index, sf.Total = parseShardName(uri)
	defer func() { sf.BytesRead = obj.BytesRead() }()

	pf, err := file.NewParquetReader(io.NewSectionReader(obj, 0, obj.Size()))
	if err != nil {
		return sf, derrors.Permanent(fmt.Errorf("not a readable parquet file: %w", err))
	}
	defer pf.Close()
	md := pf.MetaData()
	for _, kv := range md.KeyValueMetadata() {
		if kv.Value != nil {
			sf.Meta[kv.Key] = *kv.Value
		}
	}
	sf.Rows = md.NumRows
	if err := sf.readCoordMix(); err != nil {
		return sf, err
	}
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 1024}, memory.DefaultAllocator)
	if err != nil {
		return sf, derrors.Permanent(err)
	}
	schema, err := fr.Schema()
	if err != nil {
		return sf, derrors.Permanent(err)
	}
	want := []string{colSeqLen, colPLDDT, colNumTokens}
	hasTokens := len(schema.FieldIndices(colNumTokens)) > 0
	var mix *corpus.Mix
	if withDocs && useMix && hasTokens {
		if mix, err = mixOf(sf.Meta, sf.Rows); err != nil {
			return sf, err
		}
	}
	if withDocs && mix == nil || !hasTokens {
		want = append(want, colDocument)
	}
	var idx []int
	for _, name := range want {
		if ix := schema.FieldIndices(name); len(ix) > 0 {
			idx = append(idx, ix[0])
			sf.Columns = append(sf.Columns, name)
		}
	}
	if len(idx) == 0 {
		return sf, nil
	}
	sort.Ints(idx)
	for rg := 0; rg < pf.NumRowGroups(); rg++ {
		if err := ctx.Err(); err != nil {
			return sf, err
		}
		tbl, err := fr.RowGroup(rg).ReadTable(ctx, idx)
		if err != nil {
			return sf, derrors.Permanent(fmt.Errorf("row group %d: %w", rg, err))
		}
		err = sf.addTable(tbl)
		tbl.Release()
		if err != nil {
			return sf, fmt.Errorf("row group %d: %w", rg, err)
		}
	}
	if mix != nil {
		sf.addMix(mix)
	}
	return sf, nil
}

// mixOf returns the token mix in a file's footer when it has every class
// the report uses, nil when it has none (an older file, another format).
// A mix that does not parse or does not have one count per row is an
// error.
func mixOf(meta map[string]string, rows int64) (*corpus.Mix, error) {
	js, ok := meta[corpus.MixKey]
	if !ok {
		return nil, nil
	}
	var m corpus.Mix
	if err := json.Unmarshal([]byte(js), &m); err != nil {
		return nil, derrors.Permanent(fmt.Errorf("bad %s metadata: %w", corpus.MixKey, err))
	}
	if len(m.Counts) != len(m.Classes) {
		return nil, derrors.Permanent(fmt.Errorf("bad %s metadata: %d count lists for %d classes", corpus.MixKey, len(m.Counts), len(m.Classes)))
	}
	for c, counts := range m.Counts {
		if int64(len(counts)) != rows {
			return nil, derrors.Permanent(fmt.Errorf("bad %s metadata: %d %s counts for %d rows", corpus.MixKey, len(counts), m.Classes[c], rows))
		}
	}
	for _, name := range append([]string{format.MixSequence}, stmtNames[:]...) {
		if !slices.Contains(m.Classes, name) {
			return nil, nil
		}
	}
	return &m, nil
}

// addMix takes the statement mix and the sequence tokens from the footer's
// token mix; the file's tokens are its num_tokens values.
func (sf *shardFile) addMix(m *corpus.Mix) {
	for c, name := range m.Classes {
		counts := m.Counts[c]
		if name == format.MixSequence {
			for _, n := range counts {
				sf.Composition[0] += n
			}
			continue
		}
		if k := slices.Index(stmtNames[:], name); k >= 0 {
			for _, n := range counts {
				sf.Stmts[k] = append(sf.Stmts[k], float64(n))
			}
		}
	}
	for _, t := range sf.Tokens {
		sf.Composition[1] += int64(t)
	}
}

// readMeta returns one file's key-value metadata, reading only its footer.
func readMeta(ctx context.Context, store blob.Store, uri string) (meta map[string]string, err error) {
	defer derrors.Wrap(&err, "report: reading footer of %s", uri)
	obj, err := store.Open(ctx, uri)
	if err != nil {
		return nil, err
	}
	defer obj.Close()
	pf, err := file.NewParquetReader(io.NewSectionReader(obj, 0, obj.Size()))
	if err != nil {
		return nil, derrors.Permanent(fmt.Errorf("not a readable parquet file: %w", err))
	}
	defer pf.Close()
	meta = map[string]string{}
	for _, kv := range pf.MetaData().KeyValueMetadata() {
		if kv.Value != nil {
			meta[kv.Key] = *kv.Value
		}
	}
	return meta, nil
}

// addTable appends one row group's values.
func (sf *shardFile) addTable(tbl arrow.Table) error {
	hasTokens := false
	var docs []string
	for i, f := range tbl.Schema().Fields() {
		col := tbl.Column(i).Data()
		switch f.Name {
		case colSeqLen:
			v, err := floats(col, f.Name)
			if err != nil {
				return err
			}
			sf.SeqLen = append(sf.SeqLen, v...)
		case colPLDDT:
			v, err := floats(col, f.Name)
			if err != nil {
				return err
			}
			sf.PLDDT = append(sf.PLDDT, v...)
		case colNumTokens:
			v, err := floats(col, f.Name)
			if err != nil {
				return err
			}
			sf.Tokens = append(sf.Tokens, v...)
			hasTokens = true
		case colDocument:
			v, err := strs(col, f.Name)
			if err != nil {
				return err
			}
			docs = v
		}
	}
	base := len(sf.Tokens) - len(docs) // this row group's num_tokens values
	for i, d := range docs {
		n, seq, c := countTokens(d)
		sf.Composition[0] += int64(seq)
		sf.Composition[1] += int64(n)
		if !hasTokens {
			sf.Tokens = append(sf.Tokens, float64(n))
		} else if sf.Tokens[base+i] != float64(n) {
			sf.TokenMismatch++
		}
		for k := range c {
			sf.Stmts[k] = append(sf.Stmts[k], float64(c[k]))
		}
	}
	return nil
}

// countTokens splits a document on single spaces and counts its tokens, the
// sequence tokens (between <begin_sequence> and <begin_statements>) and the
// statement-class tokens of contacts-and-distances-v2.
func countTokens(doc string) (n, seq int, c [nStmt]int) {
	if doc == "" {
		return 0, 0, c
	}
	inSeq := false
	for len(doc) > 0 {
		i := strings.IndexByte(doc, ' ')
		tok := doc
		if i >= 0 {
			tok, doc = doc[:i], doc[i+1:]
		} else {
			doc = ""
		}
		n++
		if inSeq {
			if tok != "<begin_statements>" {
				seq++
				continue
			}
			inSeq = false
		}
		if tok == "<begin_sequence>" {
			inSeq = true
			continue
		}
		if len(tok) < 7 || tok[1] == 'p' || tok[1] == 'd' && tok[2] != 'i' {
			continue // fast path: <p12>, <d3.5>, <ALA>
		}
		for k, s := range stmtTokens {
			if tok == s {
				c[k]++
				break
			}
		}
	}
	return n, seq, c
}

// floats converts a numeric column to float64, nulls as NaN.
func floats(col *arrow.Chunked, name string) ([]float64, error) {
	out := make([]float64, 0, col.Len())
	for _, ch := range col.Chunks() {
		for i := 0; i < ch.Len(); i++ {
			if ch.IsNull(i) {
				out = append(out, math.NaN())
				continue
			}
			switch a := ch.(type) {
			case *array.Int64:
				out = append(out, float64(a.Value(i)))
			case *array.Int32:
				out = append(out, float64(a.Value(i)))
			case *array.Int16:
				out = append(out, float64(a.Value(i)))
			case *array.Uint32:
				out = append(out, float64(a.Value(i)))
			case *array.Uint64:
				out = append(out, float64(a.Value(i)))
			case *array.Float64:
				out = append(out, a.Value(i))
			case *array.Float32:
				out = append(out, float64(a.Value(i)))
			default:
				return nil, derrors.Permanent(fmt.Errorf("column %s has type %s, want a number", name, ch.DataType()))
			}
		}
	}
	return out, nil
}

// strs returns a string column's values, nulls as "".
func strs(col *arrow.Chunked, name string) ([]string, error) {
	out := make([]string, 0, col.Len())
	for _, ch := range col.Chunks() {
		for i := 0; i < ch.Len(); i++ {
			if ch.IsNull(i) {
				out = append(out, "")
				continue
			}
			switch a := ch.(type) {
			case *array.String:
				out = append(out, a.Value(i))
			case *array.LargeString:
				out = append(out, a.Value(i))
			case *array.StringView:
				out = append(out, a.Value(i))
			case *array.Binary:
				out = append(out, string(a.Value(i)))
			default:
				return nil, derrors.Permanent(fmt.Errorf("column %s has type %s, want a string", name, ch.DataType()))
			}
		}
	}
	return out, nil
}
