#!/usr/bin/env bash
# `npm test`: lint (tsc + ESLint), the Temporal CLI when missing, the whole jest suite (unit and
# integration projects), then the recorded-history replay guard; prints each step's time and the
# total at the end, whether it passed or not. After jest it prints the ten slowest test files and
# jest's time against the suite's budget (20 minutes on 2 cores): a figure to watch as the suite
# grows, never a failure. Extra arguments go to jest.
set -uo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
times=()
JEST_BUDGET_S=1200
results=$(mktemp -d)
trap 'rm -rf "$results"' EXIT
step() {
  local name=$1 t0=$SECONDS rc
  shift
  "$@"
  rc=$?
  times+=("$name $((SECONDS - t0)) s")
  if [ "$name" = jest ]; then slowest "$((SECONDS - t0))"; fi
  if [ $rc -ne 0 ]; then
    echo "npm test: FAILED at $name after $((SECONDS - start)) s total ($(IFS=,; echo "${times[*]}" | sed 's/,/, /g'))"
    exit $rc
  fi
}
# The slowest files of jest's run (its --json results) and jest's time against the budget.
slowest() {
  [ -s "$results/jest.json" ] || return 0
  node -e '
    const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    const files = r.testResults.map((t) => [(t.endTime - t.startTime) / 1000, require("path").relative(process.cwd(), t.name)]);
    const total = files.reduce((s, [d]) => s + d, 0);
    console.log(`jest: ${files.length} files, ${total.toFixed(0)} s of file time; the slowest:`);
    for (const [d, f] of files.sort((a, b) => b[0] - a[0]).slice(0, 10)) console.log(`  ${d.toFixed(1).padStart(7)} s  ${f}`);
    const wall = Number(process.argv[2]), budget = Number(process.argv[3]);
    console.log(`jest: ${wall} s of the ${budget} s budget${wall > budget ? " (OVER: look at the slowest files above)" : ""}`);
  ' "$results/jest.json" "$1" "$JEST_BUDGET_S" || true
}
step lint npm run -s lint
step temporal-cli bash -c 'bash scripts/install-temporal.sh >/dev/null'
step jest npx jest --runInBand=false --json --outputFile="$results/jest.json" "$@"
step replay:compat npm run -s replay:compat
echo "npm test: passed in $((SECONDS - start)) s total ($(IFS=,; echo "${times[*]}" | sed 's/,/, /g'))"
