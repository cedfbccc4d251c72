#!/usr/bin/env bash
# `$row_tracking` on a row-tracking table before compaction: a copy of the golden table
# append_table_row_tracking_with_compact cut back to snapshot 2 (two appended files, no stored
# _ROW_ID/_SEQUENCE_NUMBER columns), where row ids come from each file's first row id plus the
# row's position and sequence numbers from the file's commit. They must equal the values the
# compacted file of snapshot 4 stores (compaction keeps row ids; the golden README lists them).
# Usage: tests/cli/row_tracking_test.sh [path/to/tributary] [golden warehouse dir]
set -euo pipefail

BIN=$(realpath "${1:-build/tributary}")
GOLDEN=${2:-$(dirname "$0")/../../../shared/golden/paimon-java/parquet}
WORK=$(mktemp -d /tmp/tributary-row-tracking-XXXXXX)
trap 'rm -rf "$WORK"' EXIT
T=append_table_row_tracking_with_compact

cp -r "$GOLDEN/$T.db" "$WORK/"
chmod -R u+w "$WORK"
rm -f "$WORK/$T.db/$T/snapshot/snapshot-3" "$WORK/$T.db/$T/snapshot/snapshot-4"
printf 2 > "$WORK/$T.db/$T/snapshot/LATEST"

sql() {
  "$BIN" sql --warehouse "$WORK" --format csv \
    -e "SELECT * FROM $T.\`$T\$$1\`" | tr -d '\r' | sort
}
files=$(sql files | grep -c 'data-' || true)
if [ "$files" != 2 ]; then
  echo "FAIL expected 2 uncompacted files at snapshot 2, found $files"
  exit 1
fi
want=$(printf '%s\n' 'Alice,3,13,3.1,1,1' 'Bob,4,14,4.1,2,2' 'David,5,15,5.1,3,2' 'Lily,2,12,2.1,0,1' \
  'f0,f1,f2,f3,_ROW_ID,_SEQUENCE_NUMBER' | sort)
got=$(sql row_tracking)
if [ "$got" != "$want" ]; then
  echo "FAIL \$row_tracking at snapshot 2"
  echo "expected:"; echo "$want"
  echo "actual:"; echo "$got"
  exit 1
fi
echo "ok   \$row_tracking before compaction: row ids from first row id + position"
