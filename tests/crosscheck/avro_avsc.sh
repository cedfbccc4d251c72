#!/usr/bin/env bash
# Slow tier (not part of `make test`): cross-checks the in-house Avro codec
# (src/format/avro*.cc) against avsc, an independent JavaScript implementation, in both
# directions and for every codec (null, deflate, snappy with its CRC, zstandard).
#   1. format_test writes tributary-<codec>.avro (disabled test AvroCrossCheck.*Write*);
#   2. avro_avsc.js reads them with avsc, compares every record, writes avsc-<codec>.avro;
#   3. format_test reads avsc's files back (AvroCrossCheck.*Read*).
# Usage: tests/crosscheck/avro_avsc.sh [build-dir]. Needs node, npm (registry access), zstd.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
for tool in node npm zstd; do
  command -v "$tool" >/dev/null || { echo "avro_avsc: $tool not found" >&2; exit 1; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm init -y >/dev/null &&
  npm install --silent --no-audit --no-fund avsc@5.7.9 snappyjs@0.7.0 >/dev/null)
export TRIBUTARY_AVRO_CROSSCHECK_DIR=$work
run_test() {
  "$build/format_test" --gtest_also_run_disabled_tests --gtest_brief=1 --gtest_filter="$1"
}
run_test 'AvroCrossCheck.DISABLED_WriteFilesForAvsc'
NODE_PATH=$work/node_modules node "$root/tests/crosscheck/avro_avsc.js" "$work"
run_test 'AvroCrossCheck.DISABLED_ReadFilesWrittenByAvsc'
echo "avro_avsc: OK"
