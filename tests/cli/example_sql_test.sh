#!/usr/bin/env bash
# Runs examples/sql_example.cc (SQL through the public header tributary/sql.h: statements, a
# prepared point lookup, a query read in column batches) on a fresh warehouse and compares its
# whole output; anything on stderr or a non-zero exit status fails it.
# Usage: tests/cli/example_sql_test.sh path/to/example_sql_example WAREHOUSE_DIR
set -uo pipefail
bin=$1
wh=$2
rm -rf "$wh"
out=$(mktemp)
err=$(mktemp)
trap 'rm -f "$out" "$err"; rm -rf "$wh"' EXIT
"$bin" "$wh" >"$out" 2>"$err"
rc=$?
expected='Table default.fruit created
Inserted 3 rows
Updated 1 row
id 1: apple 3.00
id 4: none
n = 3, total = 5.00'
status=0
if [ "$rc" -ne 0 ]; then
  echo "FAIL example_sql: exit status $rc (want 0)"
  status=1
fi
if [ "$(cat "$out"; echo .)" != "$expected
." ]; then
  echo "FAIL example_sql: stdout differs (want, then got):"
  printf '%s\n' "$expected" | sed 's/^/  want| /'
  sed 's/^/  got | /' "$out"
  status=1
fi
if [ -s "$err" ]; then
  echo "FAIL example_sql: stderr is not empty:"
  sed 's/^/  /' "$err"
  status=1
fi
[ "$status" -eq 0 ] && echo "example_sql: ok"
exit "$status"
