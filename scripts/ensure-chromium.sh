#!/usr/bin/env bash
# Installs Debian's Chromium when it is missing: the service's browser test of /docs
# (packages/service/src/http/docs-routes.e2e.test.ts) drives /usr/bin/chromium through playwright-core.
set -euo pipefail
if command -v chromium >/dev/null 2>&1 && [ -x /usr/bin/chromium ]; then
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1; then
  SUDO="sudo"
fi
$SUDO apt-get update
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends chromium
