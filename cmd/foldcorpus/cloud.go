package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"cloud.google.com/go/firestore"
	"cloud.google.com/go/pubsub/v2"
	"cloud.google.com/go/storage"

	"github.com/foldcorpus/foldcorpus/internal/config"
	"github.com/foldcorpus/foldcorpus/internal/firestoreledger"
	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/gcs"
	"github.com/foldcorpus/foldcorpus/internal/ledger"
	"github.com/foldcorpus/foldcorpus/internal/pubsubq"
	"github.com/foldcorpus/foldcorpus/internal/queue"
	"github.com/foldcorpus/foldcorpus/planner"
)

// The cloud commands read some of the functions' environment variables
// (functions/README.md) as their flags' defaults, config.Vars(config.CLI):
// FOLDCORPUS_PROJECT (or GOOGLE_CLOUD_PROJECT), FOLDCORPUS_REGION,
// FOLDCORPUS_SHARD_TOPIC, FOLDCORPUS_FIRESTORE_DATABASE,
// FOLDCORPUS_LEDGER_COLLECTION, FOLDCORPUS_USER_PROJECT,
// FOLDCORPUS_REQUESTER_PAYS_BUCKETS; flags override them.

// cloudFlags are the connection flags shared by status --run and rerun.
type cloudFlags struct {
	run, project, database, collection, topic, userProject, requesterPays, region string
}

func (c *cloudFlags) register(fs *flag.FlagSet) {
	// The variables give the defaults (all strings: Read cannot fail);
	// the flags override them.
	env, _ := config.Read(os.Getenv, config.CLI, "")
	fs.StringVar(&c.run, "run", "", "run id (gs://BUCKET/OBJECT#GENERATION of the trigger object)")
	fs.StringVar(&c.project, "project", env.Project, "Google Cloud project")
	fs.StringVar(&c.database, "database", env.FirestoreDB, "Firestore database id")
	fs.StringVar(&c.collection, "collection", env.LedgerCollection, "Firestore collection of run documents")
	fs.StringVar(&c.topic, "topic", env.ShardTopic, "shard topic id (rerun)")
	fs.StringVar(&c.region, "region", env.Region, "region the functions run in (status: warn about buckets elsewhere)")
	fs.StringVar(&c.requesterPays, "requester-pays-buckets", strings.Join(env.RequesterPays, ","), "comma-separated buckets configured requester-pays; only requests to them carry --user-project (rerun)")
	fs.StringVar(&c.userProject, "user-project", env.UserProject, "project billed for the requester-pays buckets (rerun; default --project)")
}

// gcsOptions bills the requester-pays buckets, and only those, to
// --user-project (else --project).
func (c *cloudFlags) gcsOptions() gcs.Options {
	o := gcs.Options{UserProject: c.userProject}
	for _, b := range strings.Split(c.requesterPays, ",") {
		if b = strings.TrimSpace(b); b != "" {
			o.RequesterPays = append(o.RequesterPays, b)
		}
	}
	if o.UserProject == "" && len(o.RequesterPays) > 0 {
		o.UserProject = c.project
	}
	return o
}

func (c *cloudFlags) ledger(ctx context.Context) (*firestoreledger.Ledger, func(), error) {
	if c.run == "" || c.project == "" {
		return nil, nil, &exitError{2, errors.New("--run and --project (or FOLDCORPUS_PROJECT) are required")}
	}
	fc, err := firestore.NewClientWithDatabase(ctx, c.project, c.database)
	if err != nil {
		return nil, nil, fmt.Errorf("firestore client: %w", err)
	}
	return firestoreledger.New(fc, firestoreledger.Options{Collection: c.collection}), func() { fc.Close() }, nil
}

