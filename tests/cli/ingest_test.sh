#!/usr/bin/env bash
# Black-box test of `tributary ingest` with `tributary sql`: CREATE TABLE, ingest Debezium JSON
# from a file and from stdin, read the rows back, and check that a malformed line fails with its
# line number and leaves nothing after the last commit.
# Usage: tests/cli/ingest_test.sh [path/to/tributary]   (default: build/tributary)
set -euo pipefail

BIN=$(realpath "${1:-build/tributary}")
WORK=$(mktemp -d /tmp/tributary-ingest-sh-XXXXXX)
trap 'rm -rf "$WORK"' EXIT
WH="$WORK/wh"
failures=0

sql() { "$BIN" sql --warehouse "$WH" --format csv -e "$1" | tr -d '\r'; }  # CSV rows end in CRLF
check() {  # check NAME EXPECTED ACTUAL
  if [ "$2" == "$3" ]; then
    echo "ok   $1"
  else
    echo "FAIL $1"; echo "  expected: $(printf '%q' "$2")"; echo "  actual:   $(printf '%q' "$3")"
    failures=$((failures + 1))
  fi
}
# APPEND snapshots only: a commit may also publish a compaction (COMPACT) that ran behind it.
snapshot_count() {
  sql "SELECT COUNT(*) FROM $1\$snapshots WHERE commit_kind = 'APPEND'" 2>/dev/null | tail -n +2
}
fifo_drained() {  # fifo_drained PATH: waits until the ingest has read every byte written to PATH
  python3 - "$1" <<'PY'
import fcntl, os, struct, sys, termios, time
fd = os.open(sys.argv[1], os.O_RDWR | os.O_NONBLOCK)  # O_RDWR: never blocks, reads nothing
for _ in range(200):
    if struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD, b"\0" * 4))[0] == 0:
        sys.exit(0)
    time.sleep(0.05)
sys.exit(1)
PY
}
# stop_signal_case SIG TABLE ID1 ID2 ID3: an ingest with --commit-every 2 and no
# --commit-interval-ms commits ID1 and ID2 by count, reads ID3 (the fifo is drained), then gets
# SIG. Nothing but the signal can commit ID3, and the test sees that nothing did before it (no new
# snapshot, ID3 not visible); after it, ID3 is committed in exactly one more snapshot and the
# ingest ends with exit status 0.
stop_signal_case() {
  local sig=$1 table=$2 id1=$3 id2=$4 id3=$5 pid rc n0 seen=""
  n0=$(snapshot_count "$table")
  rm -f "$WORK/sigfifo"
  mkfifo "$WORK/sigfifo"
  "$BIN" ingest --warehouse "$WH" --table "default.$table" --format debezium-json \
    --commit-every 2 "$WORK/sigfifo" 2>"$WORK/sigerr" &
  pid=$!
  exec 7>"$WORK/sigfifo"
  printf '{"before": null, "after": {"id": %d}, "op": "c"}\n' "$id1" "$id2" >&7
  for _ in $(seq 1 100); do  # the ingest is running, reading and committing
    seen=$(sql "SELECT id FROM $table WHERE id >= $id1 ORDER BY id" 2>/dev/null | tail -n +2 | tr '\n' ' ')
    [ "$seen" == "$id1 $id2 " ] && break
    sleep 0.1
  done
  check "$sig case: lines 1-2 committed by --commit-every 2" "$((n0 + 1)) APPEND snapshots, rows $id1 $id2 " \
    "$(snapshot_count "$table") APPEND snapshots, rows $seen"
  printf '{"before": null, "after": {"id": %d}, "op": "c"}\n' "$id3" >&7
  check "$sig case: the ingest read line 3" 0 "$(fifo_drained "$WORK/sigfifo"; echo $?)"
  sleep 0.3  # room for a commit that must not come
  check "$sig case: nothing committed line 3 before the signal" \
    "$((n0 + 1)) APPEND snapshots, rows $id1 $id2 " \
    "$(snapshot_count "$table") APPEND snapshots, rows $(sql "SELECT id FROM $table WHERE id >= $id1 ORDER BY id" 2>/dev/null | tail -n +2 | tr '\n' ' ')"
  kill "-$sig" "$pid"
  set +e
  wait "$pid"
  rc=$?
  set -e
  exec 7>&-
  check "$sig exit status" 0 "$rc"
  check "$sig message" \
    "stopped by SIG$sig: ingested 3 change events (3 rows) into default.$table in 2 commits" \
    "$(cat "$WORK/sigerr")"
  check "$sig commits what was read, in one more snapshot" \
    "$((n0 + 2)) APPEND snapshots, rows $id1 $id2 $id3 " \
    "$(snapshot_count "$table") APPEND snapshots, rows $(sql "SELECT id FROM $table WHERE id >= $id1 ORDER BY id" 2>/dev/null | tail -n +2 | tr '\n' ' ')"
}

