#!/usr/bin/env bash
# The end-to-end demo: the whole product path on this machine, no Docker
# daemon and no cloud.
#
#   1. builds the digits trainer (samples/digits_multiworker) into an OCI
#      image from its binary and the shared libraries it loads;
#   2. starts a registry (Debian's docker-registry) on 127.0.0.1 and pushes
#      the image there;
#   3. runs a Vertex AI CustomJob of 1 chief + 2 workers, each replica a runc
#      container of the image pulled from that registry;
#   4. shows where the model is and its held-out accuracy.
#
# Installs what is missing and builds what it runs first (scripts/build.sh;
# not the tests). Needs root
# (runc). DEMO_OUTPUT_DIR=DIR keeps the job's outputs there.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(id -u)" -ne 0 ]; then
  echo "demo: the replicas run as runc containers, which needs root: run it as root or with sudo" >&2
  exit 1
fi
# Only what the demo runs: the CLI (with trainpkg-slurm-task beside it) and
# the digits trainer; `bash scripts/test.sh` builds the rest.
TRAINPKG_BUILD_TARGETS="${TRAINPKG_BUILD_TARGETS:-trainpkg digits_multiworker}" bash scripts/build.sh
BUILD_DIR="${TRAINPKG_BUILD_DIR:-build}"
TRAINPKG="$BUILD_DIR/bin/trainpkg"
DATA="$(bash scripts/fetch-digits.sh)"

SECONDS=0
WORK="$(mktemp -d -t trainpkg-demo.XXXXXX)"
OUT="${DEMO_OUTPUT_DIR:-$WORK/output}"
mkdir -p "$OUT"
step() { echo; echo "== $*"; }

step "1. trainpkg build: the trainer binary and its shared libraries, as an OCI image"
"$TRAINPKG" build --bundle-libs "$BUILD_DIR/samples/digits_multiworker/digits_multiworker" \
  --output "oci:$WORK/image:demo"

step "2. a registry on 127.0.0.1, and trainpkg push"
PORT="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
cat >"$WORK/registry.yml" <<EOF
version: 0.1
log: {level: warn}
storage: {filesystem: {rootdirectory: $WORK/registry}}
http: {addr: 127.0.0.1:$PORT, secret: trainpkg-demo}
EOF
docker-registry serve "$WORK/registry.yml" >"$WORK/registry.log" 2>&1 &
REGISTRY_PID=$!
stop_registry() {
  kill "$REGISTRY_PID" 2>/dev/null || true
  wait "$REGISTRY_PID" 2>/dev/null || true
  rm -rf "$WORK/registry"
}
trap stop_registry EXIT
until curl -sf "http://127.0.0.1:$PORT/v2/" >/dev/null; do
  kill -0 "$REGISTRY_PID" 2>/dev/null || { cat "$WORK/registry.log" >&2; exit 1; }
  sleep 0.1
done
IMAGE="127.0.0.1:$PORT/trainpkg/digits_multiworker:demo"
"$TRAINPKG" push "oci:$WORK/image:demo" "$IMAGE"

step "3. trainpkg run: 1 chief + 2 workers under runc, from $IMAGE"
# The base output directory is mounted into every replica (as a Cloud Storage
# bucket is on Vertex AI), so the data goes in there.
cp "$DATA" "$OUT/digits.csv.gz"
CONTAINER="{imageUri: $IMAGE, env: [{name: OPENBLAS_NUM_THREADS, value: \"1\"}],
      args: [--epochs=30, --global_batch_size=64, --learning_rate=0.001, --data=$OUT/digits.csv.gz]}"
cat >"$WORK/job.yaml" <<EOF
displayName: digits-demo
jobSpec:
  workerPoolSpecs:   # a chief, then two workers
    - {machineSpec: {machineType: n1-standard-4}, replicaCount: 1, containerSpec: $CONTAINER}
    - {machineSpec: {machineType: n1-standard-4}, replicaCount: 2, containerSpec: $CONTAINER}
EOF
cat "$WORK/job.yaml"
set +e
"$TRAINPKG" run --config "$WORK/job.yaml" --base-output-dir "$OUT" | tee "$WORK/run.log"
rc=${PIPESTATUS[0]}
set -e

step "4. the result"
if [ "$rc" -ne 0 ]; then
  echo "demo: the job did not succeed (trainpkg run exited $rc)" >&2
  exit "$rc"
fi
if compgen -G "$OUT/model/workertemp_*" >/dev/null; then
  echo "demo: worker temp directories were left behind in $OUT/model" >&2
  exit 1
fi
echo "model:    $OUT/model/model.tpmodel (the chief's)"
echo "held-out: $(grep -o 'test_accuracy=[0-9.]*' "$WORK/run.log" | tail -n 1)"
echo "demo took ${SECONDS}s after the build (the job: $TRAINPKG jobs list)"
