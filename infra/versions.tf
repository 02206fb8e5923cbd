# foldcorpus on Google Cloud: everything the pipeline needs, pinned to one
# region (var.region). See docs/deploy.md for the walk-through.

terraform {
  # 1.7: for_each in import blocks (firestore.tf).
  required_version = ">= 1.7"
  # State lives in a bucket you create once (docs/deploy.md, step 2):
  # terraform init -backend-config=bucket=PROJECT-foldcorpus-tfstate
  backend "gcs" {
    prefix = "foldcorpus"
  }
  required_providers {
    google = {
      source  = "hashicorp/google"
      version = ">= 6.0, < 8.0"
    }
    # google_tpu_v2_vm exists only in the beta provider (magic-modules
    # mmv1/products/tpuv2/Vm.yaml: min_version beta). Same versions as google.
    google-beta = {
      source  = "hashicorp/google-beta"
      version = ">= 6.0, < 8.0"
    }
    archive = {
      source  = "hashicorp/archive"
      version = ">= 2.4"
    }
  }
}

provider "google" {
  project = var.project
  region  = var.region
}

provider "google-beta" {
  project = var.project
  region  = var.region
}

data "google_project" "this" {
  project_id = var.project
}

locals {
  name = var.name_prefix
  # Google-managed agents that act on our behalf.
  pubsub_agent = "serviceAccount:service-${data.google_project.this.number}@gcp-sa-pubsub.iam.gserviceaccount.com"
}

resource "google_project_service" "apis" {
  for_each = toset([
    "artifactregistry.googleapis.com",
    "cloudbuild.googleapis.com",
    "cloudfunctions.googleapis.com",
    "compute.googleapis.com",
    "firestore.googleapis.com",
    "iam.googleapis.com",
    "logging.googleapis.com",
    "pubsub.googleapis.com",
    "run.googleapis.com",
    "storage.googleapis.com",
    "tpu.googleapis.com",
  ])
  project            = var.project
  service            = each.value
  disable_on_destroy = false
}
