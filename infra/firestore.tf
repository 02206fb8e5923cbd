# The ledger: Firestore in native mode, in var.region. A project has at
# most one "(default)" database and destroy keeps it (deletion_policy
# ABANDON), so creating it again fails with "Database already exists": with
# firestore_database_exists = true Terraform imports the one there instead
# (docs/deploy.md, step 3).
import {
  for_each = var.firestore_database_exists ? toset([var.firestore_database]) : toset([])
  to       = google_firestore_database.ledger
  id       = "projects/${var.project}/databases/${each.value}"
}

resource "google_firestore_database" "ledger" {
  name            = var.firestore_database
  location_id     = var.region
  type            = "FIRESTORE_NATIVE"
  deletion_policy = "ABANDON"
  depends_on      = [google_project_service.apis]
}

# The ledger's queries on runs/{run}/shards: ORDER BY index (all shards) and
# count(status == S) (progress) use single-field indexes, which Firestore
# creates by itself. Listing the shards of one status in index order (failed,
# pending or dead-lettered shards for status and rerun) needs this composite
# index.
resource "google_firestore_index" "shards_by_status" {
  database    = google_firestore_database.ledger.name
  collection  = "shards"
  query_scope = "COLLECTION"
  fields {
    field_path = "status"
    order      = "ASCENDING"
  }
  fields {
    field_path = "index"
    order      = "ASCENDING"
  }
}

# Error texts can be long and are never queried: keep them out of indexes.
resource "google_firestore_field" "shard_error_unindexed" {
  database   = google_firestore_database.ledger.name
  collection = "shards"
  field      = "error"
  index_config {}
}
