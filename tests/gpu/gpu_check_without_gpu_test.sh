#!/usr/bin/env bash
# scripts/gpu-check.sh on a machine without a GPU: exit 2 and a "no GPU"
# message within 10 s, having built nothing. Skipped (77) where a GPU device
# exists, since the script would then run the whole check.
set -uo pipefail
script="$1"
if compgen -G '/dev/nvidia[0-9]*' >/dev/null; then
  echo "a GPU device exists here: the no-GPU path cannot be exercised"
  exit 77
fi
# No nvidia-smi on the PATH: only the system directories, without the driver's.
bin="$(mktemp -d)"
trap 'rm -rf "$bin"' EXIT
for tool in bash dirname realpath sed grep cat compgen timeout; do
  if path="$(command -v "$tool")" && [ "${path#/}" != "$path" ]; then ln -s "$path" "$bin/$tool"; fi
done
start=$(date +%s%N)
out="$(PATH="$bin" "$bin/bash" "$script" 2>&1)"
rc=$?
elapsed_ms=$((($(date +%s%N) - start) / 1000000))
echo "exit $rc after ${elapsed_ms} ms: $out"
[ "$rc" -eq 2 ] || { echo "FAIL: exit status $rc, want 2"; exit 1; }
grep -q 'gpu-check: no GPU' <<<"$out" || { echo "FAIL: no 'gpu-check: no GPU' message"; exit 1; }
[ "$elapsed_ms" -lt 10000 ] || { echo "FAIL: took ${elapsed_ms} ms, want < 10 s"; exit 1; }
# And a usage error is not mistaken for a check.
out="$(PATH="$bin" "$bin/bash" "$script" --no-such-flag 2>&1)"
rc=$?
[ "$rc" -eq 2 ] && grep -q "unknown argument '--no-such-flag'" <<<"$out" ||
  { echo "FAIL: usage error: exit $rc: $out"; exit 1; }
echo PASS