sql "CREATE TABLE orders (id BIGINT NOT NULL, name STRING, price DECIMAL(10, 2), day DATE,
       ts TIMESTAMP(3), PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '2')" 2>/dev/null

# 1. Every op and both envelopes, from a file.
cat > "$WORK/events.json" <<'JSON'
{"before":null,"after":{"id":1,"name":"apple","price":"2.00","day":19723,"ts":1704067200123},"op":"c"}
{"schema":{"type":"struct","fields":[]},"payload":{"before":null,"after":{"id":2,"name":"banana","price":4.5,"day":"2024-01-02","ts":"2024-01-02T10:00:00Z"},"op":"r"}}

{"before":{"id":1,"name":"apple","price":"2.00"},"after":{"id":1,"name":"cherry","price":"8.50","day":19723,"ts":1704067200123},"op":"u"}
{"before":{"id":3},"after":{"id":3,"name":"date"},"op":"u"}
{"before":{"id":2},"after":null,"op":"d"}
JSON
set +e
"$BIN" ingest --warehouse "$WH" --table default.orders --format debezium-json --commit-every 2 \
  "$WORK/events.json" 2>"$WORK/err"
check "ingest file exit status" 0 $?
set -e
check "ingest summary" "ingested 5 change events (7 rows) into default.orders in 3 commits" \
  "$(cat "$WORK/err")"
check "rows after file" "id,name,price,day,ts
1,cherry,8.50,2024-01-01,2024-01-01 00:00:00.123
3,date,,," "$(sql "SELECT * FROM orders ORDER BY id" 2>/dev/null)"

# 2. From stdin; a malformed line 4 keeps the commit of lines 1-2 and drops line 3.
set +e
printf '%s\n' '{"after":{"id":10},"op":"c"}' '{"after":{"id":11},"op":"c"}' \
  '{"after":{"id":12},"op":"c"}' '{"after":{"id":13},"op":' '{"after":{"id":14},"op":"c"}' |
  "$BIN" ingest --warehouse "$WH" --table orders --format debezium-json --commit-every 2 - \
  2>"$WORK/err"
rc=$?
set -e
check "malformed line exit status" 1 "$rc"
check "malformed line message" "tributary ingest: line 4: not valid JSON at column 25: syntax error while parsing value - unexpected end of input; expected '[', '{', or a literal; lines 1-2 were committed (snapshot 4); nothing after line 2 was written" "$(cat "$WORK/err")"
check "rows after failure" "id
1
3
10
11" "$(sql "SELECT id FROM orders ORDER BY id" 2>/dev/null)"

# 3. With --strict an unknown column is named, with the closest column of the table; without it
# the field is ignored, as Flink's debezium-json format ignores it.
set +e
echo '{"after":{"id":20,"nme":"x"},"op":"c"}' |
  "$BIN" ingest --warehouse "$WH" --table orders --format debezium-json --strict 2>"$WORK/err"
rc=$?
set -e
check "unknown column exit status" 1 "$rc"
check "unknown column message" \
  "tributary ingest: line 1: unknown column 'nme' in 'after'; did you mean 'name'?; nothing was committed" \
  "$(cat "$WORK/err")"
echo '{"after":{"id":20,"nme":"x"},"op":"c"}' |
  "$BIN" ingest --warehouse "$WH" --table orders --format debezium-json 2>/dev/null
check "unknown field ignored" "20," "$(sql "SELECT id, name FROM orders WHERE id = 20" 2>/dev/null | tail -n +2)"

# 3b. A slow stream is committed every --commit-interval-ms although no more line arrives.
mkfifo "$WORK/fifo"
"$BIN" ingest --warehouse "$WH" --table orders --format debezium-json --commit-interval-ms 200 \
  "$WORK/fifo" 2>"$WORK/err" &
