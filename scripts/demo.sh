#!/usr/bin/env bash
# `npm run demo [-- --verbose]`: works on a fresh clone with nothing run first; exits 0 after the answer.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -d node_modules/@temporalio/worker ]; then
  echo "demo: installing npm packages (first run)…"
  npm ci --no-audit --no-fund --loglevel=error || npm install --no-audit --no-fund --loglevel=error
fi
bash scripts/install-temporal.sh >/dev/null
# SWC transpiles faster than TypeScript when it is installed (a dev dependency).
if [ -d node_modules/@swc/core ]; then export TS_NODE_SWC=true; fi
exec node -r ts-node/register/transpile-only scripts/demo.ts "$@"
