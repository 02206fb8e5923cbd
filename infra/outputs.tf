output "input_bucket" {
  description = "Drop manifests (NAME.parquet) or run specs (NAME.run.json) under gs://BUCKET/<manifest_prefix> to start runs."
  value       = google_storage_bucket.input.name
}

output "manifest_uri_prefix" {
  value = "gs://${google_storage_bucket.input.name}/${var.manifest_prefix}"
}

output "output_prefix" {
  description = "Runs write gs://.../<output_prefix>/<manifest name>/g<generation>/ shards."
  value       = "gs://${google_storage_bucket.output.name}/${var.output_prefix}"
}

output "firestore_database" {
  value = google_firestore_database.ledger.name
}

output "dead_letter_subscription" {
  value = google_pubsub_subscription.dead_letter.name
}

output "image_repository" {
  description = "Push the tpujob image here."
  value       = "${var.region}-docker.pkg.dev/${var.project}/${google_artifact_registry_repository.images.repository_id}"
}
