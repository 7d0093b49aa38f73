#!/usr/bin/env bash
# The test command: installs what is missing, builds, and runs every test.
# Unit tests run in parallel; integration tests (real processes, timing)
# run one at a time so a loaded 2-core machine does not make them flaky.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
BUILD_DIR="${TRAINPKG_BUILD_DIR:-build}"
python3 scripts/check_deps.py
status=0
ctest --test-dir "$BUILD_DIR" --output-on-failure -j "$(nproc)" -L 'unit|gpu' || status=1
ctest --test-dir "$BUILD_DIR" --output-on-failure -LE 'unit|gpu|fuzz' || status=1
exit $status