ingest_pid=$!
exec 3>"$WORK/fifo"
echo '{"after":{"id":30,"name":"slow"},"op":"c"}' >&3
seen=""
for _ in $(seq 1 50); do
  seen=$(sql "SELECT id FROM orders WHERE id = 30" 2>/dev/null | tail -n +2)
  [ "$seen" == "30" ] && break
  sleep 0.1
done
check "committed by the interval while the input is idle" "30" "$seen"
exec 3>&-  # the end of the input ends the ingest
set +e
wait "$ingest_pid"
check "interval ingest exit status" 0 $?
set -e

# 3c. SIGTERM commits what was read (and only the signal can commit the last line) and ends the
# ingest cleanly.
stop_signal_case TERM orders 31 32 33

# 4. A missing table and a missing warehouse are errors; nothing is created.
set +e
"$BIN" ingest --warehouse "$WH" --table default.nope --format debezium-json /dev/null \
  2>"$WORK/err"
check "missing table exit status" 1 $?
"$BIN" ingest --warehouse "$WORK/absent" --table orders --format debezium-json /dev/null \
  2>/dev/null
check "missing warehouse exit status" 1 $?
set -e
check "missing warehouse not created" "no" "$([ -e "$WORK/absent" ] && echo yes || echo no)"

# With 'changelog-producer' = 'input' a Debezium stream becomes the table's changelog, updates
# with their before-images. Each key's changes come in the order they were written (changes of
# different keys in one commit may interleave: the check sorts them by key, stably).
"$BIN" sql --warehouse "$WH" -e "CREATE TABLE cl (id BIGINT, name STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '1', 'changelog-producer' = 'input')" >/dev/null 2>&1
cat > "$WORK/cl.json" <<'JSON'
{"before": null, "after": {"id": 1, "name": "ann"}, "op": "c"}
{"before": null, "after": {"id": 2, "name": "bob"}, "op": "c"}
{"before": {"id": 1, "name": "ann"}, "after": {"id": 1, "name": "anna"}, "op": "u"}
{"before": {"id": 2, "name": "bob"}, "after": null, "op": "d"}
JSON
"$BIN" ingest --warehouse "$WH" --table default.cl --format debezium-json "$WORK/cl.json" >/dev/null 2>&1
check "ingested changelog" "insert,1,ann update_before,1,ann update_after,1,anna insert,2,bob delete,2,bob " \
  "$("$BIN" sql --warehouse "$WH" --format csv -e "SELECT _change_type, id, name FROM cl\$changelog" 2>/dev/null | tail -n +2 | tr -d '\r' | sort -s -t, -k2,2n | tr '\n' ' ')"

# Paimon's partition expiration: a long-lived ingest checks at its first commit (then once per
# 'partition.expiration-check-interval'); a partition older than the expiration time goes.
"$BIN" sql --warehouse "$WH" -e "CREATE TABLE pe (id BIGINT, dt STRING, PRIMARY KEY (id, dt) NOT ENFORCED) PARTITIONED BY (dt) WITH ('bucket' = '1', 'partition.expiration-time' = '7 d', 'partition.timestamp-formatter' = 'yyyyMMdd')" >/dev/null 2>&1
cat > "$WORK/pe.json" <<'JSON'
{"before": null, "after": {"id": 1, "dt": "20200101"}, "op": "c"}
{"before": null, "after": {"id": 2, "dt": "29991231"}, "op": "c"}
JSON
"$BIN" ingest --warehouse "$WH" --table default.pe --format debezium-json "$WORK/pe.json" >/dev/null 2>&1
check "expired partition dropped by ingest" "dt=29991231 " \
  "$("$BIN" sql --warehouse "$WH" --format csv -e "SHOW PARTITIONS pe" 2>/dev/null | tail -n +2 | tr -d '\r' | tr '\n' ' ')"

