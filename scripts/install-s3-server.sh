#!/usr/bin/env bash
# Installs gofakes3 (an S3-compatible HTTP server with a filesystem backend, used by the tests of
# the s3 store backend) into a project-local folder (.tools/s3/), idempotently, built from the Go
# module proxy. LOOM_S3_SERVER_PATH overrides it entirely. Prints the binary's path.
set -euo pipefail
cd "$(dirname "$0")/.."
GOFAKES3_VERSION="${GOFAKES3_VERSION:-v1.2.0}"
TOOLS="$PWD/.tools"
BIN="$TOOLS/s3/bin/gofakes3"

if [ -n "${LOOM_S3_SERVER_PATH:-}" ]; then
  if [ -x "$LOOM_S3_SERVER_PATH" ]; then echo "$LOOM_S3_SERVER_PATH"; exit 0; fi
  echo "[install-s3-server] LOOM_S3_SERVER_PATH=$LOOM_S3_SERVER_PATH is not an executable file" >&2
  exit 1
fi
if [ -x "$BIN" ]; then echo "$BIN"; exit 0; fi

GO=$(command -v go || true)
[ -z "$GO" ] && [ -x /usr/local/go/bin/go ] && GO=/usr/local/go/bin/go
if [ -z "$GO" ]; then
  echo "[install-s3-server] no Go toolchain (go on PATH or /usr/local/go/bin/go): install Go, or set LOOM_S3_SERVER_PATH to a gofakes3 binary" >&2
  exit 1
fi
echo "[install-s3-server] building github.com/johannesboyne/gofakes3/cmd/gofakes3@$GOFAKES3_VERSION into .tools/s3/bin" >&2
mkdir -p "$TOOLS/s3/bin"
GOFLAGS=-mod=mod GOBIN="$TOOLS/s3/bin" "$GO" install "github.com/johannesboyne/gofakes3/cmd/gofakes3@$GOFAKES3_VERSION" >&2
echo "$BIN"
