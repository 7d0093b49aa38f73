#!/usr/bin/env bash
# Installs dependencies (idempotent) and builds trainpkg into ./build.
# Usage: scripts/build.sh [extra cmake -D options]
# TRAINPKG_BUILD_TARGETS="a b" builds only those targets (and what they need),
# as the demo does; unset, everything (tests included) is built.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
BUILD_DIR="${TRAINPKG_BUILD_DIR:-build}"
cmake -S . -B "$BUILD_DIR" -G Ninja "$@"
targets=()
for target in ${TRAINPKG_BUILD_TARGETS:-}; do targets+=(--target "$target"); done
cmake --build "$BUILD_DIR" -j "$(nproc)" "${targets[@]}"
