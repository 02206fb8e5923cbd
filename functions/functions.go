// Package functions is the deployable Cloud Functions (gen2) package of
// foldcorpus. Its init registers three CloudEvent functions with
// functions-framework-go; each decodes its event and calls the same planner
// and shardfn code the local run uses:
//
//   - Planner: storage object finalized (google.cloud.storage.object.v1.finalized,
//     or a Pub/Sub message carrying a GCS OBJECT_FINALIZE notification). A
//     NAME.parquet manifest or a NAME.run.json run spec (see RunSpec) in an
//     input bucket plans a run: run id gs://BUCKET/NAME#GENERATION, outputs
//     under FOLDCORPUS_OUTPUT_PREFIX/NAME/gGENERATION/, one Pub/Sub message
//     per shard on FOLDCORPUS_SHARD_TOPIC.
//   - ShardFn: a shard message (google.cloud.pubsub.topic.v1.messagePublished;
//     the format is in README.md in this folder).
//   - DeadLetter: a message of the dead-letter topic; marks its shard
//     dead_lettered.
//
// Errors: transient failures return an error (HTTP 500: Pub/Sub or Eventarc
// redelivers with backoff); permanent ones are recorded in the ledger (the
// shard failed, with the entry id and cause) and acknowledged. Events older
// than FOLDCORPUS_RETRY_WINDOW are dropped with a log line. Every message is
// validated; only gs:// URIs in the configured buckets are read.
//
// Logs are JSON lines on stderr that Cloud Logging reads (severity, message,
// logging.googleapis.com/trace) with the attributes run, shard, entry_id.
//
// Configuration (environment variables, read once by package
// internal/config: config.Vars(config.Functions); Terraform must set
// exactly these):
//
//	FOLDCORPUS_PROJECT                 project id (default: GOOGLE_CLOUD_PROJECT)       required
//	FOLDCORPUS_REGION                  region the functions run in (pinned)             required
//	FOLDCORPUS_INPUT_BUCKETS           comma-separated buckets manifests, run specs
//	                                   and per-row objects may come from                required
//	FOLDCORPUS_OUTPUT_PREFIX           gs://BUCKET/PREFIX for run outputs               required
//	FOLDCORPUS_SHARD_TOPIC             topic id of shard messages (Planner publishes)   required
//	FOLDCORPUS_TOKENIZE_TOPIC          topic id for the accelerator stage (bio2token):
//	                                   when set, shards of a neural format are staged
//	                                   and published there, else they run inline,
//	                                   which needs an encoder (Deps.NewFormat; the
//	                                   deployed binary has none)                        optional
//	FOLDCORPUS_STAGING_PREFIX          gs://OUTPUT_BUCKET/PREFIX of staged tokenizer
//	                                   inputs                          default gs://OUTPUT_BUCKET/staging
//	FOLDCORPUS_FORMAT                  format of bare manifest uploads  default contacts-and-distances-v2
//	FOLDCORPUS_TRIGGER_PARQUET         a finalized NAME.parquet starts a run          default true
//	FOLDCORPUS_FETCH_CONCURRENCY       per-row fetches in flight per shard            default 32
//	FOLDCORPUS_MAX_OBJECT_BYTES        cap on one fetched object                      default 536870912
//	FOLDCORPUS_RETRY_WINDOW            older events are dropped                       default 24h
//	FOLDCORPUS_LEASE                   shard claim lease (> function timeout)         default 15m
//	FOLDCORPUS_REQUESTER_PAYS_BUCKETS  input buckets configured requester-pays; only
//	                                   requests to them carry userProject             default none
//	FOLDCORPUS_USER_PROJECT            project billed for those buckets               default FOLDCORPUS_PROJECT
//	FOLDCORPUS_FIRESTORE_DATABASE      Firestore database id                          default (default)
//	FOLDCORPUS_LEDGER_COLLECTION       collection of run documents                    default foldcorpus_runs
//	FOLDCORPUS_ROW_GROUPS_PER_SHARD    split manifests by row groups (0: one shard
//	                                   per file)                                      default 0
//	FOLDCORPUS_LOG_LEVEL               debug, info, warn or error                     default info
//
// The Google clients also honour STORAGE_EMULATOR_HOST,
// FIRESTORE_EMULATOR_HOST and PUBSUB_EMULATOR_HOST (used by emulator-tests).
package functions

import (
	"context"
	"fmt"
	"sync"

	"github.com/GoogleCloudPlatform/functions-framework-go/functions"
	"github.com/cloudevents/sdk-go/v2/event"
)

func init() {
	functions.CloudEvent("Planner", lazily(func(s *Server) handler { return s.Planner }))
	functions.CloudEvent("ShardFn", lazily(func(s *Server) handler { return s.ShardFn }))
	functions.CloudEvent("DeadLetter", lazily(func(s *Server) handler { return s.DeadLetter }))
}

type handler = func(context.Context, event.Event) error

var (
	once      sync.Once
	server    *Server
	serverErr error
)

// lazily connects the clients on the first event (not in init, which must
// not do I/O) and keeps them for the life of the instance. A configuration
// error fails every event (HTTP 500: redelivered, nothing lost) until the
// deployment is fixed.
func lazily(pick func(*Server) handler) handler {
	return func(ctx context.Context, e event.Event) error {
		once.Do(func() {
			cfg, err := FromEnv(nil)
			if err != nil {
				serverErr = fmt.Errorf("%w: %w", errConfig, err)
				return
			}
			server, serverErr = NewServer(context.Background(), cfg)
		})
		if serverErr != nil {
			return serverErr
		}
		return pick(server)(ctx, e)
	}
}
