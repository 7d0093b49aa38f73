#!/usr/bin/env bash
# install_downstream_example_test.sh BUILD_DIR SOURCE_DIR
#
# (a) `cmake --install` of the built tree into a scratch prefix; examples/
#     downstream configured with find_package(trainpkg CONFIG REQUIRED),
#     built and run against it: its CustomJob (a chief and a worker, both
#     hello_trainer linked with trainpkg::runtime) must SUCCEED and the chief
#     save model.txt; the same with allreduce_trainer (COMPONENTS training:
#     coordination and a Gloo allreduce). hello_trainer is also built
#     through trainpkg-runtime.pc.
# (b) `cpack -G DEB`; the packages must hold the stripped binary (<= 50 MB),
#     man pages, completions, headers, CMake package and .pc files, and a
#     -dbgsym package; `dpkg -x` into a scratch root and the same run
#     against that root.
# Needs the tree built (trainpkg, trainpkg-slurm-task, the trainpkg_docs
# output and the exported libraries). Leaves nothing behind.
set -euo pipefail

build=$(realpath "$1")
source_dir=$(realpath "$2")
scratch=$(mktemp -d /tmp/trainpkg-install-test.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
export TRAINPKG_HOME="$scratch/home"

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# Runs "$@" with its output in $scratch/<log>; prints the log on failure.
logged() {
  local log="$scratch/$1"
  shift
  local rc=0
  "$@" >"$log" 2>&1 || rc=$?
  if ((rc != 0)); then
    cat "$log" >&2
    fail "$* (exit $rc)"
  fi
}

# expect_job NAME LOG LINE...: the job in LOG SUCCEEDED and LOG has every LINE.
expect_job() {
  local name=$1 out=$2 line
  shift 2
  grep -q '^submit_job: [0-9]* JOB_STATE_SUCCEEDED$' "$out" || { cat "$out"; fail "$name: job did not succeed"; }
  for line in "$@"; do
    grep -qxF "$line" "$out" || { cat "$out"; fail "$name: no line '$line'"; }
  done
}

# run_example NAME PREFIX: builds examples/downstream against PREFIX and runs
# its CustomJob with each trainer.
run_example() {
  local name=$1 prefix=$2 dir="$scratch/$1"
  logged "$name-configure.log" cmake -S "$source_dir/examples/downstream" -B "$dir" -G Ninja \
    -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release
  grep -qx "trainpkg_DIR:PATH=$prefix/lib/cmake/trainpkg" "$dir/CMakeCache.txt" ||
    fail "$name: find_package(trainpkg) found $(grep trainpkg_DIR "$dir/CMakeCache.txt"), not $prefix's"
  logged "$name-build.log" cmake --build "$dir" -j2
  logged "$name-run.log" "$dir/submit_job" "$dir/hello_trainer" "$dir/out"
  local out="$scratch/$name-run.log"
  expect_job "$name" "$out" '[workerpool0-0] hello_trainer: chief 0: rank 0 of 2' \
    '[workerpool1-0] hello_trainer: worker 0: rank 1 of 2'
  [[ "$(cat "$dir/out/model/model.txt")" == "world_size=2 saved_by_rank=0" ]] ||
    fail "$name: model.txt is '$(cat "$dir/out/model/model.txt" 2>&1)'"
  [[ -z "$(find "$dir/out/model" -name 'workertemp_*')" ]] || fail "$name: a workertemp_ dir was left"
  logged "$name-allreduce.log" "$dir/submit_job" "$dir/allreduce_trainer" "$dir/out-allreduce"
  out="$scratch/$name-allreduce.log"
  expect_job "$name" "$out" '[workerpool0-0] allreduce_trainer: rank 0 of 2: sum of rank + 1 = 3' \
    '[workerpool1-0] allreduce_trainer: rank 1 of 2: sum of rank + 1 = 3'
  [[ "$(cat "$dir/out-allreduce/model/model.txt")" == "allreduce_sum=3" ]] ||
    fail "$name: allreduce model.txt is '$(cat "$dir/out-allreduce/model/model.txt" 2>&1)'"
  echo "ok: $name: the downstream CustomJobs SUCCEEDED"
}

# (a) the install prefix
prefix="$scratch/prefix"
logged install.log cmake --install "$build" --prefix "$prefix"
run_example prefix "$prefix"
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
# shellcheck disable=SC2046  # pkg-config's words are meant to split
logged pkg-config.log c++ -std=c++20 -o "$scratch/hello_pc" \
  "$source_dir/examples/downstream/hello_trainer.cc" $(pkg-config --cflags --libs trainpkg-runtime)
logged hello-pc.log env AIP_MODEL_DIR="$scratch/pc-model" "$scratch/hello_pc"
grep -qxF 'hello_trainer: chief 0: rank 0 of 1' "$scratch/hello-pc.log" || fail "trainpkg-runtime.pc build"
unset PKG_CONFIG_PATH
echo "ok: trainpkg-runtime.pc builds the trainer"

# (b) the .debs
logged cpack.log cpack -G DEB --config "$build/CPackConfig.cmake" -B "$scratch/pkg"
shopt -s nullglob
debs=("$scratch"/pkg/*.deb)
ddebs=("$scratch"/pkg/trainpkg-dbgsym_*.ddeb)
[[ ${#debs[@]} -eq 2 ]] || fail "cpack made ${#debs[@]} .deb files: ${debs[*]}"
[[ ${#ddebs[@]} -eq 1 ]] || fail "cpack made no trainpkg-dbgsym package"
contents="$scratch/contents.txt"
for deb in "${debs[@]}"; do dpkg-deb --contents "$deb" >>"$contents"; done
for path in usr/bin/trainpkg usr/bin/trainpkg-slurm-task usr/share/man/man1/trainpkg-run.1.gz \
  usr/share/bash-completion/completions/trainpkg usr/share/zsh/vendor-completions/_trainpkg \
  usr/include/trainpkg/sdk/custom_job.h usr/include/trainpkg/trainer_runtime/cluster_info.h \
  usr/lib/cmake/trainpkg/trainpkgConfig.cmake usr/lib/cmake/trainpkg/trainpkgConfigVersion.cmake \
  usr/include/trainpkg/trainer_runtime/collectives/gloo_communicator.h \
  usr/lib/cmake/trainpkg/trainpkgTrainingTargets.cmake usr/lib/libtrainpkg_train.a \
  usr/lib/pkgconfig/trainpkg-sdk.pc usr/lib/libtrainpkg_sdk.a; do
  grep -q " \./$path\$" "$contents" || fail "no $path in the packages"
done
root="$scratch/root"
for deb in "${debs[@]}"; do dpkg -x "$deb" "$root"; done
binary="$root/usr/bin/trainpkg"
file -b "$binary" | grep -q ', stripped' || fail "usr/bin/trainpkg is not stripped: $(file -b "$binary")"
size=$(stat -c %s "$binary")
((size <= 50 * 1024 * 1024)) || fail "usr/bin/trainpkg is $size bytes, over 50 MB"
"$binary" version >/dev/null || fail "the packaged trainpkg does not run"
echo "ok: packages hold what they should; usr/bin/trainpkg is $size bytes, stripped"
run_example deb-root "$root/usr"
