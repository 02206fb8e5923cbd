# Topics keep their messages in var.region only. Every subscription that
# feeds work is owned here (not by a function trigger, which cannot have a
# dead-letter topic) and has a retry policy (10 s .. 600 s) and a dead-letter
# policy; the dead-letter topic has its own subscription so nothing
# dead-lettered is lost (`foldcorpus status` shows those shards).

locals {
  retention = "604800s" # 7 days, the maximum for a subscription

}

resource "google_pubsub_topic" "manifests" {
  name = "${local.name}-manifests"
  message_storage_policy {
    allowed_persistence_regions = [var.region]
  }
  depends_on = [google_project_service.apis]
}

resource "google_pubsub_topic" "shards" {
  name = "${local.name}-shards"
  message_storage_policy {
    allowed_persistence_regions = [var.region]
  }
  depends_on = [google_project_service.apis]
}

resource "google_pubsub_topic" "tokenize" {
  name = "${local.name}-tokenize"
  message_storage_policy {
    allowed_persistence_regions = [var.region]
  }
  depends_on = [google_project_service.apis]
}

resource "google_pubsub_topic" "dead_letter" {
  name = "${local.name}-dead-letter"
  message_storage_policy {
    allowed_persistence_regions = [var.region]
  }
  depends_on = [google_project_service.apis]
}

# Manifest finalize notifications -> Planner. The push path names the topic
# so the functions framework turns the push body into a CloudEvent.
resource "google_pubsub_subscription" "planner" {
  name                       = "${local.name}-planner-push"
  topic                      = google_pubsub_topic.manifests.id
  ack_deadline_seconds       = 600
  message_retention_duration = local.retention
  push_config {
    push_endpoint = "${google_cloudfunctions2_function.planner.service_config[0].uri}/projects/${var.project}/topics/${google_pubsub_topic.manifests.name}"
    oidc_token {
      service_account_email = google_service_account.pusher.email
      audience              = google_cloudfunctions2_function.planner.service_config[0].uri
    }
  }
  retry_policy {
    minimum_backoff = "10s"
    maximum_backoff = "600s"
  }
  dead_letter_policy {
    dead_letter_topic     = google_pubsub_topic.dead_letter.id
    max_delivery_attempts = var.max_delivery_attempts
  }
  expiration_policy {
    ttl = ""
  }
}

# One message per shard -> ShardFn.
resource "google_pubsub_subscription" "shards" {
  name                       = "${local.name}-shards-push"
  topic                      = google_pubsub_topic.shards.id
  ack_deadline_seconds       = 600 # >= the function timeout
  message_retention_duration = local.retention
  push_config {
    push_endpoint = "${google_cloudfunctions2_function.shardfn.service_config[0].uri}/projects/${var.project}/topics/${google_pubsub_topic.shards.name}"
    oidc_token {
      service_account_email = google_service_account.pusher.email
      audience              = google_cloudfunctions2_function.shardfn.service_config[0].uri
    }
  }
  retry_policy {
    minimum_backoff = "10s"
    maximum_backoff = "600s"
  }
  dead_letter_policy {
    dead_letter_topic     = google_pubsub_topic.dead_letter.id
    max_delivery_attempts = var.shard_max_delivery_attempts
  }
  expiration_policy {
    ttl = ""
  }
}

# Staged shards -> the TPU tokenize job (pull).
resource "google_pubsub_subscription" "tokenize" {
  name                       = "${local.name}-tokenize-pull"
  topic                      = google_pubsub_topic.tokenize.id
  ack_deadline_seconds       = 600
  message_retention_duration = local.retention
  retry_policy {
    minimum_backoff = "10s"
    maximum_backoff = "600s"
  }
  dead_letter_policy {
    dead_letter_topic     = google_pubsub_topic.dead_letter.id
    max_delivery_attempts = var.max_delivery_attempts
  }
  expiration_policy {
    ttl = ""
  }
}

# Dead-lettered messages -> DeadLetter (marks the shard dead_lettered). No
# dead-letter policy here: this is the end of the line, and the pull
# subscription below keeps every message anyway.
resource "google_pubsub_subscription" "dead_letter_push" {
  name                       = "${local.name}-dead-letter-push"
  topic                      = google_pubsub_topic.dead_letter.id
  ack_deadline_seconds       = 60
  message_retention_duration = local.retention
  push_config {
    push_endpoint = "${google_cloudfunctions2_function.deadletter.service_config[0].uri}/projects/${var.project}/topics/${google_pubsub_topic.dead_letter.name}"
    oidc_token {
      service_account_email = google_service_account.pusher.email
      audience              = google_cloudfunctions2_function.deadletter.service_config[0].uri
    }
  }
  retry_policy {
    minimum_backoff = "10s"
    maximum_backoff = "600s"
  }
  expiration_policy {
    ttl = ""
  }
}

# Keeps every dead-lettered message for inspection and rerun.
resource "google_pubsub_subscription" "dead_letter" {
  name                       = "${local.name}-dead-letter-keep"
  topic                      = google_pubsub_topic.dead_letter.id
  ack_deadline_seconds       = 60
  message_retention_duration = local.retention
  retain_acked_messages      = true
  expiration_policy {
    ttl = ""
  }
}

# The Pub/Sub service agent moves messages to the dead-letter topic: it must
# publish there and subscribe to the source subscriptions.
resource "google_pubsub_topic_iam_member" "agent_publishes_dead_letters" {
  topic  = google_pubsub_topic.dead_letter.id
  role   = "roles/pubsub.publisher"
  member = local.pubsub_agent
}

resource "google_pubsub_subscription_iam_member" "agent_forwards_dead_letters" {
  for_each = {
    planner  = google_pubsub_subscription.planner.id
    shards   = google_pubsub_subscription.shards.id
    tokenize = google_pubsub_subscription.tokenize.id
  }
  subscription = each.value
  role         = "roles/pubsub.subscriber"
  member       = local.pubsub_agent
}
