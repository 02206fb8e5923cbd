package bench

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/foldcorpus/foldcorpus/internal/hf"
	"github.com/foldcorpus/foldcorpus/internal/hf/hubtest"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
)

// FetchManifest measures `fetch-manifest` against the local fake Hub
// (internal/hf/hubtest) with injected latency per request and a resolve
// quota: wall-clock per file against the floor set by the quota (fixed
// windows) and by the latency (the requests one file needs in sequence,
// spread over the concurrency), side by side with downloading the whole
// files through the same client.
func FetchManifest(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("bench fetch-manifest", flag.ContinueOnError)
	files := fs.Int("files", 300, "files in the repository")
	rows := fs.Int("rows", 16, "rows per file (one row group of 8 rows each)")
	cifBytes := fs.Int("cif-bytes", 16<<10, "bytes of cif_content per row (the column left out)")
	latency := fs.Duration("latency", 20*time.Millisecond, "latency injected into every Hub and CDN request")
	quota := fs.Int("quota", 100, "resolves per window (0: none)")
	window := fs.Duration("window", 2*time.Second, "quota window")
	conc := fs.Int("concurrency", 16, "files fetched at once")
	repeat := fs.Int("repeat", 3, "runs of each configuration; medians reported")
	if err := fs.Parse(args); err != nil {
		return usageError(err)
	}
	if *files < 1 || *rows < 1 || *conc < 1 {
		return usageError(fmt.Errorf("need --files, --rows and --concurrency >= 1"))
	}
	var hub []hubtest.File
	var size int64
	for i := 0; i < *files; i++ {
		data, err := hubtest.AFDBFile(hubtest.ManifestOptions{First: i * *rows, Rows: *rows, RowGroup: 8, FillerBytes: *cifBytes})
		if err != nil {
			return err
		}
		hub = append(hub, hubtest.File{Path: fmt.Sprintf("data/train-%05d-of-%05d.parquet", i, *files), Data: data})
		size += int64(len(data))
	}
	rgs := (*rows + 7) / 8
	fmt.Printf("bench fetch-manifest: %d files x %d rows (%.2f MB each), %s per request, quota %d resolves per %s, concurrency %d; medians of %d runs\n",
		*files, *rows, float64(size)/float64(*files)/1e6, *latency, *quota, *window, *conc, *repeat)
	// The floor of a mode: its requests per file in sequence at the
	// injected latency, spread over the concurrency; with a quota, the
	// windows the resolves need (fixed windows from the server's start:
	// all but the last are waited out) plus the latency of the last
	// window's files.
	floorOf := func(perFile int) time.Duration {
		lat := func(n int) time.Duration {
			return time.Duration(float64(*latency) * float64(perFile) * float64(n) / float64(*conc))
		}
		f := lat(*files)
		if *quota > 0 {
			full := (*files - 1) / *quota
			f = max(f, time.Duration(full)**window+lat(*files-full**quota))
		}
		return f
	}
	// Requests one file needs in sequence: resolve, trailer, footer and per
	// row group two runs of projected chunks; whole files: resolve, one read.
	perFile := map[string]int{"projected": 3 + 2*rgs, "whole files": 2}
	for _, mode := range []string{"projected", "whole files"} {
		var walls []float64
		var read, tooMany int64
		var waited time.Duration
		for r := 0; r < max(1, *repeat); r++ {
			srv := hubtest.New(hubtest.Options{Repo: "bench/afdb", Files: hub, Latency: *latency, ResolveQuota: *quota, Window: *window})
			c := hf.New(hf.Options{Endpoint: srv.URL(), BaseBackoff: 10 * time.Millisecond})
			start := time.Now()
			var err error
			if mode == "projected" {
				err = benchProjected(ctx, c, *conc)
			} else {
				err = benchWhole(ctx, c, hub, *conc)
			}
			walls = append(walls, time.Since(start).Seconds())
			_, _, waited = c.ResolveQuota()
			cnt := srv.Counts()
			read, tooMany = cnt.BytesServed, cnt.TooMany
			srv.Close()
			if err != nil {
				return fmt.Errorf("%s: %w", mode, err)
			}
		}
		wall := time.Duration(median(walls) * float64(time.Second))
		floor := floorOf(perFile[mode])
		fmt.Printf("%-12s wall %6.2f s (runs %v)  per file %6.1f ms  floor %6.1f ms (%d requests/file)  %.2fx the floor  read %.2f%% of %.1f MB  429s %d  requests waited for the quota %s in all\n",
			mode, wall.Seconds(), round2(walls), ms(wall)/float64(*files), ms(floor)/float64(*files), perFile[mode], float64(wall)/float64(max(floor, 1)),
			100*float64(read)/float64(size), float64(size)/1e6, tooMany, waited.Round(time.Millisecond))
	}
	return nil
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func benchProjected(ctx context.Context, c *hf.Client, conc int) error {
	dir, err := os.MkdirTemp("", "foldcorpus-bench-fetch-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	src, err := hf.ParseSource("hf://datasets/bench/afdb")
	if err != nil {
		return err
	}
	_, err = hf.Fetch(ctx, c, hf.FetchOptions{Source: src, Out: dir, Store: localblob.Store{}, Columns: hf.DefaultColumns, Concurrency: conc})
	return err
}

// benchWhole resolves and downloads every file whole (one range of the
// whole size), conc at a time.
func benchWhole(ctx context.Context, c *hf.Client, files []hubtest.File, conc int) error {
	commit, err := c.Revision(ctx, "bench/afdb", "main")
	if err != nil {
		return err
	}
	work := make(chan string)
	errs := make(chan error, conc)
	for w := 0; w < conc; w++ {
		go func() {
			var first error
			for p := range work {
				if first != nil {
					continue
				}
				f, err := c.Open(ctx, "bench/afdb", commit, p, "")
				if err == nil {
					buf := make([]byte, f.Size())
					_, err = f.ReadAt(buf, 0)
				}
				first = err
			}
			errs <- first
		}()
	}
	for _, f := range files {
		work <- f.Path
	}
	close(work)
	for w := 0; w < conc; w++ {
		if e := <-errs; e != nil && err == nil {
			err = e
		}
	}
	return err
}
