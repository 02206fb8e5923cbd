package synthmanifest

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"

	"github.com/foldcorpus/foldcorpus/internal/derrors"
)

// Config says what Generate writes.
type Config struct {
	// Rows is the total number of manifest rows.
	Rows int
	// Files is the number of parquet files the rows are spread over (at least 1).
	Files int
	// Seed makes the manifest reproducible: same Config, same bytes.
	Seed uint64
	// CifBytes, when positive, adds an inline cif_content column of about that
	// many bytes per row (the bulky column selection must never read).
	CifBytes int
}

// Generate writes cfg.Rows synthetic manifest rows into cfg.Files files
// named manifest-NNNNN.parquet under dir and returns their paths in order.
//
// The shape follows the AFDB 24M manifest as the exp53 selection saw it:
// heavy-tailed structural cluster sizes (about 14 members per cluster on
// average, more than half of the clusters with fewer than 3 members), splits
// assigned per cluster (98% train, 1% val, 1% test), about 0.5% of rows
// without a structural cluster, seq_len log-normal around 270 with a few rows
// outside 2..2000, global_plddt with two decimals (so ties happen), rows in
// shuffled order. Columns: entry_id, gcs_uri, split, seq_cluster_id,
// struct_cluster_id (nullable), uniprot_accession, tax_id, organism_name,
// global_plddt, seq_len, and cif_content when CifBytes > 0.
//
// It holds one int32 per row plus one file's rows in memory. Rerunning it
// rewrites the same files; each file appears atomically. It stops between
// files when ctx is cancelled.
func Generate(ctx context.Context, dir string, cfg Config) (paths []string, err error) {
	defer derrors.Wrap(&err, "synthmanifest.Generate(%s, %d rows)", dir, cfg.Rows)
	if cfg.Rows < 0 || cfg.Files < 1 {
		return nil, fmt.Errorf("need Rows >= 0 and Files >= 1, got %d and %d", cfg.Rows, cfg.Files)
	}
	if err := ensureDir(dir); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x5eed))
	cluster := clusterAssignment(rng, cfg.Rows)

	per := (cfg.Rows + cfg.Files - 1) / cfg.Files
	for f := 0; f < cfg.Files; f++ {
		if err := ctx.Err(); err != nil {
			return paths, err
		}
		lo, hi := min(f*per, cfg.Rows), min((f+1)*per, cfg.Rows)
		path := filepath.Join(dir, fmt.Sprintf("manifest-%05d.parquet", f))
		if err := WriteTable(path, fileColumns(rng, cfg, cluster, lo, hi), 0); err != nil {
			return paths, err
		}
		paths = append(paths, path)
	}
	return paths, nil
}

// clusterAssignment returns, for each row, its structural cluster number, or
// -1 for a row without a cluster; rows are in shuffled order.
func clusterAssignment(rng *rand.Rand, n int) []int32 {
	cl := make([]int32, 0, n)
	var c int32
	for len(cl) < n {
		if rng.Float64() < 0.005 {
			cl = append(cl, -1)
			continue
		}
		size := clusterSize(rng)
		for i := 0; i < size && len(cl) < n; i++ {
			cl = append(cl, c)
		}
		c++
	}
	rng.Shuffle(len(cl), func(i, j int) { cl[i], cl[j] = cl[j], cl[i] })
	return cl
}

// clusterSize draws a cluster size: 45% singletons, 12% pairs, 13% of 3,
// 9% of 4, otherwise 5 plus a Pareto(xm 18, alpha 1.5) tail capped at 5,000:
// about 14 members per cluster on average, and (as in afdb-24M) rounds 3
// and 4 smaller than rounds 0-2.
func clusterSize(rng *rand.Rand) int {
	u := rng.Float64()
	switch {
	case u < 0.45:
		return 1
	case u < 0.57:
		return 2
	case u < 0.70:
		return 3
	case u < 0.79:
		return 4
	}
	x := 18 / math.Pow(1-rng.Float64(), 1/1.5)
	return 5 + int(math.Min(x, 5000))
}

var organisms = []string{
	"Homo sapiens", "Mus musculus", "Escherichia coli (strain K12)",
	"Saccharomyces cerevisiae (strain ATCC 204508 / S288c)", "Arabidopsis thaliana",
	"Drosophila melanogaster", "Danio rerio", "Caenorhabditis elegans",
}

func fileColumns(rng *rand.Rand, cfg Config, cluster []int32, lo, hi int) []Column {
	n := hi - lo
	entry := make([]string, n)
	uri := make([]string, n)
	split := make([]string, n)
	seqCl := make([]string, n)
	structCl := make([]*string, n)
	acc := make([]string, n)
	tax := make([]int64, n)
	org := make([]string, n)
	plddt := make([]float64, n)
	seqLen := make([]int64, n)
	var cif []string
	if cfg.CifBytes > 0 {
		cif = make([]string, n)
	}
	for i := range n {
		row := lo + i
		a := fmt.Sprintf("S%09d", row)
		acc[i] = a
		entry[i] = "AF-" + a + "-F1"
		uri[i] = "gs://public-datasets-deepmind-alphafold-v4/AF-" + a + "-F1-model_v4.cif"
		c := cluster[row]
		split[i] = splitOf(c)
		if c >= 0 {
			s := fmt.Sprintf("C%08d", c)
			structCl[i] = &s
			seqCl[i] = fmt.Sprintf("Q%08d", int(c)*3+rng.IntN(3))
		} else {
			seqCl[i] = fmt.Sprintf("Q%08d", rng.IntN(1<<24))
		}
		k := rng.IntN(len(organisms))
		org[i] = organisms[k]
		tax[i] = int64(9606 + 1000*k)
		plddt[i] = math.Round((20+79*rng.Float64())*100) / 100
		switch u := rng.Float64(); {
		case u < 0.001:
			seqLen[i] = 1
		default:
			seqLen[i] = int64(math.Max(2, math.Round(math.Exp(5.6+0.7*rng.NormFloat64()))))
		}
		if cif != nil {
			cif[i] = cifText(entry[i], cfg.CifBytes)
		}
	}
	cols := []Column{
		{"entry_id", entry}, {"gcs_uri", uri}, {"split", split},
		{"seq_cluster_id", seqCl}, {"struct_cluster_id", structCl},
		{"uniprot_accession", acc}, {"tax_id", tax}, {"organism_name", org},
		{"global_plddt", plddt}, {"seq_len", seqLen},
	}
	if cif != nil {
		cols = append(cols, Column{"cif_content", cif})
	}
	return cols
}

// splitOf assigns a split per cluster (rows without a cluster go to train).
func splitOf(c int32) string {
	if c < 0 {
		return "train"
	}
	switch h := uint32(c) * 2654435761 >> 16 % 100; h {
	case 0:
		return "val"
	case 1:
		return "test"
	}
	return "train"
}

func cifText(entry string, n int) string {
	var b strings.Builder
	b.WriteString("data_" + entry + "\n#\n")
	for b.Len() < n {
		b.WriteString("ATOM 1 N N . MET A 1 1 ? 0.000 0.000 0.000 1.00 90.00 ? 1 A 1\n")
	}
	return b.String()[:n]
}
