# The tokenize job image the TPU VMs run (infra/tpujob.tf). Built and pushed
# by cloudbuild.yaml. The binary carries GoMLX's XLA/PJRT backend
# (cmd/foldcorpus/tpujob_xla.go); the device's PJRT plugin (libtpu for TPU) is
# NOT in this image yet: it must be added as pjrt_c_api_tpu_plugin.so under
# PJRT_PLUGIN_LIBRARY_PATH (docs/deploy.md), or the job fails at start-up with
# an error naming the backend.
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=1 go build -trimpath -o /out/foldcorpus ./cmd/foldcorpus

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates && rm -rf /var/lib/apt/lists/*
COPY --from=build /out/foldcorpus /usr/local/bin/foldcorpus
ENTRYPOINT ["/usr/local/bin/foldcorpus", "tpujob"]
