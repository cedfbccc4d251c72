#!/usr/bin/env bash
# Runs examples/sql_example.cc (SQL through the public header tributary/sql.h: statements, a
# prepared point lookup, a query read in column batches) and compares its whole output.
# Usage: tests/cli/example_sql_test.sh path/to/example_sql_example WAREHOUSE_DIR
exec bash "$(dirname "$0")/example_check.sh" example_sql "$1" "$2" 'Table default.fruit created
Inserted 3 rows
Updated 1 row
id 1: apple 3.00
id 4: none
n = 3, total = 5.00'
