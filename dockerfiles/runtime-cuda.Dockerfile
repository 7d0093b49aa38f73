# The CUDA trainer runtime: runtime-cpu plus the CUDA libraries the trainer
# runtime loads. cudart is linked statically; cuBLAS and cuBLASLt are opened
# with dlopen by trainer_runtime/nn (CUDA builds), so they are copied from the
# host's CUDA toolkit (the build context is its lib64 directory). The driver
# (libcuda.so) is never in an image: the container runtime mounts the
# host's. There is no ld.so.cache in these images, hence LD_LIBRARY_PATH.
#   build/bin/trainpkg build -f dockerfiles/runtime-cuda.Dockerfile \
#       --build-arg RUNTIME=oci:build/images/runtime:cpu \
#       --output oci:build/images/runtime:cuda /usr/local/cuda/lib64
# With docker (runtime-cpu loaded as trainpkg/runtime:cpu, see there):
#   docker build -f dockerfiles/runtime-cuda.Dockerfile \
#       --build-arg RUNTIME=trainpkg/runtime:cpu -t trainpkg/runtime:cuda /usr/local/cuda/lib64
ARG RUNTIME=oci:build/images/runtime:cpu
FROM ${RUNTIME}
LABEL org.opencontainers.image.title="trainpkg trainer runtime (CUDA)"
COPY libcublas.so.* libcublasLt.so.* /usr/local/cuda/lib64/
ENV LD_LIBRARY_PATH=/usr/local/cuda/lib64
ENV NVIDIA_VISIBLE_DEVICES=all NVIDIA_DRIVER_CAPABILITIES=compute,utility
