# samples/digits_multiworker on the CPU trainer runtime. The context is the
# sample's build directory (only the binary is copied):
#   build/bin/trainpkg build -f dockerfiles/digits_multiworker.Dockerfile \
#       --build-arg RUNTIME=oci:build/images/runtime:cpu \
#       -t trainpkg/digits_multiworker build/samples/digits_multiworker
# With docker: --build-arg RUNTIME=trainpkg/runtime:cpu (see runtime-cpu.Dockerfile).
ARG RUNTIME=oci:build/images/runtime:cpu
FROM ${RUNTIME}
COPY digits_multiworker /usr/local/bin/digits_multiworker
ENTRYPOINT ["/usr/local/bin/digits_multiworker"]
