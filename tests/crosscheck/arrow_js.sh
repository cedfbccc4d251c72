#!/usr/bin/env bash
# Slow tier (not part of `make test`): cross-checks the in-house Arrow IPC streams
# (src/format/arrow/) against apache-arrow, the Arrow project's JavaScript implementation.
#   1. format_test writes tributary-<codec>.arrows, plain, LZ4_FRAME and ZSTD bodies
#      (disabled test ArrowCrossCheck.*Write*);
#   2. arrow_js.js reads them with arrow-js, compares every value and every compressed buffer's
#      length, and writes arrowjs-none.arrows with the same rows built by arrow-js;
#   3. format_test reads arrow-js's stream back (ArrowCrossCheck.*Read*).
# Usage: tests/crosscheck/arrow_js.sh [build-dir]. Needs node, npm (registry access), zstd, lz4.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
for tool in node npm zstd lz4; do
  command -v "$tool" >/dev/null || { echo "arrow_js: $tool not found" >&2; exit 1; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm init -y >/dev/null &&
  npm install --silent --no-audit --no-fund apache-arrow@21.2.0 >/dev/null)
export TRIBUTARY_ARROW_CROSSCHECK_DIR=$work
run_test() {
  "$build/format_test" --gtest_also_run_disabled_tests --gtest_brief=1 --gtest_filter="$1"
}
run_test 'ArrowCrossCheck.DISABLED_WriteStreamsForArrowJs'
NODE_PATH=$work/node_modules node "$root/tests/crosscheck/arrow_js.js" "$work"
run_test 'ArrowCrossCheck.DISABLED_ReadStreamsWrittenByArrowJs'
echo "arrow_js: OK"
