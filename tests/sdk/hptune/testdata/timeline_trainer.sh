#!/bin/sh
# A tiny trial trainer for the tuning service's integration tests.
#   timeline_trainer.sh [--sleep=SECONDS] --x=VALUE
# Records "start <ns>" / "end <ns>" in $TIMELINE_DIR/<trial id> and its pid
# in $TIMELINE_DIR/pid-<trial id>, reports metric $CLOUD_ML_HP_METRIC_TAG =
# 1 - |x - 0.3| to $CLOUD_ML_HP_METRIC_FILE, then sleeps.
set -e
sleep_s=0.3
x=0
for arg in "$@"; do
  case "$arg" in
    --sleep=*) sleep_s=${arg#--sleep=} ;;
    --x=*) x=${arg#--x=} ;;
  esac
done
echo "start $(date +%s%N)" >> "$TIMELINE_DIR/$CLOUD_ML_TRIAL_ID"
echo $$ > "$TIMELINE_DIR/pid-$CLOUD_ML_TRIAL_ID"
value=$(awk -v x="$x" 'BEGIN { d = x - 0.3; if (d < 0) d = -d; printf "%.6f", 1 - d }')
mkdir -p "$(dirname "$CLOUD_ML_HP_METRIC_FILE")"
printf '{"checkpoint_path": "", "global_step": "1", "%s": "%s", "timestamp": 0, "trial": "%s"}\n' \
  "$CLOUD_ML_HP_METRIC_TAG" "$value" "$CLOUD_ML_TRIAL_ID" > "$CLOUD_ML_HP_METRIC_FILE.tmp"
mv "$CLOUD_ML_HP_METRIC_FILE.tmp" "$CLOUD_ML_HP_METRIC_FILE"
sleep "$sleep_s"
echo "end $(date +%s%N)" >> "$TIMELINE_DIR/$CLOUD_ML_TRIAL_ID"
