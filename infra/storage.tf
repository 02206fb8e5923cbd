# Buckets: regional (var.region), uniform bucket-level access, public access
# prevented. The output bucket is in the workers' region.

locals {
  input_bucket  = "${var.project}-${var.name_prefix}-input"
  output_bucket = "${var.project}-${var.name_prefix}-output"
  source_bucket = "${var.project}-${var.name_prefix}-source"
}

resource "google_storage_bucket" "input" {
  name                        = local.input_bucket
  location                    = var.region
  uniform_bucket_level_access = true
  public_access_prevention    = "enforced"
  depends_on                  = [google_project_service.apis]
}

resource "google_storage_bucket" "output" {
  name                        = local.output_bucket
  location                    = var.region
  uniform_bucket_level_access = true
  public_access_prevention    = "enforced"

  # Staged tokenizer inputs are intermediate: delete them after a while.
  lifecycle_rule {
    condition {
      age            = var.staging_ttl_days
      matches_prefix = ["${var.staging_prefix}/"]
    }
    action {
      type = "Delete"
    }
  }
  depends_on = [google_project_service.apis]
}

# Function source archives (uploaded by Terraform from the repository).
resource "google_storage_bucket" "source" {
  name                        = local.source_bucket
  location                    = var.region
  uniform_bucket_level_access = true
  public_access_prevention    = "enforced"
  lifecycle_rule {
    condition {
      age = 30
    }
    action {
      type = "Delete"
    }
  }
  depends_on = [google_project_service.apis]
}

# Finalize notifications for the manifest prefix only. (Eventarc storage
# triggers cannot filter by prefix; a bucket notification can.)
resource "google_storage_notification" "manifests" {
  bucket             = google_storage_bucket.input.name
  payload_format     = "JSON_API_V1"
  topic              = google_pubsub_topic.manifests.id
  event_types        = ["OBJECT_FINALIZE"]
  object_name_prefix = var.manifest_prefix
  depends_on         = [google_pubsub_topic_iam_member.gcs_publishes_manifests]
}

data "google_storage_project_service_account" "gcs" {
  project = var.project
}

resource "google_pubsub_topic_iam_member" "gcs_publishes_manifests" {
  topic  = google_pubsub_topic.manifests.id
  role   = "roles/pubsub.publisher"
  member = "serviceAccount:${data.google_storage_project_service_account.gcs.email_address}"
}
