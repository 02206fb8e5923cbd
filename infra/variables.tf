variable "project" {
  description = "Google Cloud project id to deploy into."
  type        = string
}

variable "region" {
  description = "The one region everything runs and stores data in: buckets, functions, topics' message storage, Firestore, the TPU VM (zone var.tpu_zone_suffix of it). Pick the region of your input data to avoid cross-region reads."
  type        = string
  default     = "us-central1"
}

variable "name_prefix" {
  description = "Prefix of every resource name (bucket names also get the project id, to be globally unique)."
  type        = string
  default     = "foldcorpus"
  validation {
    condition     = can(regex("^[a-z][a-z0-9-]{1,20}$", var.name_prefix))
    error_message = "name_prefix: lower-case letters, digits and '-', 2-21 characters, starting with a letter."
  }
}

variable "manifest_prefix" {
  description = "Objects finalized under this prefix of the input bucket start runs (NAME.parquet or NAME.run.json)."
  type        = string
  default     = "manifests/"
}

variable "output_prefix" {
  description = "Folder of the output bucket that receives the corpus shards."
  type        = string
  default     = "corpus"
}

variable "staging_prefix" {
  description = "Folder of the output bucket for staged intermediate data (tokenizer inputs); objects there are deleted after var.staging_ttl_days."
  type        = string
  default     = "staging"
}

variable "staging_ttl_days" {
  type    = number
  default = 7
}

variable "extra_input_buckets" {
  description = "Other buckets that manifests' gcs_uri may point into (e.g. public-datasets-deepmind-alphafold-v4). Read-only."
  type        = list(string)
  default     = []
}

variable "requester_pays_buckets" {
  description = "Input buckets configured requester-pays (a subset of extra_input_buckets). Only requests to them carry userProject=var.project, billed to it; the functions that read them get roles/serviceusage.serviceUsageConsumer. Default none: AFDB's public bucket is free to download (its README), and a userProject on any request needs that role."
  type        = list(string)
  default     = []
  validation {
    condition     = alltrue([for b in var.requester_pays_buckets : contains(var.extra_input_buckets, b)])
    error_message = "Every requester_pays_buckets entry must also be in extra_input_buckets."
  }
}

variable "format" {
  description = "Document format of runs started by a bare manifest (a run spec can choose another)."
  type        = string
  default     = "contacts-and-distances-v2"
}

variable "trigger_parquet" {
  description = "A bare NAME.parquet under the manifest prefix starts a run (false: only NAME.run.json specs do)."
  type        = bool
  default     = true
}

variable "fetch_concurrency" {
  description = "Concurrent object fetches per shard."
  type        = number
  default     = 32
}

variable "max_object_bytes" {
  description = "Largest structure object a shard will fetch."
  type        = number
  default     = 536870912
}

variable "retry_window" {
  description = "Events older than this are dropped instead of retried (Go duration)."
  type        = string
  default     = "24h"
}

variable "lease" {
  description = "How long a shard claim lasts before another delivery may take it over (Go duration). Must exceed the shard function timeout."
  type        = string
  default     = "15m"
}

variable "row_groups_per_shard" {
  description = "Manifest row groups per shard (0: one shard per manifest file)."
  type        = number
  default     = 0
}

variable "log_level" {
  type    = string
  default = "info"
}

variable "firestore_database" {
  description = "Firestore database id for the ledger."
  type        = string
  default     = "(default)"
}

variable "firestore_database_exists" {
  description = "The Firestore database already exists (a project that has one, or a re-apply after destroy, which keeps it): import it instead of creating it."
  type        = bool
  default     = false
}

variable "ledger_collection" {
  type    = string
  default = "foldcorpus_runs"
}

variable "go_runtime" {
  description = "Cloud Functions Go runtime; must be at least the go directive of go.mod."
  type        = string
  default     = "go126"
}

variable "shard_memory_mib" {
  description = "Memory of the shard function (MiB): twice a largest object (max_object_bytes) plus a loaded rotamer library for ConFind formats (~210 MiB peak). GOMEMLIMIT is set to 90% of it."
  type        = number
  default     = 2048
}

variable "shard_timeout_seconds" {
  description = "Shard function timeout; under 540 s (the event-function limit) and under the subscription's 600 s ack deadline."
  type        = number
  default     = 480
  validation {
    condition     = var.shard_timeout_seconds >= 60 && var.shard_timeout_seconds < 540
    error_message = "shard_timeout_seconds must be in [60, 540)."
  }
}

