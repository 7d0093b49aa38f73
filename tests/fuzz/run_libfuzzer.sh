#!/usr/bin/env bash
# Runs one libFuzzer binary (TRAINPKG_FUZZ build) for SECONDS on a scratch
# copy of its seed corpus, so new inputs never land in the repository:
#   run_libfuzzer.sh BINARY CORPUS_DIR DICT MAX_LEN SECONDS SCRATCH_DIR
# Reproducers (crash-*, leak-*, timeout-*, oom-*) go to
# SCRATCH_DIR/<binary>/artifacts/, the log to .../log, and one summary line
# (seconds, executions, corpus growth, reproducers) to .../summary. The exit
# status is libFuzzer's: non-zero when it found something.
set -uo pipefail
if [[ $# -ne 6 ]]; then
  echo "usage: $0 BINARY CORPUS_DIR DICT MAX_LEN SECONDS SCRATCH_DIR" >&2
  exit 2
fi
binary=$1 corpus=$2 dict=$3 max_len=$4 seconds=$5 scratch=$6
name=$(basename "$binary")
work="$scratch/$name"
rm -rf "$work"
mkdir -p "$work/corpus" "$work/artifacts"
cp -R "$corpus/." "$work/corpus/"
seeds=$(find "$work/corpus" -type f | wc -l)
start=$(date +%s)
# -rss_limit_mb: 2 GiB, far above anything a bounded parser needs (also the
# largest single allocation); -timeout: one input taking 25 s is a hang.
"$binary" -max_total_time="$seconds" -dict="$dict" -max_len="$max_len" \
  -rss_limit_mb=2048 -timeout=25 -print_final_stats=1 \
  -artifact_prefix="$work/artifacts/" "$work/corpus" >"$work/log" 2>&1
status=$?
elapsed=$(( $(date +%s) - start ))
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log" | tail -1)
found=$(find "$work/corpus" -type f | wc -l)
artifacts=$(cd "$work/artifacts" && ls | tr '\n' ' ')
printf '%-34s %4ss %10s execs  corpus %s->%s  exit %s  %s\n' "$name" "$elapsed" "${execs:-?}" \
  "$seeds" "$found" "$status" "${artifacts:-no reproducers}" | tee "$work/summary"
if [[ $status -ne 0 ]]; then
  grep -E 'ERROR:|SUMMARY:|==[0-9]+==|Check failed|terminate' "$work/log" | head -20
fi
exit $status
