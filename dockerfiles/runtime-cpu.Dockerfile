# The CPU trainer runtime: everything a trainer built from this tree loads at
# run time (glibc and its loader, libstdc++, gloo, gRPC, protobuf, OpenBLAS,
# abseil, fmt, ...) plus a minimal /etc, on no distribution base.
#
# trainpkg has no RUN, so the libraries come from the closure of a trainer
# that links the whole runtime (`--bundle-libs` resolves it like ld.so):
#   build/bin/trainpkg build --bundle-libs build/samples/digits_multiworker/digits_multiworker \
#       --output oci:build/images/closure:cpu
#   build/bin/trainpkg build -f dockerfiles/runtime-cpu.Dockerfile \
#       --output oci:build/images/runtime:cpu dockerfiles
# With docker, load the closure into the daemon first and name it:
#   skopeo copy oci:build/images/closure:cpu docker-daemon:trainpkg/closure:cpu
#   docker build -f dockerfiles/runtime-cpu.Dockerfile \
#       --build-arg CLOSURE=trainpkg/closure:cpu -t trainpkg/runtime:cpu dockerfiles
ARG CLOSURE=oci:build/images/closure:cpu
FROM ${CLOSURE}
LABEL org.opencontainers.image.title="trainpkg trainer runtime (CPU)"
# One BLAS thread per process: data-parallel replicas already fill the cores.
ENV OPENBLAS_NUM_THREADS=1
WORKDIR /trainer
# The closure's entrypoint is the trainer it was made from; a trainer image
# built on this one sets its own.
ENTRYPOINT []
CMD []
