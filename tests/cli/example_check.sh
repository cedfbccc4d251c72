#!/usr/bin/env bash
# Runs an example program on a fresh warehouse and compares its whole output with what it must
# print: other output, anything on stderr or a non-zero exit status fails it.
# Usage: tests/cli/example_check.sh NAME path/to/example WAREHOUSE_DIR EXPECTED_STDOUT
set -uo pipefail
name=$1
bin=$2
wh=$3
expected=$4
rm -rf "$wh"
out=$(mktemp)
err=$(mktemp)
trap 'rm -f "$out" "$err"; rm -rf "$wh"' EXIT
"$bin" "$wh" >"$out" 2>"$err"
rc=$?
status=0
if [ "$rc" -ne 0 ]; then
  echo "FAIL $name: exit status $rc (want 0)"
  status=1
fi
if [ "$(cat "$out"; echo .)" != "$expected
." ]; then
  echo "FAIL $name: stdout differs (want, then got):"
  printf '%s\n' "$expected" | sed 's/^/  want| /'
  sed 's/^/  got | /' "$out"
  status=1
fi
if [ -s "$err" ]; then
  echo "FAIL $name: stderr is not empty:"
  sed 's/^/  | /' "$err"
  status=1
fi
[ "$status" -eq 0 ] && echo "ok   $name: its whole output, exit status 0"
exit "$status"
