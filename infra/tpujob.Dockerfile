# The tokenize job image the TPU VMs run (infra/tpujob.tf). Built and pushed
# by cloudbuild.yaml (Cloud Build has the internet; the TPU VMs have no
# external IP, so everything the job needs is baked in here).
#
# The TPU's PJRT plugin is libtpu.so from the libtpu wheel on PyPI (where
# gomlx/go-xla's installer, pkg/installer/tpu.go, takes it from), pinned to
# LIBTPU_VERSION; pip checks the wheel's hash against the index. It is
# installed as pjrt_c_api_tpu_plugin.so in /usr/local/lib/go-xla, the folder
# go-xla searches (pkg/pjrt/dynamiclib_base.go), named by
# PJRT_PLUGIN_LIBRARY_PATH too. The VM's startup script
# (tpujob-startup.sh.tftpl) refuses to start a container without it.
ARG LIBTPU_VERSION=0.0.50.1

FROM python:3.12-slim-bookworm AS pjrt
ARG LIBTPU_VERSION
RUN pip download --no-deps --only-binary=:all: --platform manylinux_2_31_x86_64 \
      --dest /tmp/wheel "libtpu==${LIBTPU_VERSION}" && \
    python -c "import glob, zipfile; z = zipfile.ZipFile(glob.glob('/tmp/wheel/libtpu-*.whl')[0]); n = [x for x in z.namelist() if x.endswith('/libtpu.so')]; assert len(n) == 1, n; open('/pjrt_c_api_tpu_plugin.so', 'wb').write(z.read(n[0]))"

FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=1 go build -trimpath -o /out/foldcorpus ./cmd/foldcorpus

FROM debian:bookworm-slim
ARG LIBTPU_VERSION
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates && rm -rf /var/lib/apt/lists/*
COPY --from=pjrt /pjrt_c_api_tpu_plugin.so /usr/local/lib/go-xla/pjrt_c_api_tpu_plugin.so
ENV PJRT_PLUGIN_LIBRARY_PATH=/usr/local/lib/go-xla
LABEL foldcorpus.libtpu-version=${LIBTPU_VERSION}
COPY --from=build /out/foldcorpus /usr/local/bin/foldcorpus
ENTRYPOINT ["/usr/local/bin/foldcorpus", "tpujob"]
