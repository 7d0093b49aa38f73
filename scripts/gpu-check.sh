#!/usr/bin/env bash
# The one-command GPU check: builds with CUDA, runs the gpu-labelled tests,
# the NCCL allreduce bench against raw NCCL (64 MiB and the digits gradient
# bucket), digits trained on the GPU (1 rank on CPU and GPU, then 2 ranks
# through `trainpkg run`: one GPU each where 2 exist, else sharing one), and
# prints one table (README.md, "GPU check"; the recorded tables are in
# bench/README.md).
#
#   bash scripts/gpu-check.sh                      # build here, then check
#   bash scripts/gpu-check.sh --make-bundle F.tar.xz   # no GPU needed: build
#       # and pack the binaries with the shared libraries they need, for a GPU
#       # machine without the Debian packages (the CUDA driver and NCCL there
#       # are used: libnccl.so.2 from ldconfig, /usr/local/cuda or pip's
#       # nvidia-nccl wheels)
#   bash scripts/gpu-check.sh --bundle F.tar.xz|DIR    # check from a bundle
#   ... [--report FILE]                            # the table, also to FILE
#
# Exit status: 0 when every step passed; 1 when one failed (the table says
# which); 2 without a GPU (said within seconds, before anything is built) or
# for a usage error.
set -euo pipefail
REPO="$(cd "$(dirname "$0")/.." && pwd)"

usage() {
  sed -n '9,16p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}
MODE=build
BUNDLE=""
REPORT=""
while [ $# -gt 0 ]; do
  case "$1" in
    --make-bundle) MODE=make-bundle; BUNDLE="${2:?--make-bundle needs a file name}"; shift 2 ;;
    --bundle) MODE=bundle; BUNDLE="${2:?--bundle needs a .tar.xz or a directory}"; shift 2 ;;
    --report) REPORT="${2:?--report needs a file name}"; shift 2 ;;
    -h | --help) usage ;;
    *) echo "gpu-check: unknown argument '$1'" >&2; usage ;;
  esac
done
# Paths as given, from where the script was started; then the repository.
if [ -n "$BUNDLE" ]; then BUNDLE="$(realpath -m "$BUNDLE")"; fi
if [ -n "$REPORT" ]; then REPORT="$(realpath -m "$REPORT")"; fi
if [ "$MODE" = bundle ] && [ ! -e "$BUNDLE" ]; then
  echo "gpu-check: --bundle $BUNDLE: no such file or directory" >&2
  exit 2
fi
cd "$REPO"

# The targets the check runs; the gpu-labelled tests are found through ctest.
TARGETS="trainpkg digits_multiworker collectives_nccl_allreduce_bench gpu_devices_test nn_cuda_test fit_cuda_test nccl_communicator_test"
BUILD_DIR="${TRAINPKG_BUILD_DIR:-build}"

# The binaries of the gpu-labelled tests, one per line, from ctest's JSON.
gpu_test_binaries() {
  ctest --test-dir "$1" -L gpu --show-only=json-v1 | python3 -c '
import json, sys
seen = []
for test in json.load(sys.stdin)["tests"]:
    binary = test["command"][0]
    if binary not in seen:
        seen.append(binary)
print("\n".join(seen))'
}

build_targets() {
  TRAINPKG_BUILD_TARGETS="$TARGETS" bash scripts/build.sh
  if [ ! -x "$BUILD_DIR/bench/collectives/collectives_nccl_allreduce_bench" ]; then
    echo "gpu-check: $BUILD_DIR was configured without CUDA (no nvcc at configure time?):" \
      "install CUDA (nvcc in /usr/local/cuda/bin) and run again" >&2
    exit 1
  fi
}

