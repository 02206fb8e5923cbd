package hubtest

import (
	"fmt"
	"math/rand/v2"

	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/manifest"
	"github.com/foldcorpus/foldcorpus/internal/synth"
)

// AFDBColumns are the columns of timodonnell/afdb-24M, in its order, with
// the bulky inline mmCIF text third.
var AFDBColumns = []format.Column{
	{Name: "entry_id", Type: format.String},
	{Name: "gcs_uri", Type: format.String},
	{Name: "cif_content", Type: format.String},
	{Name: "struct_cluster_id", Type: format.String, Nullable: true},
	{Name: "seq_cluster_id", Type: format.String},
	{Name: "global_plddt", Type: format.Float64},
	{Name: "seq_len", Type: format.Int64},
	{Name: "split", Type: format.String},
	{Name: "uniprot_accession", Type: format.String},
	{Name: "tax_id", Type: format.Int64},
	{Name: "organism_name", Type: format.String},
}

// ManifestOptions say what AFDBFile writes.
type ManifestOptions struct {
	First, Rows int // rows are synthetic structures First..First+Rows-1
	RowGroup    int // rows per row group
	// Structures: cif_content holds each row's real synthetic mmCIF text
	// (synth.Make with synth.SampleSeed, 40 to 260 residues). Otherwise it
	// holds FillerBytes of filler text (fast, for large file counts).
	Structures  bool
	FillerBytes int
	// URI gives a row's gcs_uri from its entry id (the AFDB bucket's layout
	// when nil).
	URI func(entryID string) string
}

// AFDBFile returns a parquet file (zstd) with the AFDB manifest's schema.
// The same options give the same bytes.
func AFDBFile(o ManifestOptions) ([]byte, error) {
	rows := make([][]any, 0, o.Rows)
	for i := o.First; i < o.First+o.Rows; i++ {
		id := fmt.Sprintf("AF-S%07d-F1", i)
		var cif string
		seqLen, plddt := int64(40+i%200), 50+float64(i%50)
		if o.Structures {
			p := synth.Make(synth.SampleSeed, i, 40, 260)
			id, cif = p.EntryID, string(p.CIF)
			seqLen, plddt = int64(len(p.Residues)), p.GlobalPLDDT()
		} else {
			cif = filler(i, o.FillerBytes)
		}
		uri := "gs://public-datasets-deepmind-alphafold-v4/" + id + "-model_v4.cif"
		if o.URI != nil {
			uri = o.URI(id)
		}
		var structCl any = fmt.Sprintf("SC%05d", i/4)
		if i%37 == 5 {
			structCl = nil
		}
		split := "train"
		if (i/4)%10 == 9 {
			split = "val"
		}
		rows = append(rows, []any{id, uri, cif, structCl, fmt.Sprintf("Q%05d", i/2), plddt, seqLen, split,
			fmt.Sprintf("P%05d", i), int64(9606 + i%3), []string{"Homo sapiens", "Mus musculus", "Danio rerio"}[i%3]})
	}
	return manifest.Encode(AFDBColumns, rows, o.RowGroup)
}

// filler returns n bytes of text drawn from 64 characters (so that it
// compresses about as little as mmCIF text does), the same for the same i.
func filler(i, n int) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789 ."
	r := rand.New(rand.NewPCG(uint64(i), 0xc1f))
	b := make([]byte, n)
	for k := range b {
		b[k] = alphabet[r.IntN(len(alphabet))]
	}
	return string(b)
}
