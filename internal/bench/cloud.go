package bench

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"cloud.google.com/go/storage"

	"github.com/foldcorpus/foldcorpus/internal/emulators"
	"github.com/foldcorpus/foldcorpus/internal/ledger"
)

// Cloud runs the whole cloud flow on the emulators (the official Firestore
// and Pub/Sub emulators, fake-gcs-server) with the deployed function binary
// (the buildpack's main) serving Planner, ShardFn and DeadLetter, the
// emulator pushing to them: a manifest of --shards shards x --rows rows
// lands in the bucket, and the run is timed until every shard is done. It
// prints shards/s end to end, the planner's publish rate, lost and
// duplicated rows (read back from the outputs; both must be 0) and the
// functions' peak memory, and fails when a row is lost or duplicated.
//
// With --faults it runs the same shards twice, fault-free and with faults
// injected (see cloudFaults), and compares the two.
func Cloud(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("bench cloud", flag.ContinueOnError)
	shards := fs.Int("shards", 20, "shards in the run (the real runs: 2,000 to 12,005)")
	rows := fs.Int("rows", 20, "rows per shard (synthetic structures)")
	src := fs.String("source", ".", "the module to build the function binary from")
	timeout := fs.Duration("timeout", time.Hour, "give up after this long")
	faults := fs.Bool("faults", false, "also run the shards with faults injected (instances killed, duplicate and zombie deliveries, storage errors, the planner killed) and compare")
	rate := fs.Float64("fault-rate", 0.1, "with --faults: the fraction of shard deliveries and storage requests faulted")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *shards < 1 || *rows < 1 {
		return errors.New("bench cloud: --shards and --rows must be >= 1")
	}
	if *rate < 0 || *rate > 0.5 {
		return errors.New("bench cloud: --fault-rate must be in [0, 0.5]")
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	dir, err := os.MkdirTemp("", "foldcorpus-bench-cloud-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	fmt.Println("building the function binary ...")
	bin, err := buildFunction(ctx, *src, filepath.Join(dir, "app"), nil)
	if err != nil {
		return err
	}
	for _, k := range []emulators.Kind{emulators.Firestore, emulators.PubSub} {
		e, err := emulators.Start(ctx, k)
		if err != nil {
			return err
		}
		defer e.Stop()
		os.Setenv(k.HostEnv(), e.Host)
	}
	pass := cloudPass{project: "bench-cloud", bin: bin, shards: *shards, rows: *rows, timeout: *timeout}
	if *faults {
		return cloudFaults(ctx, pass, *rate)
	}
	res, err := pass.run(ctx)
	if err != nil {
		return err
	}
	defer res.stopAll()
	res.print(*shards)
	if res.lost != 0 || res.dup != 0 || res.counts[ledger.Done] != int64(*shards) {
		return fmt.Errorf("bench cloud: %d rows lost, %d duplicated, %d of %d shards done", res.lost, res.dup, res.counts[ledger.Done], *shards)
	}
	return nil
}

func (res *passResult) print(shards int) {
	attempts := map[int]int{}
	for _, sh := range res.shards {
		attempts[sh.Attempts]++
	}
	c := res.counts
	fmt.Printf("shards        %d (%d done, %d failed, %d dead-lettered); attempts histogram %v\n", shards, c[ledger.Done], c[ledger.Failed], c[ledger.DeadLettered], attempts)
	fmt.Printf("end to end    %.1f shards/s (%s from the manifest upload to the last shard done)\n", float64(shards)/res.wall.Seconds(), res.wall.Round(time.Millisecond))
	fmt.Printf("planner       published %.0f messages in %.0f ms (%.0f msgs/s); recorded the run and its shards in Firestore in %.0f ms\n",
		res.plan.Published, res.plan.PublishMS, res.plan.Published/(max(res.plan.PublishMS, 1)/1000), res.plan.RecordMS)
	fmt.Printf("rows          %d in, %d lost, %d duplicated\n", res.rows, res.lost, res.dup)
	fmt.Printf("peak memory   Planner %s, ShardFn %s, DeadLetter %s (VmHWM)\n", res.peak["Planner"], res.peak["ShardFn"], res.peak["DeadLetter"])
}

func put(ctx context.Context, sc *storage.Client, bucket, name string, data []byte) error {
	w := sc.Bucket(bucket).Object(name).NewWriter(ctx)
	if _, err := w.Write(data); err != nil {
		return err
	}
	return w.Close()
}
