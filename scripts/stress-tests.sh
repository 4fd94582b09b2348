#!/usr/bin/env bash
# Runs the e2e project N times (default 5) from a fresh clone of this repository's HEAD and
# counts the failing runs. Usage: scripts/stress-tests.sh [N] [extra vitest args…]
# Each run's output is kept in $OUT (printed at the end); exit status 1 if any run failed.
set -uo pipefail
N="${1:-5}"
shift || true
SRC="$(cd "$(dirname "$0")/.." && pwd)"
WORK="$(mktemp -d -t hw-stress-XXXXXX)"
OUT="${OUT:-$WORK/logs}"
mkdir -p "$OUT"
export WRANGLER_SEND_METRICS=false

git clone -q "$SRC" "$WORK/repo"
cd "$WORK/repo"
npm ci --no-audit --no-fund >"$OUT/npm-ci.log" 2>&1 || { echo "npm ci failed, see $OUT/npm-ci.log"; exit 2; }

failed=0
for i in $(seq 1 "$N"); do
  start=$(date +%s)
  if npx vitest run --project e2e "$@" >"$OUT/run-$i.log" 2>&1; then result=pass; else result=FAIL; failed=$((failed + 1)); fi
  summary=$(sed 's/\x1b\[[0-9;]*m//g' "$OUT/run-$i.log" | grep -E "^ +Tests +[0-9]" | tail -1 | tr -s ' ')
  echo "run $i/$N: $result in $(($(date +%s) - start)) s —$summary"
done
echo "failed runs: $failed of $N (logs in $OUT)"
[ "$failed" -eq 0 ]