func runCloudStatus(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("status", flag.ContinueOnError)
	var c cloudFlags
	c.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return &exitError{2, err}
	}
	l, closeFn, err := c.ledger(ctx)
	if err != nil {
		return err
	}
	defer closeFn()
	err = cloudStatusTo(ctx, os.Stdout, l, c.run, time.Now())
	if c.region != "" {
		// After the progress, so a storage problem never hides it.
		if run, rerr := l.GetRun(ctx, c.run); rerr == nil {
			if sc, serr := storage.NewClient(ctx); serr == nil {
				defer sc.Close()
				printCrossRegion(ctx, os.Stdout, gcs.New(sc, c.gcsOptions()), c.region, run)
			}
		}
	}
	return err
}

// printCrossRegion names the run's manifest and output buckets that are
// not in region, with both regions (planner.CrossRegion).
func printCrossRegion(ctx context.Context, w io.Writer, loc planner.BucketLocator, region string, run ledger.Run) {
	var buckets []string
	for _, uri := range []string{run.Manifest, run.Output} {
		if b, _, err := gcs.ParseURI(strings.TrimSuffix(uri, "/")+"/x", nil); err == nil {
			buckets = append(buckets, b)
		}
	}
	for _, warning := range planner.CrossRegion(ctx, loc, region, buckets) {
		fmt.Fprintf(w, "  cross-region: %s\n", warning)
	}
}

