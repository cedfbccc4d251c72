#!/usr/bin/env bash
# Runs examples/api_example.cc (upserts, a delete, a commit and a scan through the public headers)
# and compares its whole output with what it must print: a deleted row printed, a row printed
# twice, a wrong value, anything on stderr or a non-zero exit status after the rows all fail it.
# Usage: tests/cli/example_api_test.sh path/to/example_api_example WAREHOUSE_DIR
set -uo pipefail
bin=$1
wh=$2
rm -rf "$wh"
out=$(mktemp)
err=$(mktemp)
trap 'rm -f "$out" "$err"; rm -rf "$wh"' EXIT
"$bin" "$wh" >"$out" 2>"$err"
rc=$?
expected='committed snapshot 1
1 | apple | 3.00'
status=0
if [ "$rc" -ne 0 ]; then
  echo "FAIL example_api: exit status $rc (want 0)"
  status=1
fi
if [ "$(cat "$out"; echo .)" != "$expected
." ]; then
  echo "FAIL example_api: stdout differs (want, then got):"
  printf '%s\n' "$expected" | sed 's/^/  want| /'
  sed 's/^/  got | /' "$out"
  status=1
fi
if [ -s "$err" ]; then
  echo "FAIL example_api: stderr is not empty:"
  sed 's/^/  | /' "$err"
  status=1
fi
[ "$status" -eq 0 ] && echo "ok   example_api: the merged rows, exit status 0"
exit "$status"
