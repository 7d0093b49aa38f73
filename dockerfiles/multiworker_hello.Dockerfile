# samples/multiworker_hello on the CPU trainer runtime. The context is the
# sample's build directory (only the binary is copied):
#   build/bin/trainpkg build -f dockerfiles/multiworker_hello.Dockerfile \
#       --build-arg RUNTIME=oci:build/images/runtime:cpu \
#       -t trainpkg/multiworker_hello build/samples/multiworker_hello
# With docker: --build-arg RUNTIME=trainpkg/runtime:cpu (see runtime-cpu.Dockerfile).
ARG RUNTIME=oci:build/images/runtime:cpu
FROM ${RUNTIME}
COPY multiworker_hello /usr/local/bin/multiworker_hello
ENTRYPOINT ["/usr/local/bin/multiworker_hello"]
