# syntax=docker/dockerfile:1
# escape=`
ARG BASE=alpine:3.19 VERSION
FROM --platform=$TARGETPLATFORM ${BASE} AS build
ARG VERSION=1.0
ENV A=1 B="two words" C=${VERSION:-x}
RUN echo a `
  # comment
  b
FROM scratch
COPY --from=build --chown=0:0 --chmod=0755 ["/a b", "/dst/"]
LABEL "k v"=w x=y
EXPOSE 80 8000-8010/udp
VOLUME ["/data"]
HEALTHCHECK --interval=30s CMD ["true"]
STOPSIGNAL SIGTERM
USER 1000
SHELL ["/bin/bash","-c"]
ONBUILD COPY . /app
CMD echo ${HOME}
