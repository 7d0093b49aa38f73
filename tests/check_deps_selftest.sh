#!/usr/bin/env bash
# Proves scripts/check_deps.py catches each kind of violation and passes a clean tree.
set -euo pipefail
script="$1"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

expect_fail() {  # expect_fail <file> <include line> <message fragment>
  rm -rf "$tmp/tree" && mkdir -p "$tmp/tree/$(dirname "$1")"
  printf '%s\n' "$2" > "$tmp/tree/$1"
  if out="$(python3 "$script" "$tmp/tree")"; then
    echo "FAIL: $1 with '$2' passed the check"; exit 1
  fi
  grep -q -- "$3" <<<"$out" || { echo "FAIL: expected '$3' in: $out"; exit 1; }
}

expect_fail trainer_runtime/a.cc '#include "sdk/custom_job.h"' "may not include sdk/custom_job.h"
expect_fail trainer_runtime/a.cc '#include <curl/curl.h>' "must not include <curl/curl.h>"
expect_fail trainer_runtime/a.cc '#include "http/http_transport.h"' "may not include http/http_transport.h"
expect_fail http/a.cc '#include "registry/registry_error.h"' "http/ may not include"
expect_fail jobspec/a.h '#include "trainer_runtime/cluster_info.h"' "jobspec/ may not include"
expect_fail registry/oci/a.cc '#include "registry/client.h"' "registry/oci/ may not include"
expect_fail sdk/cli/main.cc '#include "sdk/internal/x.h"' "internal to sdk/"
expect_fail samples/x/main.cc '#include "jobspec/internal/y.h"' "public headers only"
expect_fail sdk/k8s/k8s_client.cc '#include "sdk/vertex/rpc_error.h"' "backends never include each other"
expect_fail sdk/slurm/internal/b.h '#include "sdk/local/internal/local_process_backend.h"' "backends never include each other"
expect_fail sdk/internal/supervised_record.cc '#include "sdk/local/internal/runc_container_launcher.h"' "is the sdk's core"
expect_fail sdk/auth/jwt.cc '#include "sdk/vertex/vertex_client.h"' "is the sdk's core"

rm -rf "$tmp/tree" && mkdir -p "$tmp/tree/sdk" "$tmp/tree/trainer_runtime"
echo '#include "jobspec/custom_job.h"' > "$tmp/tree/sdk/a.cc"
echo '#include "sdk/internal/x.h"' > "$tmp/tree/sdk/b.cc"
mkdir -p "$tmp/tree/sdk/k8s"
echo '#include "sdk/internal/line_stream.h"' > "$tmp/tree/sdk/k8s/d.cc"
echo '#include "sdk/vertex/vertex_driver.h"' > "$tmp/tree/sdk/backend_table.cc"
mkdir -p "$tmp/tree/sdk/local/internal"
echo '#include "sdk/internal/supervised_job.h"' > "$tmp/tree/sdk/local/internal/e.cc"
echo '#include "jobspec/cluster_env.h"' > "$tmp/tree/trainer_runtime/c.cc"
mkdir -p "$tmp/tree/registry"
echo '#include "http/retry_transport.h"' > "$tmp/tree/registry/e.cc"
echo '#include "http/http_transport.h"' > "$tmp/tree/sdk/k8s/f.cc"
python3 "$script" "$tmp/tree" >/dev/null || { echo "FAIL: clean tree rejected"; exit 1; }
echo "check_deps self-test: 13 cases passed"
