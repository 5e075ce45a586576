#!/usr/bin/env bash
# `npm run demo`: works on a fresh clone with nothing run first.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -d node_modules/@temporalio/worker ]; then
  echo "demo: installing npm packages (first run)…"
  npm ci --no-audit --no-fund --loglevel=error || npm install --no-audit --no-fund --loglevel=error
fi
bash scripts/install-temporal.sh >/dev/null
exec node -r ts-node/register/transpile-only scripts/demo.ts "$@"
