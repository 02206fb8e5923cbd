# The Cloud Functions (gen2, Go), built by Google's Go buildpack from the
# root package (deploy.go), which imports functions/, where they register.
# Both are reached only by their Terraform-owned push subscriptions:
# internal ingress, OIDC-authenticated, no public invoker.

locals {
  # The functions' configuration (internal/config) read from the
  # environment: the same names for both functions. infra_test.go checks
  # these names against config.Vars(config.Functions).
  function_env = {
    FOLDCORPUS_PROJECT                = var.project
    FOLDCORPUS_REGION                 = var.region
    FOLDCORPUS_INPUT_BUCKETS          = join(",", concat([google_storage_bucket.input.name], var.extra_input_buckets))
    FOLDCORPUS_OUTPUT_PREFIX          = "gs://${google_storage_bucket.output.name}/${var.output_prefix}"
    FOLDCORPUS_SHARD_TOPIC            = google_pubsub_topic.shards.name
    FOLDCORPUS_TOKENIZE_TOPIC         = google_pubsub_topic.tokenize.name
    FOLDCORPUS_STAGING_PREFIX         = "gs://${google_storage_bucket.output.name}/${var.staging_prefix}"
    FOLDCORPUS_FORMAT                 = var.format
    FOLDCORPUS_TRIGGER_PARQUET        = tostring(var.trigger_parquet)
    FOLDCORPUS_FETCH_CONCURRENCY      = tostring(var.fetch_concurrency)
    FOLDCORPUS_MAX_OBJECT_BYTES       = tostring(var.max_object_bytes)
    FOLDCORPUS_RETRY_WINDOW           = var.retry_window
    FOLDCORPUS_LEASE                  = var.lease
    FOLDCORPUS_REQUESTER_PAYS_BUCKETS = join(",", var.requester_pays_buckets)
    FOLDCORPUS_USER_PROJECT           = var.project
    FOLDCORPUS_FIRESTORE_DATABASE     = google_firestore_database.ledger.name
    FOLDCORPUS_LEDGER_COLLECTION      = var.ledger_collection
    FOLDCORPUS_ROW_GROUPS_PER_SHARD   = tostring(var.row_groups_per_shard)
    FOLDCORPUS_LOG_LEVEL              = var.log_level
  }
  # The build environment of the three functions (one source, one binary).
  # Google's Go buildpack passes GOOGLE_GOLDFLAGS to `go build` as -ldflags
  # and every GO* variable to the go commands (GoogleCloudPlatform/buildpacks
  # README "Go Buildpacks" and "Language-idiomatic configuration options";
  # cmd/go/build/main.go goBuildFlags); internal/buildpack replays the build
  # with exactly these, so every emulator test serves this binary.
  # - CGO_ENABLED: contacts-and-distances-v2 draws through glibc's
  #   log/sin/cos to match CPython bit for bit (internal/pyrandom); a build
  #   without cgo refuses to write that format rather than risk different
  #   documents.
  # - GOOGLE_GOLDFLAGS -s -w: no symbol table or DWARF (a third of the
  #   binary; the image is pulled on every cold start). Panics still print
  #   file:line (pclntab stays).
  # - GOFLAGS tags: disable_grpc_modules (cloud.google.com/go/storage
  #   doc.go) drops the gRPC DirectPath/xDS dependencies (Envoy's control
  #   plane) of the storage client, which the functions use over JSON/HTTP
  #   only; arrow_json_stdlib makes arrow-go's JSON helpers (never on the
  #   parquet path) use encoding/json instead of goccy/go-json.
  # internal/buildpack's TestFunctionLinksOnlyWhatItCalls lists what the
  # binary links with these and fails on what it never calls.
  function_build_env = {
    CGO_ENABLED      = "1"
    GOOGLE_GOLDFLAGS = "-s -w"
    GOFLAGS          = "-tags=disable_grpc_modules,arrow_json_stdlib"
  }
  # Leave the Go runtime 10% of the instance for what its heap limit does
  # not count (stacks, cgo, the page cache of the process).
  planner_gomemlimit    = "${floor(var.planner_memory_mib * 0.9)}MiB"
  shard_gomemlimit      = "${floor(var.shard_memory_mib * 0.9)}MiB"
  deadletter_gomemlimit = "${floor(var.deadletter_memory_mib * 0.9)}MiB"
}