# --ignore-parse-errors (Flink's debezium-json.ignore-parse-errors) skips lines that are not
# change events, counts them, and ingests the rest.
"$BIN" sql --warehouse "$WH" -e "CREATE TABLE ipe (id BIGINT, name STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '1')" >/dev/null 2>&1
cat > "$WORK/ipe.json" <<'JSON'
{"before": null, "after": {"id": 1, "name": "ann"}, "op": "c"}
{"before": null, "after": {"id": 2,
{"before": null, "after": {"id": 3, "name": "cy"}, "op": "c"}
JSON
set +e
"$BIN" ingest --warehouse "$WH" --table default.ipe --format debezium-json --ignore-parse-errors \
  "$WORK/ipe.json" 2>"$WORK/err"
check "ignore-parse-errors exit status" 0 $?
set -e
check "ignore-parse-errors counts the skipped line" "yes" \
  "$(grep -q "skipped 1 malformed line" "$WORK/err" && echo yes || (cat "$WORK/err" >&2; echo no))"
check "ignore-parse-errors ingests the others" "1 3 " \
  "$(sql "SELECT id FROM ipe ORDER BY id" 2>/dev/null | tail -n +2 | tr '\n' ' ')"

# Dates and timestamps outside years 0000-9999 are errors naming the line and the column (a
# DATE is 32 bits in a data file: day 4294967297 came back as 1970-01-02), skipped and counted
# with --ignore-parse-errors; the ends of the range are ingested.
"$BIN" sql --warehouse "$WH" -e "CREATE TABLE rng (id BIGINT, dt DATE, ts TIMESTAMP(6), PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '1')" >/dev/null 2>&1
micro_schema='"schema":{"type":"struct","fields":[{"type":"struct","field":"after","fields":[{"type":"int64","name":"io.debezium.time.MicroTimestamp","field":"ts"}]}]}'
cat > "$WORK/rng.json" <<JSON
{"before": null, "after": {"id": 1, "dt": -719528, "ts": "0000-01-01T00:00:00Z"}, "op": "c"}
{"before": null, "after": {"id": 2, "dt": 4294967297}, "op": "c"}
{$micro_schema,"payload":{"before":null,"after":{"id":3,"dt":"9999-12-31","ts":253402300799999999},"op":"c"}}
{$micro_schema,"payload":{"before":null,"after":{"id":4,"ts":253402300800000000},"op":"c"}}
JSON
set +e
sed -n 2p "$WORK/rng.json" | "$BIN" ingest --warehouse "$WH" --table default.rng \
  --format debezium-json - 2>"$WORK/err"
check "out-of-range DATE exit status" 1 $?
check "out-of-range DATE message" "tributary ingest: line 1: column 'dt' (DATE): date 4294967297 (days since 1970-01-01) is out of range (0000-01-01 to 9999-12-31); nothing was committed" \
  "$(cat "$WORK/err")"
"$BIN" ingest --warehouse "$WH" --table default.rng --format debezium-json "$WORK/rng.json" \
  2>"$WORK/err"
check "out-of-range DATE on line 2 exit status" 1 $?
check "out-of-range DATE names line 2" "yes" \
  "$(grep -q "line 2: column 'dt' (DATE): date 4294967297 (days since 1970-01-01) is out of range" "$WORK/err" && echo yes || (cat "$WORK/err" >&2; echo no))"
sed -n 4p "$WORK/rng.json" | "$BIN" ingest --warehouse "$WH" --table default.rng \
  --format debezium-json - 2>"$WORK/err"
check "out-of-range TIMESTAMP exit status" 1 $?
check "out-of-range TIMESTAMP message" "tributary ingest: line 1: column 'ts' (TIMESTAMP(6)): timestamp 253402300800000000 (microseconds since 1970-01-01) is out of range (0000-01-01 00:00:00 to 9999-12-31 23:59:59.999999999); nothing was committed" \
  "$(cat "$WORK/err")"
"$BIN" ingest --warehouse "$WH" --table default.rng --format debezium-json --ignore-parse-errors \
  "$WORK/rng.json" 2>"$WORK/err"
check "out-of-range skipped exit status" 0 $?
set -e
check "out-of-range lines skipped and counted" "yes" \
  "$(grep -q "skipped 2 malformed line(s) (the first: line 2: column 'dt' (DATE): date 4294967297" "$WORK/err" && echo yes || (cat "$WORK/err" >&2; echo no))"
check "the ends of the range ingested" "1,0000-01-01,0000-01-01 00:00:00 3,9999-12-31,9999-12-31 23:59:59.999999 " \
  "$(sql "SELECT * FROM rng ORDER BY id" 2>/dev/null | tail -n +2 | tr '\n' ' ')"

# SIGINT, as SIGTERM above: what was read is committed and the ingest ends cleanly.
"$BIN" sql --warehouse "$WH" -e "CREATE TABLE sig (id BIGINT, PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '1')" >/dev/null 2>&1
stop_signal_case INT sig 4 5 6

if [ "$failures" -gt 0 ]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "all ingest checks passed"