variable "shard_max_instances" {
  description = "Upper bound on concurrent shard function instances (the run's parallelism and cost ceiling)."
  type        = number
  default     = 100
}

variable "planner_memory_mib" {
  type    = number
  default = 1024
}

variable "planner_timeout_seconds" {
  type    = number
  default = 300
  validation {
    condition     = var.planner_timeout_seconds >= 60 && var.planner_timeout_seconds < 540
    error_message = "planner_timeout_seconds must be in [60, 540)."
  }
}

variable "planner_max_instances" {
  type    = number
  default = 5
}

variable "deadletter_memory_mib" {
  type    = number
  default = 512
}

variable "deadletter_max_instances" {
  type    = number
  default = 5
}

variable "max_delivery_attempts" {
  description = "Deliveries of a planner or tokenize message before it goes to the dead-letter topic (5-100); shard messages have shard_max_delivery_attempts."
  type        = number
  default     = 10
  validation {
    condition     = var.max_delivery_attempts >= 5 && var.max_delivery_attempts <= 100
    error_message = "max_delivery_attempts must be between 5 and 100 (the Pub/Sub limits)."
  }
}

# Delivery attempts of a shard message before it is dead-lettered: the API
# maximum by default. Pub/Sub counts every non-2xx push answer as an attempt,
# including the 429 Cloud Run answers when all max_instance_count instances
# are busy (after holding the request up to 30 s). With the retry policy's
# backoff (10 s doubling to 600 s) 100 attempts span about 15.7 h of
# refusals; 10 spanned 41 min, less than a 12,005-shard run queues at 100
# instances (2 h at 60 s a shard), so healthy shards at the back of the queue
# were dead-lettered. A shard that fails by itself is not retried 100 times:
# a permanent failure is recorded and acknowledged at once, and its lease
# conflicts wait in the request (functions/shard.go). TestShardDelivery-
# OutlastsBackpressure checks the default against the largest run.
variable "shard_max_delivery_attempts" {
  description = "Deliveries of a shard message before it goes to the dead-letter topic (5-100; every 429 of a busy function counts, so keep it high)."
  type        = number
  default     = 100
  validation {
    condition     = var.shard_max_delivery_attempts >= 5 && var.shard_max_delivery_attempts <= 100
    error_message = "shard_max_delivery_attempts must be between 5 and 100 (the Pub/Sub limits)."
  }
}

variable "tpujob_count" {
  description = "TPU VMs running the tokenize job (0 until a neural-format run needs them: they cost money while they exist)."
  type        = number
  default     = 0
}

variable "tpujob_image" {
  description = "Container image of the tokenize job (REGION-docker.pkg.dev/PROJECT/REPO/tpujob:TAG; cloudbuild.yaml pushes it)."
  type        = string
  default     = ""
}

variable "tpu_zone_suffix" {
  description = "Zone letter of var.region that offers the TPU type (e.g. b for us-east5-b)."
  type        = string
  default     = "b"
}

variable "tpu_accelerator_type" {
  type    = string
  default = "v6e-4"
}

variable "tpu_runtime_version" {
  type    = string
  default = "v2-alpha-tpuv6e"
}

variable "tpu_spot" {
  description = "Run the TPU VMs as Spot (preemptible) capacity: cheaper, and the job resumes from the ledger."
  type        = bool
  default     = true
}

variable "tokenize_weights" {
  description = "gs:// URI of the bio2token checkpoint the tokenize job loads (PyTorch Lightning file); upload it under gs://OUTPUT_BUCKET/OUTPUT_PREFIX/ (e.g. corpus/models/bio2token.ckpt), which the tpujob account can read."
  type        = string
  default     = ""
}

variable "tokenize_backend" {
  description = "GoMLX backend of the tokenize job: xla:tpu on TPU VMs (needs the xla backend in the image), go for the CPU."
  type        = string
  default     = "xla:tpu"
}

variable "tokenize_devices" {
  description = "Device workers per TPU VM; 0 means one per accelerator device."
  type        = number
  default     = 0
}

variable "tokenize_rungs" {
  description = "Length-ladder rungs per octave between 256 and 16384 atoms (one compiled program per rung)."
  type        = number
  default     = 4
}

variable "tokenize_max_in_flight" {
  description = "Shards (tokenize messages) one TPU VM handles at once; their rows share the device batches."
  type        = number
  default     = 16
}

variable "tokenize_flush_after" {
  description = "How long a partial batch waits for more rows before it runs."
  type        = string
  default     = "500ms"
}
