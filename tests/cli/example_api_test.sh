#!/usr/bin/env bash
# Runs examples/api_example.cc (upserts, a delete, a commit and a scan through the public headers)
# and compares its whole output with what it must print: a deleted row printed, a row printed
# twice, a wrong value, anything on stderr or a non-zero exit status after the rows all fail it.
# Usage: tests/cli/example_api_test.sh path/to/example_api_example WAREHOUSE_DIR
exec bash "$(dirname "$0")/example_check.sh" example_api "$1" "$2" 'committed snapshot 1
1 | apple | 3.00'
