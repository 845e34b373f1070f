#!/usr/bin/env bash
# Installs headless Chromium and a monospace font for the HTML views' tests
# (tests/integration/html_view.rs) and the screenshots (ci/screenshots.sh),
# with a font for wide (CJK) characters:
# the tests read computed colours and attributes of the pages' cells.
set -euo pipefail
if command -v chromium >/dev/null 2>&1 && fc-list 2>/dev/null | grep -qi 'DejaVu Sans Mono' && fc-list 2>/dev/null | grep -qi 'WenQuanYi'; then
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends chromium fonts-dejavu-core fonts-wqy-microhei fontconfig
chromium --version
