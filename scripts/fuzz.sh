#!/usr/bin/env bash
# The sanitizer fuzz run (issue #16): configures build-fuzz with clang-14
# (libFuzzer coverage + ASan + UBSan over every library the targets link),
# builds only the fuzz targets, then runs each for SECONDS (default 60)
# through `ctest -L fuzz`, two at a time, niced, each on a scratch copy of
# its corpus (the repository's corpora never grow). Ends with one line per
# target: seconds, executions, new corpus entries, and the reproducers
# libFuzzer saved (crash-*, leak-*, timeout-*, oom-*).
# Usage: scripts/fuzz.sh [SECONDS] [TARGET_REGEX]
#   e.g. scripts/fuzz.sh 600            # the once-per-issue 10-minute run
#        scripts/fuzz.sh 60 'yaml|job_file'
# Needs clang-14 and libclang-rt-14-dev (scripts/install-deps.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
filter="${2:-}"
build_dir="${TRAINPKG_FUZZ_BUILD_DIR:-build-fuzz}"
jobs="${TRAINPKG_FUZZ_JOBS:-2}"
# -Werror off: this build hunts runtime bugs; clang's extra warnings are
# not this script's business (the g++ build keeps -Werror).
CC=clang-14 CXX=clang++-14 cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Fuzz \
  -DTRAINPKG_FUZZ=ON -DTRAINPKG_FUZZ_SECONDS="$seconds" -DTRAINPKG_WERROR=OFF \
  -DTRAINPKG_BUILD_BENCH=OFF -DTRAINPKG_ENABLE_CUDA=OFF >/dev/null
# The targets the regex selects (all by default): ctest fuzz_<name>_libfuzzer
# runs binary fuzz_<name>; build only those.
mapfile -t binaries < <(ctest --test-dir "$build_dir" -N -L fuzz ${filter:+-R "$filter"} |
  sed -n 's/^ *Test *#[0-9]*: \(fuzz_.*\)_libfuzzer$/\1/p')
if [[ ${#binaries[@]} -eq 0 ]]; then
  echo "no fuzz target matches '${filter}'" >&2
  exit 2
fi
nice cmake --build "$build_dir" -j "$jobs" --target "${binaries[@]}"
status=0
nice ctest --test-dir "$build_dir" --output-on-failure -L fuzz -j "$jobs" \
  ${filter:+-R "$filter"} || status=1
echo "--- per target (seconds, executions, corpus growth, exit, reproducers):"
for binary in "${binaries[@]}"; do
  cat "$build_dir/fuzz-scratch/$binary/summary" 2>/dev/null || echo "$binary: did not run"
done
exit $status
