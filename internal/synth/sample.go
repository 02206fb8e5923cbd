package synth

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/foldcorpus/foldcorpus/internal/blob"
	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/manifest"
)

// SampleSeed is the seed of the embedded sample.
const SampleSeed = 20240601

// SampleColumns are the columns of a sample manifest.
var SampleColumns = []format.Column{
	{Name: "entry_id", Type: format.String},
	{Name: "gcs_uri", Type: format.String},
	{Name: "cif_content", Type: format.String, Nullable: true},
	{Name: "split", Type: format.String},
	{Name: "seq_cluster_id", Type: format.String},
	{Name: "tax_id", Type: format.Int64},
	{Name: "seq_len", Type: format.Int64},
	{Name: "global_plddt", Type: format.Float64},
}

// WriteSample writes n synthetic structures as dir/cif/<entry_id>.cif and a
// manifest of them split over `files` parquet files
// dir/manifest/sample-NNNNN.parquet, with both a file:// URI column (gcs_uri)
// and, when inline is set, the inline text (cif_content; otherwise null). It
// returns the manifest glob. Files are
// created create-only: an existing sample with the same bytes is kept; a
// different one is an error.
func WriteSample(ctx context.Context, store blob.Store, dir string, n, files int, inline bool) (glob string, err error) {
	defer derrors.Wrap(&err, "synth.WriteSample(%s)", dir)
	dir, err = filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	files = max(1, min(files, n))
	rows := make([][][]any, files)
	for i := 0; i < n; i++ {
		p := Make(SampleSeed, i, 40, 260)
		path := filepath.Join(dir, "cif", p.EntryID+".cif")
		if err := createOrSame(ctx, store, path, p.CIF); err != nil {
			return "", err
		}
		split := "train"
		if i%10 == 9 {
			split = "valid"
		}
		f := i * files / n
		var text any
		if inline {
			text = string(p.CIF)
		}
		rows[f] = append(rows[f], []any{p.EntryID, "file://" + path, text, split,
			fmt.Sprintf("C%04d", i/3), int64(9606), int64(len(p.Residues)), p.GlobalPLDDT()})
	}
	for f, rs := range rows {
		data, err := manifest.Encode(SampleColumns, rs, 16)
		if err != nil {
			return "", err
		}
		if err := createOrSame(ctx, store, filepath.Join(dir, "manifest", fmt.Sprintf("sample-%05d.parquet", f)), data); err != nil {
			return "", err
		}
	}
	return filepath.Join(dir, "manifest", "sample-*.parquet"), nil
}

func createOrSame(ctx context.Context, store blob.Store, uri string, data []byte) error {
	err := store.Create(ctx, uri, data)
	if err == nil || !errorsIsExists(err) {
		return err
	}
	old, rerr := store.ReadAll(ctx, uri)
	if rerr != nil {
		return rerr
	}
	if string(old) != string(data) {
		return derrors.Permanent(fmt.Errorf("%s exists with different content; remove it or use another folder", uri))
	}
	return nil
}

func errorsIsExists(err error) bool { return errors.Is(err, derrors.ErrExists) }
