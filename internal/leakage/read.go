package leakage

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"
)

// csvTable reads a CSV with a header row (csv.DictReader's input): the
// header's names and the rows, each with its 1-based line number. A
// leading byte-order mark is dropped; rows may be shorter or longer than
// the header.
func csvTable(r io.Reader, name string) (header []string, rows [][]string, lines []int, err error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	cr := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(data, []byte("\ufeff"))))
	cr.FieldsPerRecord = -1
	cr.LazyQuotes = true
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, nil, fmt.Errorf("%s: %w", name, err)
		}
		line, _ := cr.FieldPos(0)
		if header == nil {
			header = rec
			continue
		}
		rows = append(rows, rec)
		lines = append(lines, line)
	}
	if header == nil {
		return nil, nil, nil, fmt.Errorf("%s: empty, want a CSV with a header row", name)
	}
	return header, rows, lines, nil
}

// field is row's value in column i, "" where the row is short or i < 0.
func field(row []string, i int) string {
	if i < 0 || i >= len(row) {
		return ""
	}
	return row[i]
}

// ReadEvalIDs reads the eval set's id list (exp222's
// data/eval_set_pdb_ids.csv: columns pdb_id, chain, stem, ...): the
// pdb_id of every row, stripped and lower-cased, and the set of its stems
// (<pdb>_<chain>, the chains evaluated; empty when there is no stem
// column). A file without a pdb_id column, or a row with an empty pdb_id,
// is an error naming the file and line.
func ReadEvalIDs(r io.Reader, name string) (ids []string, stems map[string]bool, err error) {
	header, rows, lines, err := csvTable(r, name)
	if err != nil {
		return nil, nil, err
	}
	ic, sc := slices.Index(header, "pdb_id"), slices.Index(header, "stem")
	if ic < 0 {
		return nil, nil, fmt.Errorf("%s: no pdb_id column (header %q)", name, header)
	}
	stems = map[string]bool{}
	for k, row := range rows {
		id := strings.ToLower(strings.TrimSpace(field(row, ic)))
		if id == "" {
			return nil, nil, fmt.Errorf("%s line %d: empty pdb_id", name, lines[k])
		}
		ids = append(ids, id)
		if s := strings.TrimSpace(field(row, sc)); s != "" {
			stems[s] = true
		}
	}
	return ids, stems, nil
}

// ReadEvalSeqs adds the sequences of an eval manifest (MarinFold exp74's
// eval_manifest_*.csv: columns stem and input_seq, one-letter) to ev, as
// qc.py does: each non-empty input_seq hashed with SeqSHA1 and labelled
// with its stem. Every row counts, whatever its PDB id (qc.py's eval
// sequences include CASP targets). It returns the number of rows with a
// sequence; a file without both columns is an error naming it.
func ReadEvalSeqs(r io.Reader, name string, ev *Eval) (int, error) {
	header, rows, _, err := csvTable(r, name)
	if err != nil {
		return 0, err
	}
	qc, sc := slices.Index(header, "input_seq"), slices.Index(header, "stem")
	if qc < 0 || sc < 0 {
		return 0, fmt.Errorf("%s: want columns stem and input_seq (an eval manifest), header is %q", name, header)
	}
	n := 0
	for _, row := range rows {
		h := SeqSHA1(field(row, qc))
		if h == "" {
			continue
		}
		ev.AddSeq(h, field(row, sc))
		n++
	}
	return n, nil
}

// ReadClusters reads an RCSB clusters-by-entity-40.txt as exp222's
// load_clusters: one cluster per line, members "<PDBID>_<entity>"
// separated by white space, upper-cased, the cluster id the 0-based line
// number (a line ends at "\n", "\r\n" or "\r"; every line counts, empty
// ones included; a member listed twice keeps its last line). A line that
// is not UTF-8 is an error naming it.
func ReadClusters(r io.Reader, name string) (map[string]int64, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("clusters %s: %w", name, err)
	}
	out := map[string]int64{}
	for n := int64(0); len(data) > 0; n++ {
		i := bytes.IndexAny(data, "\r\n")
		line, rest := data, []byte(nil)
		if i >= 0 {
			line, rest = data[:i], data[i+1:]
			if data[i] == '\r' && len(rest) > 0 && rest[0] == '\n' {
				rest = rest[1:]
			}
		}
		if !utf8.Valid(line) {
			return nil, fmt.Errorf("clusters %s line %d: not UTF-8", name, n+1)
		}
		for _, m := range strings.Fields(string(line)) {
			out[strings.ToUpper(m)] = n
		}
		data = rest
	}
	return out, nil
}
