package bench

import (
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/google/pprof/profile"
)

// cpuBucket is a share of a process's CPU, named by what its samples run:
// a sample goes to the first bucket one of whose prefixes starts any
// function on its stack.
type cpuBucket struct {
	name     string
	prefixes []string
}

// cpuBuckets are the stages of a run, in priority order (compression runs
// inside parquet encoding, which runs inside the shard).
var cpuBuckets = []cpuBucket{
	{"report", []string{"github.com/foldcorpus/foldcorpus/internal/report."}},
	{"compression", []string{"github.com/klauspost/compress/", "github.com/golang/snappy", "github.com/pierrec/lz4", "github.com/apache/arrow-go/v18/parquet/compress."}},
	{"parquet encoding", []string{"github.com/apache/arrow-go/"}},
	{"sha1", []string{"crypto/sha1."}},
	{"JSON lines", []string{"main.appendDocLine", "main.appendJSONString"}},
	{"parse (mmCIF)", []string{"github.com/foldcorpus/foldcorpus/internal/mmcif."}},
	{"generate", []string{"github.com/foldcorpus/foldcorpus/internal/formats/", "github.com/foldcorpus/foldcorpus/internal/pyrandom."}},
	{"file read", []string{"github.com/foldcorpus/foldcorpus/internal/localblob.", "os.(*File).Read", "syscall.read", "syscall.Read"}},
	{"garbage collection", []string{"runtime.gcBgMarkWorker", "runtime.bgsweep", "runtime.bgscavenge", "runtime.gcAssistAlloc", "runtime.mallocgc"}},
}

// The buckets of the work each command must do and the inner loop never
// does: a run reads its files, hashes each document (the sha1 column) and
// writes a report; doc reads its files, hashes and writes JSON lines.
var (
	runOwnWork = []string{"file read", "sha1", "report"}
	docOwnWork = []string{"file read", "JSON lines", "sha1"}
)

// cpuBreakdown reads a CPU profile and returns each bucket's share of its
// samples (and "other"), largest first.
func cpuBreakdown(path string) ([]bucketShare, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	vi := len(p.SampleType) - 1 // cpu nanoseconds
	var total int64
	by := map[string]int64{}
	for _, s := range p.Sample {
		v := s.Value[vi]
		total += v
		by[bucketOf(s)] += v
	}
	if total == 0 {
		return nil, fmt.Errorf("%s: no samples", path)
	}
	var out []bucketShare
	for name, v := range by {
		out = append(out, bucketShare{name, float64(v) / float64(total)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].share > out[j].share })
	return out, nil
}

type bucketShare struct {
	name  string
	share float64
}

func bucketOf(s *profile.Sample) string {
	for _, b := range cpuBuckets {
		for _, loc := range s.Location {
			for _, line := range loc.Line {
				if line.Function == nil {
					continue
				}
				for _, p := range b.prefixes {
					if strings.HasPrefix(line.Function.Name, p) {
						return b.name
					}
				}
			}
		}
	}
	return "other"
}

// printBreakdown prints where a process's CPU per document went, from its
// profile: each bucket's share and its ms per document (of msPerDoc).
func printBreakdown(name, path string, msPerDoc, innerMs float64, required []string) {
	shares, err := cpuBreakdown(path)
	if err != nil {
		fmt.Printf("  %s: no breakdown: %v\n", name, err)
		return
	}
	var parts []string
	var req float64
	for _, b := range shares {
		parts = append(parts, fmt.Sprintf("%s %.0f%% (%.3f ms)", b.name, 100*b.share, b.share*msPerDoc))
		if slices.Contains(required, b.name) {
			req += b.share * msPerDoc
		}
	}
	fmt.Printf("  where %s's CPU per document goes (its profile): %s\n", name, strings.Join(parts, ", "))
	if len(required) > 0 {
		// what the command cannot skip and the inner loop never does:
		// with everything else free, the command still costs this much
		fmt.Printf("  %s's own work the inner loop does not do (%s): %.3f ms = %.2fx the inner loop, so %s costs at least %.2fx however cheap the rest\n",
			name, strings.Join(required, ", "), req, req/innerMs, name, 1+req/innerMs)
	}
}
