#!/usr/bin/env bash
# The end-to-end demo: installs what is missing, builds, and runs the
# multiworker_hello sample as a Vertex-style CustomJob with one chief and two
# workers on this machine, then shows what the job left behind.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
BUILD_DIR="${TRAINPKG_BUILD_DIR:-build}"
TRAINPKG="$BUILD_DIR/bin/trainpkg"

OUT="${DEMO_OUTPUT_DIR:-$(mktemp -d -t trainpkg-demo.XXXXXX)}"
echo
echo "== trainpkg run --config samples/multiworker_hello/job.yaml --base-output-dir $OUT"
set +e
"$TRAINPKG" run --config samples/multiworker_hello/job.yaml --base-output-dir "$OUT"
rc=$?
set -e

echo
echo "== what the job wrote under $OUT"
find "$OUT" -mindepth 1 | sort
if [ -f "$OUT/model/model.json" ]; then
  echo "== $OUT/model/model.json (the chief's)"
  cat "$OUT/model/model.json"; echo
fi
if compgen -G "$OUT/model/workertemp_*" >/dev/null; then
  echo "demo: worker temp directories were left behind" >&2
  rc=1
fi
echo
echo "== trainpkg jobs list"
"$TRAINPKG" jobs list | head -n 6
exit $rc
