#!/usr/bin/env bash
# Opens the reproduction report in a real browser (headless Chromium from
# Debian, installed with apt when missing) and checks that every figure loaded
# and every link resolves: the page's own check (index.html#check) reads each
# image's load state and each link's target and writes the counts into
# body[data-check]. A copy of the page with one missing figure and one broken
# link must fail the same check, so the check itself is tested.
#
# Usage: scripts/report-check.sh [RESULTS]  (default: results/ when it holds a
# report, else a temporary folder with two ci runs).
set -euo pipefail
cd "$(dirname "$0")/.."
hashbench="$(pwd)/target/debug/hashbench"

if ! command -v chromium >/dev/null; then
    echo "report-check: installing chromium (Debian package)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -qq --no-install-recommends chromium >/dev/null ||
        { apt-get update -qq && apt-get install -y -qq --no-install-recommends chromium >/dev/null; }
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
results=${1:-}
if [ -z "$results" ]; then
    if [ -f results/index.html ]; then
        results=results
    else
        results="$tmp/results"
        for spec in experiments/splh/fig3.toml experiments/spah/fig5-mnist.toml; do
            "$hashbench" --results "$results" run "$spec" --profile ci >/dev/null
        done
    fi
fi
"$hashbench" --results "$results" report
results=$(cd "$results" && pwd)

# prints the page's check result: {"images":..,"bad_images":[..],"links":..,"broken_links":[..]}
check() {
    chromium --headless --no-sandbox --disable-gpu --allow-file-access-from-files \
        --user-data-dir="$tmp/profile" --virtual-time-budget=30000 \
        --dump-dom "file://$1#check" 2>/dev/null |
        python3 -c 'import html, re, sys; m = re.search(r"data-check=\"([^\"]*)\"", sys.stdin.read()); print(html.unescape(m.group(1)) if m else "")'
}

outcome=$(check "$results/index.html")
echo "report-check: $outcome"
python3 - "$outcome" <<'EOF'
import json, sys
if not sys.argv[1]:
    sys.exit("report-check: the page's check never ran")
c = json.loads(sys.argv[1])
if c["images"] == 0 or c["bad_images"] or c["broken_links"]:
    sys.exit(f"report-check: {len(c['bad_images'])} of {c['images']} figures did not load, {len(c['broken_links'])} of {c['links']} links do not resolve")
print(f"report-check: all {c['images']} figures loaded and all {c['links']} links resolve")
EOF

# the check must catch a missing figure and a broken link
broken="$results/index-broken-check.html"
trap 'rm -rf "$tmp" "$broken"' EXIT
sed -e '0,/<img src="[^"]*"/s//<img src="no-such-figure.png"/' \
    -e '0,/<a href="[^#"][^"]*"/s//<a href="no-such-file.csv"/' "$results/index.html" >"$broken"
outcome=$(check "$broken")
python3 - "$outcome" <<'EOF'
import json, sys
c = json.loads(sys.argv[1])
if c["bad_images"] != ["no-such-figure.png"] or c["broken_links"] != ["no-such-file.csv"]:
    sys.exit(f"report-check: a broken copy of the page passed the check: {c}")
print("report-check: a copy with a missing figure and a broken link fails the check, as it must")
EOF
