#!/usr/bin/env bash
# Slow tier (not part of `make test`): cross-checks the in-house Parquet codec
# (src/format/parquet/) against DuckDB, an independent implementation, in both directions, for
# every column type, every codec (none, snappy, gzip, zstd, lz4_raw), dictionary and plain,
# data pages v1 and v2, and the DELTA and BYTE_STREAM_SPLIT encodings.
#   1. format_test writes <variant>.parquet + <variant>.json (disabled test
#      ParquetCrossCheck.*Write*);
#   2. parquet_duckdb.js reads them with DuckDB's read_parquet, compares every value, field id
#      and codec, and rewrites each file with DuckDB's writer as duckdb-<variant>.parquet;
#   3. format_test reads DuckDB's files back (ParquetCrossCheck.*Read*).
# Usage: tests/crosscheck/parquet_duckdb.sh [build-dir]. Needs node, npm (registry access).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
for tool in node npm; do
  command -v "$tool" >/dev/null || { echo "parquet_duckdb: $tool not found" >&2; exit 1; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm init -y >/dev/null &&
  npm install --silent --no-audit --no-fund @duckdb/node-api@1.5.6-r.1 >/dev/null)
export TRIBUTARY_PARQUET_CROSSCHECK_DIR=$work/files
mkdir -p "$TRIBUTARY_PARQUET_CROSSCHECK_DIR"
run_test() {
  "$build/format_test" --gtest_also_run_disabled_tests --gtest_brief=1 --gtest_filter="$1"
}
run_test 'ParquetCrossCheck.DISABLED_WriteFilesForDuckDB'
NODE_PATH=$work/node_modules node "$root/tests/crosscheck/parquet_duckdb.js" \
  "$TRIBUTARY_PARQUET_CROSSCHECK_DIR"
run_test 'ParquetCrossCheck.DISABLED_ReadFilesWrittenByDuckDB'
echo "parquet_duckdb: OK"
