#!/usr/bin/env bash
# Installs every Debian package trainpkg needs to build, test and run its demo.
# Idempotent: packages already present are skipped, so a second run is quick.
# Needs root (or sudo) and Debian 12 package sources; downloads nothing else.
#
# Usage: scripts/install-deps.sh [--bench]
#   --bench  also installs the peers bench/ measures against (buildah, OpenMPI,
#            PyTorch); the build and the tests never need them.
set -euo pipefail

PACKAGES=(
  # toolchain
  build-essential g++ cmake ninja-build pkg-config git ca-certificates clang-format python3
  lld  # links much faster than GNU ld (cmake/TrainpkgLinker.cmake)
  ccache  # rebuilds and other worktrees reuse unchanged objects (cmake/TrainpkgCcache.cmake)
  clang-14 libclang-rt-14-dev  # scripts/fuzz.sh: the libFuzzer + ASan/UBSan build of every fuzz target
  # libraries
  libabsl-dev nlohmann-json3-dev libfmt-dev libcli11-dev libyaml-cpp-dev libcpp-httplib-dev
  libarchive-dev libcurl4-openssl-dev libssl-dev libdeflate-dev zlib1g-dev
  libgrpc++-dev libprotobuf-dev protobuf-compiler protobuf-compiler-grpc
  libgloo-dev libopenblas-dev libeigen3-dev
  libsqlite3-dev  # sdk: the job store's index (sdk/job_index.h)
  libnlopt-dev  # sdk/hptune: L-BFGS for the Gaussian process fit, BOBYQA for expected improvement
  libgtest-dev libgmock-dev googletest
  # real components used by integration tests and later backends
  docker-registry apache2-utils skopeo umoci runc busybox-static
  slirp4netns  # Dockerfile RUN's network: a namespace of its own, no host loopback (packager/run)
  debootstrap  # dockerfiles/build-bases.sh: the minimal Debian 12 rootfs of trainpkg/debian, imported by trainpkg
  slurm-wlm slurmrestd munge
  openssh-client openssh-server  # sdk/ssh runs replicas through ssh/scp; its tests run sshd in network namespaces
  procps psmisc curl
  file  # cpack -G DEB (tests/install): CPackDeb asks file(1) which files are ELF and unstripped
  zsh groff-base man-db  # tests/sdk/cli_docs_test: the generated zsh completion and man pages, read by zsh and man
  nodejs  # tests/sdk/k8s, tests/samples/ci: offline schema validation of the Kubernetes manifests and the CI pipelines (npm below)
  chromium  # tests/sdk/dashboard: serve's dashboard in a real browser (playwright-core, npm below)
  python3-torch  # samples/pytorch_ddp_digits: its test runs the PyTorch trainer (bench/collectives too)
  # peers the layer tests measure against
  pigz
  libzstd-dev zstd
)

BENCH_PACKAGES=(
  buildah           # bench/build: buildah bud --storage-driver vfs (build_bench.py, bases_bench.py)
  libopenmpi-dev openmpi-bin  # bench/collectives: MPI_Allreduce
  python3-optuna    # bench/hptune: Optuna 3.1 TPE, multivariate TPE and CMA-ES (hptune_bench --optuna)
  pdsh              # bench/ssh: launching replicas over SSH by hand (pdsh -R ssh)
)
if [ "${1:-}" = "--bench" ]; then
  PACKAGES+=("${BENCH_PACKAGES[@]}")
elif [ -n "${1:-}" ]; then
  echo "install-deps: unknown option '$1' (valid: --bench)" >&2
  exit 2
fi

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive

# Some nodejs builds carry npm; Debian's split it into the npm package.
if ! command -v npm >/dev/null 2>&1; then missing+=(npm); fi

if [ "${#missing[@]}" -eq 0 ]; then
  echo "install-deps: all ${#PACKAGES[@]} packages present"
else
  echo "install-deps: installing ${#missing[@]} package(s): ${missing[*]}"
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# Test-only npm packages, each directory pinned by its package-lock.json:
# tests/sdk/k8s (kubernetes-models, ajv) validates the Kubernetes manifests,
# tests/samples/ci (schemastore, ajv, yaml) the CI-pipeline samples, offline;
# tests/sdk/dashboard (playwright-core, driving Debian's chromium; it
# downloads no browser) the dashboard's browser test.
# Skipped when already installed from the lockfile; a failure (no registry)
# only warns, and that test then skips.
REPO_ROOT="$(cd "$(dirname "$0")/.." && pwd)"
npm_ci() {  # npm_ci DIR (relative to the repository) WHAT-ITS-TEST-CHECKS
  local dir="$REPO_ROOT/$1"
  if [ "$dir/node_modules/.package-lock.json" -nt "$dir/package-lock.json" ]; then
    echo "install-deps: npm packages of $1 present"
  elif (cd "$dir" && npm ci --prefer-offline --no-audit --no-fund --loglevel=error); then
    echo "install-deps: installed the npm packages of $1"
  else
    echo "install-deps: warning: npm ci in $1 failed; the $2 test will skip" >&2
  fi
}
npm_ci tests/sdk/k8s "Kubernetes manifest schema"
npm_ci tests/samples/ci "CI-pipeline schema"
npm_ci tests/sdk/dashboard "dashboard browser"
echo "install-deps: done"
