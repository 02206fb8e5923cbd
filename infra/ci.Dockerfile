# The image cloudbuild.yaml runs the tests in: the same tools as the CI
# machines (.ci/run): Go, Node.js (DuckDB via @duckdb/node-api), OpenJDK 17
# Google's Firestore and Pub/Sub emulators, and Chromium (report screenshots).
FROM golang:1.26-bookworm
RUN apt-get update && apt-get install -y --no-install-recommends \
      ca-certificates chromium curl gnupg nodejs npm openjdk-17-jre-headless && \
    curl -fsSL https://packages.cloud.google.com/apt/doc/apt-key.gpg | gpg --dearmor -o /usr/share/keyrings/cloud.google.gpg && \
    echo "deb [signed-by=/usr/share/keyrings/cloud.google.gpg] https://packages.cloud.google.com/apt cloud-sdk main" > /etc/apt/sources.list.d/google-cloud-sdk.list && \
    apt-get update && apt-get install -y --no-install-recommends \
      google-cloud-cli google-cloud-cli-firestore-emulator google-cloud-cli-pubsub-emulator && \
    rm -rf /var/lib/apt/lists/*
