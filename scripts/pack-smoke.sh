#!/usr/bin/env bash
# The package as a stranger gets it: `npm pack`, install the tarball into an empty folder, and run
# every kind of command from there (the library from ESM and CommonJS, help, prune, cat, grep, the daemon they start, run/show/out, one
# bench case, the MCP server's tool list). Run by CI after the tests; needs the npm registry for the
# dependencies. Packs the build in dist/ as it is (CI's `npm ci` made it; without one, this builds
# it first), so CI builds once.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
work=$(mktemp -d)
# the daemon the read commands start lives in this run's directory and is stopped with it
export SKIM_DAEMON_DIR="$work/daemon"
trap '"$work/app/node_modules/.bin/skim" daemon stop > /dev/null 2>&1 || true; rm -rf "$work"' EXIT
[ -f dist/cli/launch.js ] || npm run build
npm pack --ignore-scripts --silent --pack-destination "$work" > /dev/null
mkdir "$work/app"
cd "$work/app"
npm init -y > /dev/null
npm install --no-audit --no-fund --silent "$work"/skim-pruner-*.tgz
skim=./node_modules/.bin/skim
pkg=./node_modules/skim-pruner
q='Where are the caplog records replaced instead of cleared?'

"$skim" --version
# the library, from an ES module and from CommonJS
node --input-type=module -e "import { prune } from 'skim-pruner'; await prune({ code: 'x = 1\\n', query: 'x?' });"
node --input-type=commonjs -e "require('skim-pruner').prune({ code: 'x = 1\\n', query: 'x?' })"
"$skim" --help > /dev/null
"$skim" prune "$pkg/examples/logging.py" --query "$q" --ratio 4 | grep -q 'lines omitted'
"$skim" cat "$pkg/examples/logging.py" --focus "$q" --max-chars 4000 | grep -q 'self.handler.reset()'
"$skim" grep 'def reset' "$pkg/examples" | grep -q 'logging.py'
# the daemon the first read started answers the next one
for _ in $(seq 100); do "$skim" daemon status > /dev/null && break; sleep 0.2; done
"$skim" cat "$pkg/examples/logging.py" --focus "$q" --max-chars 4000 | grep -q 'self.handler.reset()'
"$skim" daemon status | grep -q '[1-9][0-9]* request(s) served'
"$skim" bench --cases "$repo/test/fixtures/bench/real-swebench.jsonl" --methods skim,bm25 --limit 1 | grep -q '| skim |'
# run, out and show: a real test run replayed, its marker expanded from the session
export SKIM_SESSION_DIR="$work/sessions" SKIM_SESSION=smoke
marker=$("$skim" run --focus 'Why does test_clear_resets_records fail?' -- cat "$pkg/examples/mini-swe-agent/pytest-caplog.txt" | grep -o 'skim show [0-9a-f]*:[0-9-]*')
"$skim" show "${marker#skim show }" | grep -q 'test_level_name\[0\] PASSED'
"$skim" out --command "cat $pkg/examples/mini-swe-agent/pytest-caplog.txt" < "$pkg/examples/mini-swe-agent/pytest-caplog.txt" | grep -q 'lines as in the previous run'
unset SKIM_SESSION
printf '%s\n' \
  '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"smoke","version":"0"}}}' \
  '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
  '{"jsonrpc":"2.0","id":2,"method":"tools/list"}' \
  | "$skim" mcp --root "$pkg" 2> /dev/null | grep -q '"read_file"'
echo "pack smoke: the installed package loaded as a library (ESM and CommonJS) and ran help, prune, cat, grep, the daemon, run, show, out, bench and mcp"
