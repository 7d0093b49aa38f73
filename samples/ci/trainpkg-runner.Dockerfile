# The image samples/ci/cloudbuild.yaml runs its trainpkg steps in: Debian 12
# with trainpkg installed from the .deb at TRAINPKG_DEB_URL or, when that is
# empty, built by scripts/build.sh from the build context (a clone of
# trainpkg). jq reads the metadata server's token for `trainpkg login`.
FROM debian:12
ARG TRAINPKG_DEB_URL=
COPY . /src
RUN apt-get update -qq \
 && apt-get install -y -qq --no-install-recommends ca-certificates curl jq \
 && if [ -n "$TRAINPKG_DEB_URL" ]; then \
      curl -fsSL -o /tmp/trainpkg.deb "$TRAINPKG_DEB_URL" \
      && apt-get install -y -qq --no-install-recommends /tmp/trainpkg.deb; \
    else \
      cd /src && TRAINPKG_BUILD_TARGETS=trainpkg bash scripts/build.sh \
      && ln -s /src/build/bin/trainpkg /usr/local/bin/trainpkg; \
    fi
ENTRYPOINT ["trainpkg"]