if [ "$MODE" = make-bundle ]; then
  build_targets
  STAGE="$(mktemp -d -t trainpkg-gpu-bundle.XXXXXX)"
  trap 'rm -rf "$STAGE"' EXIT
  mkdir -p "$STAGE/bin" "$STAGE/tests" "$STAGE/lib" "$STAGE/data"
  strip -o "$STAGE/bin/trainpkg" "$BUILD_DIR/bin/trainpkg"
  strip -o "$STAGE/bin/digits_multiworker" "$BUILD_DIR/samples/digits_multiworker/digits_multiworker"
  strip -o "$STAGE/bin/collectives_nccl_allreduce_bench" \
    "$BUILD_DIR/bench/collectives/collectives_nccl_allreduce_bench"
  while read -r binary; do
    strip -o "$STAGE/tests/$(basename "$binary")" "$binary"
  done < <(gpu_test_binaries "$BUILD_DIR")
  cp "$(bash scripts/fetch-digits.sh)" "$STAGE/data/digits.csv.gz"
  cp scripts/gpu-check.sh "$STAGE/gpu-check.sh"
  # Every shared library the binaries load, except the C library's own, the
  # CUDA driver and NCCL, which come from the GPU machine.
  for f in "$STAGE"/bin/* "$STAGE"/tests/*; do ldd "$f"; done |
    awk '$2 == "=>" && $3 ~ /^\// {print $3}' | sort -u |
    grep -Ev '/(libc|libm|libdl|libpthread|librt|libresolv|ld-linux[^/]*|libcuda|libnccl)\.so' |
    while read -r lib; do cp -L "$lib" "$STAGE/lib/"; done
  git rev-parse --short HEAD >"$STAGE/COMMIT" 2>/dev/null || echo unknown >"$STAGE/COMMIT"
  tar -C "$STAGE" -cf - . | xz -T0 -6 >"$BUNDLE"
  echo "gpu-check: bundle $BUNDLE ($(du -h "$BUNDLE" | cut -f1)), commit $(cat "$STAGE/COMMIT")"
  exit 0
fi

# --- a GPU first: fail fast, before any build -------------------------------
if ! command -v nvidia-smi >/dev/null 2>&1 && ! compgen -G '/dev/nvidia[0-9]*' >/dev/null; then
  echo "gpu-check: no GPU: nvidia-smi is not installed and there is no /dev/nvidia* device." \
    "Run this on a machine with an NVIDIA GPU and its driver (the CPU tests: scripts/test.sh)." >&2
  exit 2
fi
GPU_LIST="$(timeout 10 nvidia-smi -L 2>&1 || true)"
if ! grep -q '^GPU [0-9]' <<<"$GPU_LIST"; then
  echo "gpu-check: no GPU: nvidia-smi lists none (${GPU_LIST:-no output})" >&2
  exit 2
fi
GPUS="$(grep -c '^GPU [0-9]' <<<"$GPU_LIST")"
GPU_NAME="$(sed -n 's/^GPU 0: \(.*\) (UUID.*/\1/p' <<<"$GPU_LIST")"

WORK="$(mktemp -d -t trainpkg-gpu-check.XXXXXX)"
cleanup() { rm -rf "$WORK"; }
trap cleanup EXIT
SECONDS=0

if [ "$MODE" = bundle ]; then
  if [ -d "$BUNDLE" ]; then
    ROOT="$(cd "$BUNDLE" && pwd)"
  else
    ROOT="$WORK/bundle"
    mkdir -p "$ROOT"
    xz -dc "$BUNDLE" | tar -C "$ROOT" -xf -
  fi
  TRAINPKG="$ROOT/bin/trainpkg"
  DIGITS="$ROOT/bin/digits_multiworker"
  BENCH="$ROOT/bin/collectives_nccl_allreduce_bench"
  DATA="$ROOT/data/digits.csv.gz"
  TESTS="$(ls "$ROOT"/tests/*)"
  COMMIT="$(cat "$ROOT/COMMIT")"
  # The bundle's libraries, then wherever NCCL is on this machine.
  LIBS="$ROOT/lib"
  for dir in $(ldconfig -p | awk '/libnccl\.so\.2 / {print $NF}' | xargs -r -n1 dirname) \
    /usr/local/cuda/lib64 /usr/local/cuda/lib \
    $(python3 -c 'import nvidia.nccl, os; print(os.path.join(list(nvidia.nccl.__path__)[0], "lib"))' \
      2>/dev/null || true); do
    if [ -e "$dir/libnccl.so.2" ]; then NCCL_DIR="$dir"; break; fi
  done
  if [ -z "${NCCL_DIR:-}" ]; then
    NCCL_DIR="$(find /usr /opt -name libnccl.so.2 -print -quit 2>/dev/null | xargs -r dirname)"
  fi
  if [ -z "$NCCL_DIR" ]; then
    echo "gpu-check: NCCL (libnccl.so.2) is not on this machine: install it (Debian: libnccl2)" >&2
    exit 1
  fi
  LIBS="$LIBS:$NCCL_DIR"
  export LD_LIBRARY_PATH="$LIBS${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
else
  build_targets
  TRAINPKG="$REPO/$BUILD_DIR/bin/trainpkg"
  DIGITS="$REPO/$BUILD_DIR/samples/digits_multiworker/digits_multiworker"
  BENCH="$REPO/$BUILD_DIR/bench/collectives/collectives_nccl_allreduce_bench"
  DATA="$(bash scripts/fetch-digits.sh)"
  TESTS="$(gpu_test_binaries "$BUILD_DIR")"
  COMMIT="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
fi
BUILD_SECONDS=$SECONDS

ROWS=()
FAILED=0
row() { ROWS+=("| $1 | $2 | $3 |"); }
fail() { FAILED=1; row "$1" "**FAILED**" "$2"; }

