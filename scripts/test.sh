#!/usr/bin/env bash
# `npm test`: lint (tsc + ESLint), the Temporal CLI when missing, the whole jest suite (unit and
# integration projects), then the recorded-history replay guard; prints each step's time and the
# total at the end, whether it passed or not. Extra arguments go to jest.
set -uo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
times=()
step() {
  local name=$1 t0=$SECONDS rc
  shift
  "$@"
  rc=$?
  times+=("$name $((SECONDS - t0)) s")
  if [ $rc -ne 0 ]; then
    echo "npm test: FAILED at $name after $((SECONDS - start)) s total ($(IFS=,; echo "${times[*]}" | sed 's/,/, /g'))"
    exit $rc
  fi
}
step lint npm run -s lint
step temporal-cli bash -c 'bash scripts/install-temporal.sh >/dev/null'
step jest npx jest --runInBand=false "$@"
step replay:compat npm run -s replay:compat
echo "npm test: passed in $((SECONDS - start)) s total ($(IFS=,; echo "${times[*]}" | sed 's/,/, /g'))"
