#!/usr/bin/env bash
# Installs what the browser tests need: Debian's Chromium (apt-get) and the Playwright
# Python package (from the venv's [dev] extra). Idempotent and quick when already there.
# It never downloads a browser any other way and never runs `playwright install`:
# the tests drive /usr/bin/chromium directly.
set -euo pipefail

if [ ! -x /usr/bin/chromium ]; then
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "install-browser-deps: /usr/bin/chromium is missing and apt-get is not available;" \
         "install Debian's 'chromium' package by hand" >&2
    exit 1
  fi
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  echo "install-browser-deps: installing Debian's chromium (apt-get)"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
    chromium fonts-dejavu-core >/dev/null
fi

PY="${PY:-.venv/bin/python}"
if [ -x "$PY" ] && ! "$PY" -c "import playwright" >/dev/null 2>&1; then
  echo "install-browser-deps: installing the playwright Python package"
  "$PY" -m pip install -q "playwright>=1.40"
fi