# --- 1. the gpu-labelled tests ------------------------------------------------
for binary in $TESTS; do
  name="$(basename "$binary")"
  start=$SECONDS
  if "$binary" --gtest_brief=1 >"$WORK/$name.log" 2>&1; then
    passed="$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$WORK/$name.log" | tail -n 1)"
    skipped="$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' "$WORK/$name.log" | tail -n 1)"
    if [ -n "$skipped" ] && [ "$skipped" != 0 ]; then
      # A GPU is here: a skip means the test could not use it.
      fail "test $name" "$skipped skipped although a GPU is present: $(grep -m1 -A1 'Skipped$' "$WORK/$name.log" | tail -n 1 | cut -c1-160)"
    else
      row "test $name" "passed" "${passed:-0} tests, $((SECONDS - start)) s"
    fi
  else
    fail "test $name" "$(grep -m3 -E 'FAILED|Failure|error' "$WORK/$name.log" | tr '\n' ' ' | cut -c1-200)"
    cat "$WORK/$name.log" >&2
  fi
done

# --- 2. NCCL allreduce: ours against raw NCCL ---------------------------------
if "$BENCH" >"$WORK/bench.log" 2>&1; then
  while IFS='|' read -r _ ranks size ours raw ratio _; do
    row "NCCL allreduce, ${ranks// /} rank(s), ${size# }" "trainpkg ${ours# }ms, raw NCCL ${raw# }ms" \
      "raw/trainpkg ${ratio// /} (median (min))"
  done < <(grep -E '^\| [0-9]+ \|' "$WORK/bench.log")
else
  fail "NCCL allreduce bench" "$(tail -n 3 "$WORK/bench.log" | tr '\n' ' ')"
fi

# --- 3. digits on the GPU -----------------------------------------------------
# One process on each device, the same flags: accuracy and epoch time.
digits_one() {  # model device
  local log="$WORK/digits-$1-$2.log"
  if OPENBLAS_NUM_THREADS=1 "$DIGITS" --data="$DATA" --model="$1" --device="$2" --epochs=30 \
    >"$log" 2>&1; then
    row "digits $1, 1 rank, $2" "$(grep -o 'test_accuracy=[0-9.]*' "$log")" \
      "$(grep -o 'mean_epoch_seconds=[0-9.]*' "$log")"
  else
    fail "digits $1, 1 rank, $2" "$(tail -n 2 "$log" | tr '\n' ' ')"
  fi
}
for model in mlp cnn; do
  digits_one "$model" cpu
  digits_one "$model" cuda
done

# Two ranks (chief + worker) through trainpkg run in process mode, on the
# CPU and on the GPU: one GPU each where there are two, else both on GPU 0.
if [ "$GPUS" -ge 2 ]; then VISIBLE=(0 1); SHARE="one GPU each"; else VISIBLE=(0 0); SHARE="sharing one GPU"; fi
pool() {  # device CUDA_VISIBLE_DEVICES
  cat <<EOF
    - machineSpec: {machineType: n1-standard-4}
      replicaCount: 1
      containerSpec:
        imageUri: local:$DIGITS
        args: [--data=$DATA, --device=$1, --epochs=30, --global_batch_size=64]
        env: [{name: CUDA_VISIBLE_DEVICES, value: "$2"}, {name: OPENBLAS_NUM_THREADS, value: "1"}]
EOF
}
export TRAINPKG_HOME="$WORK/home"
digits_two() {  # device label
  local job="$WORK/job-$1.yaml" log="$WORK/run-$1.log" out="$WORK/output-$1"
  {
    echo "displayName: gpu-check-digits-$1"
    echo "jobSpec:"
    echo "  workerPoolSpecs:"
    pool "$1" "${VISIBLE[0]}"
    pool "$1" "${VISIBLE[1]}"
  } >"$job"
  if "$TRAINPKG" run --config "$job" --base-output-dir "$out" >"$log" 2>&1 &&
    [ -f "$out/model/model.tpmodel" ]; then
    row "digits mlp, 2 ranks, $2, trainpkg run" \
      "$(grep -o 'test_accuracy=[0-9.]*' "$log" | tail -n 1)" \
      "$(grep -o 'mean_epoch_seconds=[0-9.]*' "$log" | tail -n 1)"
  else
    fail "digits mlp, 2 ranks, $2, trainpkg run" "$(tail -n 3 "$log" | tr '\n' ' ')"
    cat "$log" >&2
  fi
}
digits_two cpu cpu
digits_two cuda "cuda ($SHARE)"

# --- the table ------------------------------------------------------------------
{
  echo
  echo "gpu-check: $GPUS x ${GPU_NAME:-unknown GPU}, driver $(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -n 1), commit $COMMIT, $(date -u +%Y-%m-%dT%H:%MZ)"
  echo "build or unpack ${BUILD_SECONDS}s, checks $((SECONDS - BUILD_SECONDS))s"
  echo
  echo "| check | result | detail |"
  echo "|---|---|---|"
  printf '%s\n' "${ROWS[@]}"
} | tee "$WORK/table.md"
if [ -n "$REPORT" ]; then cp "$WORK/table.md" "$REPORT"; fi
if [ "$FAILED" -ne 0 ]; then
  echo "gpu-check: FAILED (see the rows marked FAILED and the logs above)" >&2
  exit 1
fi
echo "gpu-check: all checks passed in ${SECONDS}s"
