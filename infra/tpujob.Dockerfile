# The tokenize job image the TPU VMs run (infra/tpujob.tf). Built and pushed
# by cloudbuild.yaml. The PJRT plugin for TPU (libtpu) comes from the TPU VM
# runtime image, mounted by the container's --privileged run.
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# -tags xla: the XLA/PJRT backend (cmd/foldcorpus/xla.go); the plugin itself
# (libtpu, or the CUDA PJRT plugin) is found through PJRT_PLUGIN_LIBRARY_PATH.
RUN CGO_ENABLED=1 go build -tags xla -trimpath -o /out/foldcorpus ./cmd/foldcorpus

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates && rm -rf /var/lib/apt/lists/*
COPY --from=build /out/foldcorpus /usr/local/bin/foldcorpus
ENTRYPOINT ["/usr/local/bin/foldcorpus", "tpujob"]
