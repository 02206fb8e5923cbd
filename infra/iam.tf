# One service account per component, each with only what it needs. No
# project-wide storage or Pub/Sub roles, no basic roles, nothing for
# allUsers/allAuthenticatedUsers. Firestore has no per-collection IAM: the
# ledger roles are conditioned on the ledger database.
#
# The service accounts depend on the API enablement (iam.googleapis.com and
# the others): on a fresh project's first apply they would otherwise race it.

resource "google_service_account" "planner" {
  account_id   = "${local.name}-planner"
  display_name = "foldcorpus planner function"
  depends_on   = [google_project_service.apis]
}

resource "google_service_account" "shardfn" {
  account_id   = "${local.name}-shardfn"
  display_name = "foldcorpus shard function"
  depends_on   = [google_project_service.apis]
}

resource "google_service_account" "tpujob" {
  account_id   = "${local.name}-tpujob"
  display_name = "foldcorpus TPU tokenize job"
  depends_on   = [google_project_service.apis]
}

resource "google_service_account" "deadletter" {
  account_id   = "${local.name}-deadletter"
  display_name = "foldcorpus dead-letter function"
  depends_on   = [google_project_service.apis]
}

resource "google_service_account" "pusher" {
  account_id   = "${local.name}-pusher"
  display_name = "foldcorpus Pub/Sub push identity (invokes the functions)"
  depends_on   = [google_project_service.apis]
}

resource "google_service_account" "build" {
  account_id   = "${local.name}-build"
  display_name = "foldcorpus function builds"
  depends_on   = [google_project_service.apis]
}

locals {
  ledger_condition = "resource.name == \"projects/${var.project}/databases/${var.firestore_database}\" || resource.name.startsWith(\"projects/${var.project}/databases/${var.firestore_database}/\")"
  output_objects   = "projects/_/buckets/${local.output_bucket}/objects/${var.output_prefix}/"
  staging_objects  = "projects/_/buckets/${local.output_bucket}/objects/${var.staging_prefix}/"
}

# --- planner: read manifests, publish shards, write the ledger.
resource "google_storage_bucket_iam_member" "planner_reads_input" {
  bucket = google_storage_bucket.input.name
  role   = "roles/storage.objectViewer"
  member = "serviceAccount:${google_service_account.planner.email}"
}

resource "google_pubsub_topic_iam_member" "planner_publishes_shards" {
  topic  = google_pubsub_topic.shards.id
  role   = "roles/pubsub.publisher"
  member = "serviceAccount:${google_service_account.planner.email}"
}

# --- shardfn: read input, write (and verify) its output and staging
# prefixes, publish staged shards for the tokenizer, write the ledger.
resource "google_storage_bucket_iam_member" "shardfn_reads_input" {
  bucket = google_storage_bucket.input.name
  role   = "roles/storage.objectViewer"
  member = "serviceAccount:${google_service_account.shardfn.email}"
}

resource "google_storage_bucket_iam_member" "shardfn_writes_output" {
  bucket = google_storage_bucket.output.name
  role   = "roles/storage.objectCreator"
  member = "serviceAccount:${google_service_account.shardfn.email}"
  condition {
    title      = "output and staging prefixes"
    expression = "resource.name.startsWith(\"${local.output_objects}\") || resource.name.startsWith(\"${local.staging_objects}\")"
  }
}

resource "google_storage_bucket_iam_member" "shardfn_verifies_output" {
  bucket = google_storage_bucket.output.name
  role   = "roles/storage.objectViewer"
  member = "serviceAccount:${google_service_account.shardfn.email}"
  condition {
    title      = "output and staging prefixes"
    expression = "resource.name.startsWith(\"${local.output_objects}\") || resource.name.startsWith(\"${local.staging_objects}\")"
  }
}

resource "google_pubsub_topic_iam_member" "shardfn_publishes_tokenize" {
  topic  = google_pubsub_topic.tokenize.id
  role   = "roles/pubsub.publisher"
  member = "serviceAccount:${google_service_account.shardfn.email}"
}

