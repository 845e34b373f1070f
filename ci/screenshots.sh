#!/usr/bin/env bash
# Remakes the screenshots of the three kinds of `rea show --html` page in
# docs/ (docs/html-capture.png, docs/html-comparison.png, docs/html-suite.png)
# with headless Chromium (ci/setup-chromium.sh installs it): a capture of
# coloured output, a screen-lens comparison whose one cell changed colour,
# and the example suite (examples/suite).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --quiet
rea="${CARGO_TARGET_DIR:-$(pwd)/target}/debug/rea"
repo=$(pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
scenario() { # NAME FORMAT: a scenario printing FORMAT on a 60x12 terminal
  python3 -c 'import json,sys; print(json.dumps({"executable":"sh","arguments":["-c","printf '"'"'%s'"'"'" % sys.argv[1]],"terminal":{"columns":60,"rows":12},"timeout_ms":10000}))' "$2" > "$1.scenario.json"
  "$rea" capture-process "$1.scenario.json" --json > "$1.json" 2>/dev/null
}
screen='\033[1;7m rea demo \033[0m\n\n  \033[32mPASS\033[0m parser    \033[38;5;244m(12 ms)\033[0m\n  \033[31mFAIL\033[0m render    \033[38;2;255;160;0mwide: \344\270\255\346\226\207\033[0m\n  \033[4munderlined\033[0m \033[3mitalic\033[0m\n\nTotal: '
scenario authority "${screen}"'\033[31m1 failed\033[0m\n> '
scenario reconstruction "${screen}"'\033[32m1 failed\033[0m\n> '
"$rea" compare-process-captures authority.json reconstruction.json --terminal-lens screen --json > comparison.json || true
"$rea" run-suite "$repo/examples/suite/suite.json" --out results > /dev/null 2>&1 || true
"$rea" show --html authority.json > capture.html
"$rea" show --html comparison.json > comparison.html
"$rea" show --html results/suite.json > suite.html
for page in capture comparison suite; do
  chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$work/profile" \
    --window-size=1200,1400 --screenshot="$repo/docs/html-$page.png" "file://$work/$page.html" 2>/dev/null
  echo "docs/html-$page.png"
done