# The functions' source, zipped: only what the function binary builds from
# (the module files, the root package and the Go, assembly and C sources of
# the packages under these folders; no tests, no testdata), never the rest
# of the repository folder, where a user may keep manifests, selections and
# corpora (docs/deploy.md puts ./afdb-24M, ./sel and ./exp1 there). Google's
# Go buildpack builds the root package (deploy.go), which imports
# functions/. internal/buildpack builds the functions from
# exactly this list, so a package the functions need and the list lacks
# fails there. A change of any listed file makes a new object name and so a
# new deployment.
locals {
  function_source_files = ["go.mod", "go.sum", "deploy.go"]
  function_source_globs = ["{functions,internal,planner,shardfn}/**/*.{go,s,c,h}"]
  function_source = sort(distinct(concat(local.function_source_files, [
    for f in flatten([for g in local.function_source_globs : fileset("${path.module}/..", g)]) : f
    if !endswith(f, "_test.go") && !strcontains(f, "testdata/")
  ])))
}

data "archive_file" "source" {
  type        = "zip"
  output_path = "${path.module}/.terraform/foldcorpus-source.zip"
  dynamic "source" {
    for_each = local.function_source
    content {
      content  = file("${path.module}/../${source.value}")
      filename = source.value
    }
  }
}

resource "google_storage_bucket_object" "source" {
  name   = "functions/source-${data.archive_file.source.output_sha256}.zip"
  bucket = google_storage_bucket.source.name
  source = data.archive_file.source.output_path
}

resource "google_cloudfunctions2_function" "planner" {
  name     = "${local.name}-planner"
  location = var.region
  build_config {
    runtime         = var.go_runtime
    entry_point     = "Planner"
    service_account = google_service_account.build.id
    environment_variables = local.function_build_env
    source {
      storage_source {
        bucket = google_storage_bucket.source.name
        object = google_storage_bucket_object.source.name
      }
    }
  }
  service_config {
    available_cpu                    = "1"
    available_memory                 = "${var.planner_memory_mib}Mi"
    timeout_seconds                  = var.planner_timeout_seconds
    max_instance_count               = var.planner_max_instances
    max_instance_request_concurrency = 1
    ingress_settings                 = "ALLOW_INTERNAL_ONLY"
    all_traffic_on_latest_revision   = true
    service_account_email            = google_service_account.planner.email
    environment_variables            = merge(local.function_env, { GOMEMLIMIT = local.planner_gomemlimit })
  }
  depends_on = [google_project_service.apis, google_project_iam_member.build]
}

resource "google_cloudfunctions2_function" "shardfn" {
  name     = "${local.name}-shardfn"
  location = var.region
  build_config {
    runtime         = var.go_runtime
    entry_point     = "ShardFn"
    service_account = google_service_account.build.id
    environment_variables = local.function_build_env
    source {
      storage_source {
        bucket = google_storage_bucket.source.name
        object = google_storage_bucket_object.source.name
      }
    }
  }
  service_config {
    available_cpu                    = "1"
    available_memory                 = "${var.shard_memory_mib}Mi"
    timeout_seconds                  = var.shard_timeout_seconds
    max_instance_count               = var.shard_max_instances
    max_instance_request_concurrency = 1
    ingress_settings                 = "ALLOW_INTERNAL_ONLY"
    all_traffic_on_latest_revision   = true
    service_account_email            = google_service_account.shardfn.email
    environment_variables            = merge(local.function_env, { GOMEMLIMIT = local.shard_gomemlimit })
  }
  depends_on = [google_project_service.apis, google_project_iam_member.build]
}

# Only the push identity may invoke the functions.
resource "google_cloud_run_v2_service_iam_member" "pusher_invokes" {
  for_each = {
    planner    = google_cloudfunctions2_function.planner.service_config[0].service
    shardfn    = google_cloudfunctions2_function.shardfn.service_config[0].service
    deadletter = google_cloudfunctions2_function.deadletter.service_config[0].service
  }
  location = var.region
  name     = each.value
  role     = "roles/run.invoker"
  member   = "serviceAccount:${google_service_account.pusher.email}"
}

# Marks the shard of each dead-lettered message dead_lettered in the ledger,
# so `foldcorpus status` shows it and rerun publishes it again.
resource "google_cloudfunctions2_function" "deadletter" {
  name     = "${local.name}-deadletter"
  location = var.region
  build_config {
    runtime         = var.go_runtime
    entry_point     = "DeadLetter"
    service_account = google_service_account.build.id
    environment_variables = local.function_build_env
    source {
      storage_source {
        bucket = google_storage_bucket.source.name
        object = google_storage_bucket_object.source.name
      }
    }
  }
  service_config {
    available_cpu                    = "1"
    available_memory                 = "${var.deadletter_memory_mib}Mi"
    timeout_seconds                  = 60
    max_instance_count               = var.deadletter_max_instances
    max_instance_request_concurrency = 1
    ingress_settings                 = "ALLOW_INTERNAL_ONLY"
    all_traffic_on_latest_revision   = true
    service_account_email            = google_service_account.deadletter.email
    environment_variables            = merge(local.function_env, { GOMEMLIMIT = local.deadletter_gomemlimit })
  }
  depends_on = [google_project_service.apis, google_project_iam_member.build]
}
