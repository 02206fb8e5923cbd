package functions

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/cloudevents/sdk-go/v2/event"

	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/gcs"
	"github.com/foldcorpus/foldcorpus/planner"
)

// RunSpec is the JSON body of a run spec object (planner.RunSpec).
type RunSpec = planner.RunSpec

// RunSpecSuffix ends the name of a run spec object.
const RunSpecSuffix = planner.RunSpecSuffix

// RunID is the run id of a trigger object: its gs:// URI and generation.
// Re-uploading the object makes a new run; a redelivered event does not.
func RunID(bucket, object string, generation int64) string {
	return fmt.Sprintf("gs://%s/%s#%d", bucket, object, generation)
}

// OutputFolder is where a run's shards are written: under the output
// prefix, the trigger object's name without extension, then g<generation>.
func (s *Server) OutputFolder(object string, generation int64) string {
	base := strings.TrimSuffix(strings.TrimSuffix(object, RunSpecSuffix), path.Ext(object))
	return fmt.Sprintf("%s/%s/g%d", s.cfg.OutputPrefix, base, generation)
}

// Planner handles a storage object-finalized CloudEvent (or a Pub/Sub
// message carrying a GCS OBJECT_FINALIZE notification). A finalized
// NAME.parquet or NAME.run.json in an input bucket plans a run and publishes
// its shards; other objects are ignored with a log line.
//
// Retry: returns an error only for transient failures (the event is
// redelivered; planning again is idempotent: the run id is fixed by object
// and generation, the ledger keeps shard records, and done shards are not
// published again). Permanent failures (bad manifest, bad spec, bucket not
// allowed) are logged at ERROR and acknowledged.
func (s *Server) Planner(ctx context.Context, e event.Event) error {
	ctx = eventContext(ctx, e)
	log := s.deps.Log.With("function", "Planner", "event_id", e.ID())
	if s.tooOld(ctx, log, e, e.Time()) {
		return nil
	}
	obj, ok, err := decodeFinalized(e)
	if err != nil {
		log.ErrorContext(ctx, "invalid finalize event; dropped", "error", err.Error())
		return nil
	}
	if !ok {
		log.InfoContext(ctx, "not a finalize notification; ignored")
		return nil
	}
	uri := gcs.URI(obj.Bucket, obj.Name)
	runID := RunID(obj.Bucket, obj.Name, int64(obj.Generation))
	log = log.With("run", runID)
	if strings.HasPrefix(uri, s.cfg.OutputPrefix+"/") {
		log.InfoContext(ctx, "object under the output prefix; ignored", "object", uri)
		return nil
	}
	if _, _, err := gcs.ParseURI(uri, s.cfg.InputBuckets); err != nil {
		log.ErrorContext(ctx, "trigger object not in an allowed input bucket; dropped", "object", uri, "error", err.Error())
		return nil
	}
	var spec planner.Spec
	switch {
	case strings.HasSuffix(obj.Name, RunSpecSuffix):
		spec, err = s.readSpec(ctx, uri, int64(obj.Generation))
		if err != nil {
			return s.planFailed(ctx, log, err)
		}
	case strings.HasSuffix(obj.Name, ".parquet") && s.cfg.TriggerParquet:
		// The shards read the generation this event announced, never an
		// object written over it later.
		spec = planner.Spec{Manifest: uri, ManifestGeneration: int64(obj.Generation), Format: s.cfg.DefaultFormat, RowGroupsPerShard: s.cfg.RowGroupsPerShard}
	default:
		log.InfoContext(ctx, "not a manifest or run spec; ignored", "object", uri)
		return nil
	}
	spec.RunID = runID
	spec.Output = s.OutputFolder(obj.Name, int64(obj.Generation))
	start := s.deps.Now()
	deps := planner.Deps{Store: s.deps.Store, Ledger: s.deps.Ledger, Publisher: s.deps.Publisher, NewFormat: s.deps.NewFormat}
	res, err := planner.Prepare(ctx, deps, spec)
	if err != nil {
		return s.planFailed(ctx, log, err)
	}
	prepared := s.deps.Now()
	// Publish records the run and publishes the shards not done as one
	// batch (one request per 100 messages instead of a round trip each).
	if err := planner.Publish(ctx, deps, res); err != nil {
		return s.planFailed(ctx, log, err)
	}
	log.InfoContext(ctx, "run planned", "shards", res.Run.Shards, "published", len(res.Published), "output", spec.Output,
		"format", res.Run.Format, "prepare_ms", prepared.Sub(start).Milliseconds(),
		"record_ms", res.RecordTime.Milliseconds(), "publish_ms", res.PublishTime.Milliseconds())
	if loc, ok := s.deps.Store.(planner.BucketLocator); ok {
		for _, w := range planner.CrossRegion(ctx, loc, s.cfg.Region, s.cfg.Buckets()) {
			log.WarnContext(ctx, "cross-region", "warning", w)
		}
	}
	return nil
}

func (s *Server) planFailed(ctx context.Context, log interface {
	ErrorContext(context.Context, string, ...any)
}, err error) error {
	if isTransient(ctx, err) {
		log.ErrorContext(ctx, "planning failed; will be retried", "error", err.Error())
		return err
	}
	log.ErrorContext(ctx, "planning failed permanently; event acknowledged", "error", err.Error())
	return nil
}

// readSpec reads and validates a run spec object.
func (s *Server) readSpec(ctx context.Context, uri string, generation int64) (spec planner.Spec, err error) {
	defer derrors.Wrap(&err, "run spec %s#%d", uri, generation)
	data, err := s.deps.Store.ReadAll(ctx, uri)
	if err != nil {
		return spec, err
	}
	if len(data) > 1<<20 {
		return spec, derrors.Permanent(errors.New("run spec larger than 1 MiB"))
	}
	var rs RunSpec
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rs); err != nil {
		return spec, derrors.Permanent(fmt.Errorf("decoding: %w", err))
	}
	if _, _, err := gcs.ParseURI(rs.Manifest, s.cfg.InputBuckets); err != nil {
		return spec, err
	}
	if rs.RowGroupsPerShard < 0 {
		return spec, derrors.Permanent(fmt.Errorf("row_groups_per_shard %d < 0", rs.RowGroupsPerShard))
	}
	if strings.ContainsAny(rs.Prefix, "/\\") {
		return spec, derrors.Permanent(fmt.Errorf("prefix %q must be a plain name", rs.Prefix))
	}
	if rs.Format == "" {
		rs.Format = s.cfg.DefaultFormat
	}
	return planner.Spec{
		Manifest: rs.Manifest, Format: rs.Format, Options: rs.Options,
		URIColumn: rs.URIColumn, TextColumn: rs.TextColumn, LenientMissing: rs.LenientMissing, LenientParse: rs.LenientParse,
		RowGroupsPerShard: rs.RowGroupsPerShard, Prefix: rs.Prefix, Passthrough: rs.Passthrough,
		AllowDuplicateIDs: rs.AllowDuplicateIDs,
	}, nil
}

// isTransient: worth a redelivery (transient sentinel, or the invocation's
// deadline ran out).
func isTransient(ctx context.Context, err error) bool {
	return errors.Is(err, derrors.ErrTransient) || errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil
}