// cloudStatusTo prints the run's progress (count queries), ETA and every
// failed, dead-lettered and missing shard; it returns exit status 1 unless
// every shard is done.
func cloudStatusTo(ctx context.Context, w io.Writer, l *firestoreledger.Ledger, runID string, now time.Time) error {
	run, err := l.GetRun(ctx, runID)
	if err != nil {
		return err
	}
	counts, err := l.Progress(ctx, runID)
	if err != nil {
		return err
	}
	shards, err := l.Shards(ctx, runID)
	if err != nil {
		return err
	}
	done := counts[ledger.Done]
	fmt.Fprintf(w, "run %s\n  manifest %s\n  format   %s\n  output   %s\n", run.ID, run.Manifest, run.Format, run.Output)
	fmt.Fprintf(w, "  shards   %d total: %d done, %d running, %d pending, %d failed, %d dead-lettered\n", run.Shards,
		done, counts[ledger.Running], counts[ledger.Pending], counts[ledger.Failed], counts[ledger.DeadLettered])
	var tot ledger.Counts
	tot.Filtered = map[string]int64{}
	var last time.Time
	var wall, longest time.Duration
	var timed int
	for _, s := range shards {
		if s.Status != ledger.Done {
			continue
		}
		if d := s.Finished.Sub(s.Started); !s.Started.IsZero() && d > 0 {
			wall += d
			longest = max(longest, d)
			timed++
		}
		tot.RowsIn += s.Counts.RowsIn
		tot.DocsOut += s.Counts.DocsOut
		tot.Skipped += s.Counts.Skipped
		for k, v := range s.Counts.Filtered {
			tot.Filtered[k] += v
		}
		if s.Finished.After(last) {
			last = s.Finished
		}
	}
	fmt.Fprintf(w, "  rows     %d in, %d docs out, %d skipped (missing objects)\n", tot.RowsIn, tot.DocsOut, tot.Skipped)
	reasons := make([]string, 0, len(tot.Filtered))
	for k := range tot.Filtered {
		reasons = append(reasons, k)
	}
	sort.Strings(reasons)
	for _, k := range reasons {
		fmt.Fprintf(w, "  filtered %-20s %d\n", k, tot.Filtered[k])
	}
	if timed > 0 {
		// T of the projection in docs/deploy.md, step 7.
		fmt.Fprintf(w, "  shard time  mean %s, max %s over %d done shards (start to end of each)\n",
			(wall / time.Duration(timed)).Round(time.Millisecond), longest.Round(time.Millisecond), timed)
	}
	left := int64(run.Shards) - done
	active := counts[ledger.Running] + counts[ledger.Pending]
	if done > 0 && active > 0 && last.After(run.Created) {
		rate := float64(done) / last.Sub(run.Created).Seconds()
		eta := time.Duration(float64(active) / rate * float64(time.Second))
		fmt.Fprintf(w, "  rate     %.2f shards/s; ETA %s for %d shards in flight (if none fail)\n", rate, eta.Round(time.Second), active)
	}
	for _, s := range shards {
		switch s.Status {
		case ledger.Failed, ledger.DeadLettered:
			fmt.Fprintf(w, "  %s shard %05d (attempts %d): entry %s: %s\n", s.Status, s.Index, s.Attempts, dash(s.EntryID), s.Error)
			printBadRows(w, s)
		case ledger.Running:
			if now.After(s.Lease) {
				fmt.Fprintf(w, "  stalled shard %05d (running, lease expired %s ago, attempts %d)\n", s.Index, now.Sub(s.Lease).Round(time.Second), s.Attempts)
			}
		case ledger.Pending:
			if s.LastError != "" { // released after a transient failure; Pub/Sub redelivers it
				fmt.Fprintf(w, "  retrying shard %05d (pending, attempts %d): last error: %s\n", s.Index, s.Attempts, s.LastError)
			}
		}
	}
	if left == 0 {
		fmt.Fprintln(w, "  COMPLETE")
		return nil
	}
	fmt.Fprintf(w, "  NOT COMPLETE: %d shards not done; `foldcorpus rerun --run '%s'` publishes them again\n", left, run.ID)
	return &exitError{1, errors.New("run not complete")}
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func runRerun(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("rerun", flag.ContinueOnError)
	var c cloudFlags
	c.register(fs)
	shard := fs.Int("shard", -1, "only this shard (done or not)")
	gcloud := fs.Bool("gcloud", false, "print the gcloud command that publishes each message instead of publishing")
	if err := parseFlags(fs, args); err != nil {
		return &exitError{2, err}
	}
	if c.topic == "" && !*gcloud {
		return &exitError{2, errors.New("--topic (or FOLDCORPUS_SHARD_TOPIC) is required")}
	}
	l, closeFn, err := c.ledger(ctx)
	if err != nil {
		return err
	}
	defer closeFn()
	msgs, err := rerunMessages(ctx, l, c, *shard)
	if err != nil {
		return err
	}
	if *gcloud {
		for _, m := range msgs {
			cmd, err := gcloudCommand(c.topic, m)
			if err != nil {
				return err
			}
			fmt.Println(cmd)
		}
		return nil
	}
	pc, err := pubsub.NewClient(ctx, c.project)
	if err != nil {
		return fmt.Errorf("pubsub client: %w", err)
	}
	defer pc.Close()
	pub := pubsubq.New(pc, c.topic)
	defer pub.Stop()
	if err := pub.PublishAll(ctx, msgs); err != nil {
		return err
	}
	fmt.Printf("published %d shard messages of run %s to %s\n", len(msgs), c.run, c.topic)
	return nil
}

// rerunMessages rebuilds the run's shard messages from its manifest (the
// planner's Prepare, with the run's recorded spec) and returns those of the
// shards not done (or only the one asked for). It refuses when the manifest
// no longer gives the recorded number of shards.
func rerunMessages(ctx context.Context, l *firestoreledger.Ledger, c cloudFlags, only int) ([]queue.ShardMessage, error) {
	run, err := l.GetRun(ctx, c.run)
	if err != nil {
		return nil, err
	}
	sc, err := storage.NewClient(ctx)
	if err != nil {
		return nil, fmt.Errorf("storage client: %w", err)
	}
	defer sc.Close()
	spec, err := specFromRun(run)
	if err != nil {
		return nil, err
	}
	store := gcs.New(sc, c.gcsOptions())
	p, err := planner.Prepare(ctx, planner.Deps{Store: store, NewFormat: formatRegistry.Constructor(ctx, format.Env{Store: store})}, spec)
	if err != nil {
		return nil, err
	}
	if len(p.Messages) != run.Shards {
		return nil, fmt.Errorf("manifest %s now gives %d shards, the run recorded %d: it changed since the run started; start a new run", run.Manifest, len(p.Messages), run.Shards)
	}
	if only >= 0 {
		if only >= len(p.Messages) {
			return nil, &exitError{2, fmt.Errorf("--shard %d: the run has %d shards", only, run.Shards)}
		}
		return p.Messages[only : only+1], nil
	}
	shards, err := l.Shards(ctx, run.ID)
	if err != nil {
		return nil, err
	}
	done := map[int]bool{}
	for _, s := range shards {
		done[s.Index] = s.Status == ledger.Done
	}
	var out []queue.ShardMessage
	for i, m := range p.Messages {
		if !done[i] {
			out = append(out, m)
		}
	}
	return out, nil
}

// specFromRun rebuilds the planner spec a run was planned with (the planner
// records its pipeline knobs as "pipeline.*" options).
func specFromRun(run ledger.Run) (planner.Spec, error) {
	spec := planner.Spec{RunID: run.ID, Manifest: run.Manifest, Format: run.Format, Output: run.Output, Options: map[string]string{}}
	var err error
	for k, v := range run.Options {
		switch k {
		case "pipeline.uri_column":
			spec.URIColumn = v
		case "pipeline.text_column":
			spec.TextColumn = v
		case "pipeline.lenient_missing":
			spec.LenientMissing, err = strconv.ParseBool(v)
		case "pipeline.lenient_parse":
			spec.LenientParse, err = strconv.ParseBool(v)
		case "pipeline.prefix":
			spec.Prefix = v
		case "pipeline.row_groups_per_shard":
			spec.RowGroupsPerShard, err = strconv.Atoi(v)
		case "pipeline.passthrough":
			spec.Passthrough = planner.ParsePassthrough(v)
		case "pipeline.manifest_generation":
			// A rerun reads the manifest generation the run was planned
			// on (an error if it no longer exists).
			spec.ManifestGeneration, err = strconv.ParseInt(v, 10, 64)
		default:
			if strings.HasPrefix(k, "pipeline.") {
				continue
			}
			spec.Options[k] = v
		}
		if err != nil {
			return spec, fmt.Errorf("run %s: option %s=%q: %w", run.ID, k, v, err)
		}
	}
	if spec.URIColumn != "" && spec.TextColumn != "" {
		spec.URIColumn = "" // the planner gives the text column precedence
	}
	if len(spec.Options) == 0 {
		spec.Options = nil
	}
	return spec, nil
}

// gcloudCommand is the command that publishes m by hand (the format is in
// functions/README.md). gcloud reads --attribute as KEY=VALUE pairs split at
// commas, and a value holds the run id, whose object name may contain "," or
// "=": then the pairs are joined with another delimiter that no key or
// value contains, announced with gcloud's ^DELIM^ prefix (`gcloud topic
// escaping`); a pair splits at its first "=", so "=" in a value is kept.
func gcloudCommand(topic string, m queue.ShardMessage) (string, error) {
	pm, err := pubsubq.Encode(m)
	if err != nil {
		return "", err
	}
	if topic == "" {
		topic = "TOPIC"
	}
	attr, err := gcloudDict(pm.Attributes)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("gcloud pubsub topics publish %s --message %s --attribute %s",
		shellQuote(topic), shellQuote(string(pm.Data)), shellQuote(attr)), nil
}

// gcloudDict writes attributes as a gcloud dictionary flag value, in key
// order, escaping the delimiter when a key or value contains a comma.
func gcloudDict(attrs map[string]string) (string, error) {
	keys := make([]string, 0, len(attrs))
	for k := range attrs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, delim := range []string{",", ";", "|", "~", "@", "!", "%", "+"} {
		var b strings.Builder
		clash := false
		for i, k := range keys {
			if strings.Contains(k, delim) || strings.Contains(attrs[k], delim) || strings.Contains(k, "=") {
				clash = true
				break
			}
			if i > 0 {
				b.WriteString(delim)
			}
			b.WriteString(k + "=" + attrs[k])
		}
		if clash {
			continue
		}
		if delim == "," {
			return b.String(), nil
		}
		return "^" + delim + "^" + b.String(), nil
	}
	return "", fmt.Errorf("gcloud command: no delimiter fits the attributes %q", attrs)
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
