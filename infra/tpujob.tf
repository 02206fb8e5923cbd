# The tokenize job for neural formats (bio2token-v2): TPU VMs in a zone of
# var.region, no external IP (Private Google Access reaches Pub/Sub, GCS,
# Firestore and Artifact Registry), running the tpujob container image.
# var.tpujob_count is 0 until a neural-format run needs them.

locals {
  tpu_zone = "${var.region}-${var.tpu_zone_suffix}"
  # Exactly the variables the job reads (config.Vars(config.TPUJob), read by
  # tpujob.SettingsFromEnv; checked by infra's TestTPUJobEnvironment).
  tpujob_env = {
    FOLDCORPUS_PROJECT                = var.project
    FOLDCORPUS_TOKENIZE_SUBSCRIPTION  = google_pubsub_subscription.tokenize.name
    FOLDCORPUS_OUTPUT_PREFIX          = "gs://${google_storage_bucket.output.name}/${var.output_prefix}"
    FOLDCORPUS_FIRESTORE_DATABASE     = google_firestore_database.ledger.name
    FOLDCORPUS_LEDGER_COLLECTION      = var.ledger_collection
    FOLDCORPUS_LOG_LEVEL              = var.log_level
    FOLDCORPUS_TOKENIZE_WEIGHTS       = var.tokenize_weights
    FOLDCORPUS_TOKENIZE_BACKEND       = var.tokenize_backend
    FOLDCORPUS_TOKENIZE_DEVICES       = tostring(var.tokenize_devices)
    FOLDCORPUS_TOKENIZE_RUNGS         = tostring(var.tokenize_rungs)
    FOLDCORPUS_TOKENIZE_MAX_IN_FLIGHT = tostring(var.tokenize_max_in_flight)
    FOLDCORPUS_TOKENIZE_FLUSH_AFTER   = var.tokenize_flush_after
  }
}

resource "google_compute_network" "vpc" {
  name                    = "${local.name}-vpc"
  auto_create_subnetworks = false
  depends_on              = [google_project_service.apis]
}

resource "google_compute_subnetwork" "vpc" {
  name                     = "${local.name}-${var.region}"
  region                   = var.region
  network                  = google_compute_network.vpc.id
  ip_cidr_range            = "10.64.0.0/20"
  private_ip_google_access = true
}

resource "google_artifact_registry_repository" "images" {
  location      = var.region
  repository_id = "${local.name}-images"
  format        = "DOCKER"
  depends_on    = [google_project_service.apis]
}

resource "google_tpu_v2_vm" "tpujob" {
  provider         = google-beta
  count            = var.tpujob_count
  name             = "${local.name}-tpujob-${count.index}"
  zone             = local.tpu_zone
  runtime_version  = var.tpu_runtime_version
  accelerator_type = var.tpu_accelerator_type

  scheduling_config {
    spot = var.tpu_spot
  }
  network_config {
    network             = google_compute_network.vpc.id
    subnetwork          = google_compute_subnetwork.vpc.id
    enable_external_ips = false
  }
  service_account {
    email = google_service_account.tpujob.email
    scope = ["https://www.googleapis.com/auth/cloud-platform"]
  }
  metadata = {
    startup-script = templatefile("${path.module}/tpujob-startup.sh.tftpl", {
      region = var.region
      image  = var.tpujob_image
      env    = local.tpujob_env
    })
  }
  lifecycle {
    precondition {
      condition     = var.tpujob_image != ""
      error_message = "tpujob_count > 0 needs tpujob_image (cloudbuild.yaml pushes it)."
    }
    precondition {
      condition     = startswith(var.tokenize_weights, "gs://${google_storage_bucket.output.name}/${var.output_prefix}/")
      error_message = "tpujob_count > 0 needs tokenize_weights: the bio2token checkpoint uploaded under gs://OUTPUT_BUCKET/OUTPUT_PREFIX/ (the only prefix the tpujob account reads besides staging)."
    }
  }
  depends_on = [google_project_service.apis]
}
