#!/usr/bin/env bash
# Runs the crash, concurrency, hostile-input, expiration and streaming tests against a tributary
# binary.
# Usage: tests/crash/run_all.sh [path/to/tributary] [extra arguments for concurrency_test.py]
# e.g.   tests/crash/run_all.sh build/tributary --statements 300
set -uo pipefail
DIR=$(cd "$(dirname "$0")" && pwd)
BIN=${1:-build/tributary}
shift || true
status=0
python3 "$DIR/crash_test.py" --binary "$BIN" || status=1
python3 "$DIR/concurrency_test.py" --binary "$BIN" "$@" || status=1
python3 "$DIR/repro_seq_tie_compaction.py" "$BIN" || status=1
python3 "$DIR/partial_columns_test.py" --binary "$BIN" || status=1
python3 "$DIR/dynamic_bucket_test.py" --binary "$BIN" || status=1
python3 "$DIR/hostile_input_test.py" --binary "$BIN" || status=1
python3 "$DIR/hostile_input_round2_test.py" --binary "$BIN" || status=1
python3 "$DIR/expire_crash_test.py" --binary "$BIN" || status=1
python3 "$DIR/expire_age_test.py" --binary "$BIN" || status=1
python3 "$DIR/orphan_files_test.py" --binary "$BIN" || status=1
python3 "$DIR/streaming_test.py" --binary "$BIN" || status=1
python3 "$DIR/exact_streams_test.py" --binary "$BIN" || status=1
python3 "$DIR/stream_job_test.py" --binary "$BIN" || status=1
python3 "$DIR/s3_smoke_test.py" --binary "$BIN" || status=1
python3 "$DIR/s3_tools_test.py" --binary "$BIN" || status=1
python3 "$DIR/rescale_concurrency_test.py" --binary "$BIN" || status=1
if [ "$status" -ne 0 ]; then
  echo "tests/crash: FAILED (see the FAIL lines above)" >&2
else
  echo "tests/crash: all passed"
fi
exit "$status"