# Reads of the buckets configured requester-pays carry userProject, which
# needs serviceusage.services.use on var.project: only the functions that
# read input buckets get it (the planner reads manifests, the shard function
# structures), and only when such a bucket is configured.
resource "google_project_iam_member" "bills_requester_pays" {
  for_each = length(var.requester_pays_buckets) > 0 ? {
    planner = google_service_account.planner.email
    shardfn = google_service_account.shardfn.email
  } : {}
  project = var.project
  role    = "roles/serviceusage.serviceUsageConsumer"
  member  = "serviceAccount:${each.value}"
}

# --- tpujob: pull tokenize messages, read staging, write output, ledger,
# pull its image, write logs.
resource "google_pubsub_subscription_iam_member" "tpujob_pulls_tokenize" {
  subscription = google_pubsub_subscription.tokenize.id
  role         = "roles/pubsub.subscriber"
  member       = "serviceAccount:${google_service_account.tpujob.email}"
}

resource "google_storage_bucket_iam_member" "tpujob_reads_staging_and_output" {
  bucket = google_storage_bucket.output.name
  role   = "roles/storage.objectViewer"
  member = "serviceAccount:${google_service_account.tpujob.email}"
  condition {
    title      = "staging and output prefixes"
    expression = "resource.name.startsWith(\"${local.staging_objects}\") || resource.name.startsWith(\"${local.output_objects}\")"
  }
}

resource "google_storage_bucket_iam_member" "tpujob_writes_output" {
  bucket = google_storage_bucket.output.name
  role   = "roles/storage.objectCreator"
  member = "serviceAccount:${google_service_account.tpujob.email}"
  condition {
    title      = "output prefix"
    expression = "resource.name.startsWith(\"${local.output_objects}\")"
  }
}

resource "google_artifact_registry_repository_iam_member" "tpujob_pulls_image" {
  location   = var.region
  repository = google_artifact_registry_repository.images.name
  role       = "roles/artifactregistry.reader"
  member     = "serviceAccount:${google_service_account.tpujob.email}"
}

resource "google_project_iam_member" "tpujob_writes_logs" {
  project = var.project
  role    = "roles/logging.logWriter"
  member  = "serviceAccount:${google_service_account.tpujob.email}"
}

# --- the ledger, for the three components that keep it.
resource "google_project_iam_member" "ledger" {
  for_each = {
    planner    = google_service_account.planner.email
    shardfn    = google_service_account.shardfn.email
    tpujob     = google_service_account.tpujob.email
    deadletter = google_service_account.deadletter.email
  }
  project = var.project
  role    = "roles/datastore.user"
  member  = "serviceAccount:${each.value}"
  condition {
    title      = "ledger database only"
    expression = local.ledger_condition
  }
}

# --- pusher: Pub/Sub mints its OIDC tokens (run.invoker is in functions.tf).
resource "google_service_account_iam_member" "pubsub_mints_push_tokens" {
  service_account_id = google_service_account.pusher.name
  role               = "roles/iam.serviceAccountTokenCreator"
  member             = local.pubsub_agent
}

# --- build: what a Cloud Functions build needs (Google's list for a custom
# build service account): write build logs, push the built image to the
# gcf-artifacts repository, read the source Cloud Functions copies into its
# gcf-v2-sources-* bucket. The last two are conditioned on those names.
resource "google_storage_bucket_iam_member" "build_reads_source" {
  bucket = google_storage_bucket.source.name
  role   = "roles/storage.objectViewer"
  member = "serviceAccount:${google_service_account.build.email}"
}

resource "google_project_iam_member" "build" {
  for_each = {
    logs = {
      role      = "roles/logging.logWriter"
      condition = ""
    }
    registry = {
      role      = "roles/artifactregistry.writer"
      condition = "resource.name.startsWith(\"projects/${var.project}/locations/${var.region}/repositories/gcf-artifacts\")"
    }
    sources = {
      role      = "roles/storage.objectAdmin"
      condition = "resource.name.startsWith(\"projects/_/buckets/gcf-v2-sources-\") || resource.name.startsWith(\"projects/_/buckets/gcf-v2-uploads-\")"
    }
  }
  project = var.project
  role    = each.value.role
  member  = "serviceAccount:${google_service_account.build.email}"
  dynamic "condition" {
    for_each = each.value.condition == "" ? [] : [each.value.condition]
    content {
      title      = "function build buckets and repository only"
      expression = condition.value
    }
  }
}
