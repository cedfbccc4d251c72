#!/usr/bin/env bash
# Black-box checks of `tributary sql` against CONTRACT.md: exit status and positioned messages on
# the first failing statement, statements before it committed, stdin and -f input, json output.
# Usage: tests/cli/sql_cli_test.sh path/to/tributary
set -uo pipefail
BIN=${1:?usage: sql_cli_test.sh path/to/tributary}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
fails=0
check() {  # check NAME EXPECTED ACTUAL
  if [ "$2" == "$3" ]; then echo "ok   $1"; else echo "FAIL $1: expected [$2] got [$3]"; fails=$((fails + 1)); fi
}
run() { "$BIN" sql --warehouse "$W/wh" --format csv "$@" | tr -d '\r'; }

run -e "CREATE TABLE t (id INT, v STRING, PRIMARY KEY (id) NOT ENFORCED)" 2>/dev/null
# The first failing statement: exit 1, line and column, later statements not run.
out=$(run -e "INSERT INTO t VALUES (1, 'a');
SELECT nope FROM t; INSERT INTO t VALUES (2, 'b')" 2>&1 >/dev/null)
check "exit status 1" "1" "$?"
out=$(run -e "INSERT INTO t VALUES (1, 'a');
SELECT nope FROM t; INSERT INTO t VALUES (2, 'b')" 2>&1 >/dev/null; true)
case "$out" in *"line 2, column 8"*) check "error names line and column" "yes" "yes" ;;
  *) check "error names line and column" "line 2, column 8" "$out" ;; esac
check "statements after the failure do not run" "1" "$(run -e "SELECT COUNT(*) FROM t" 2>/dev/null | tail -1)"

# An unterminated string: the statements before it still run, then the error.
run -e "INSERT INTO t VALUES (3, 'c'); SELECT 'oops" >/dev/null 2>&1
check "unterminated string exits 1" "1" "$?"
check "statements before an unterminated string ran" "2" \
  "$(run -e "SELECT COUNT(*) FROM t" 2>/dev/null | tail -1)"

# stdin and -f.
check "statements from stdin" "3" "$(printf 'SELECT MAX(id) FROM t;\n' | run 2>/dev/null | tail -1)"
printf 'SELECT v FROM t WHERE id = 1;\n' > "$W/q.sql"
check "statements from -f" "a" "$(run -f "$W/q.sql" 2>/dev/null | tail -1)"

# json: one object per row, keys in column order, typed values.
check "json rows" '{"id": 1, "v": "a"}' \
  "$("$BIN" sql --warehouse "$W/wh" --format json -e "SELECT id, v FROM t WHERE id = 1" 2>/dev/null)"
check "json types" '{"d": "1.50", "b": true, "n": null, "dt": "2024-03-12", "ts": "2024-03-12 08:00:00.5"}' \
  "$("$BIN" sql --warehouse "$W/wh" --format json -e "SELECT CAST(1.5 AS DECIMAL(4,2)) AS d, TRUE AS b, CAST(NULL AS INT) AS n, DATE '2024-03-12' AS dt, TIMESTAMP '2024-03-12 08:00:00.500' AS ts" 2>/dev/null)"

# IF [NOT] EXISTS says what happened.
check "CREATE TABLE IF NOT EXISTS on an existing table" "Table default.t already exists, skipped" \
  "$(run -e "CREATE TABLE IF NOT EXISTS t (id INT)" 2>&1 >/dev/null)"
check "DROP TABLE IF EXISTS of a missing table" "Table default.nope does not exist, skipped" \
  "$(run -e "DROP TABLE IF EXISTS nope" 2>&1 >/dev/null)"

# 'sql-client.display.max-column-width' cuts the cells of the table format.
check "max-column-width" "| ab... | abc |" \
  "$("$BIN" sql --warehouse "$W/wh" --format table -e "SET 'sql-client.display.max-column-width' = '5'; SELECT 'abcdefghij' AS s, 'abc' AS t" 2>/dev/null | sed -n 4p)"

# Unknown SET keys name the closest one.
out=$(run -e "SET 'execution.runtime-mod' = 'batch'" 2>&1)
case "$out" in *"execution.runtime-mode"*) check "SET did-you-mean" "yes" "yes" ;;
  *) check "SET did-you-mean" "execution.runtime-mode" "$out" ;; esac

# A streaming SELECT follows a table while another process commits to it, and ends once nothing
# new arrived for --idle-timeout-ms.
run -e "CREATE TABLE s (id INT, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '1');
INSERT INTO s VALUES (1, 'a')" >/dev/null 2>&1
( sleep 2; run -e "INSERT INTO s VALUES (1, 'b'), (2, 'c')" >/dev/null 2>&1 ) &
start=$(date +%s%N)
out=$("$BIN" sql --warehouse "$W/wh" --format csv --idle-timeout-ms 4000 \
  -e "SET 'execution.runtime-mode' = 'streaming'; SELECT * FROM s" 2>/dev/null | tr -d '\r' | tr '\n' ' ')
elapsed_ms=$(( ($(date +%s%N) - start) / 1000000 ))
wait
check "streaming SELECT sees a concurrent commit" "op,id,v +I,1,a -U,1,a +U,1,b +I,2,c " "$out"
[ "$elapsed_ms" -ge 4000 ] && [ "$elapsed_ms" -lt 30000 ]
check "streaming SELECT ends after the idle time-out" "0" "$?"
# A streaming lookup join sees the dimension's commits made while it runs: the order written
# after the customer was renamed joins the new name.
run -e "CREATE TABLE lo (oid INT, cid INT, pt AS PROCTIME(), PRIMARY KEY (oid) NOT ENFORCED) WITH ('bucket' = '1');
CREATE TABLE lc (id INT, name STRING, PRIMARY KEY (id) NOT ENFORCED);
INSERT INTO lc VALUES (10, 'ann'); INSERT INTO lo VALUES (1, 10)" >/dev/null 2>&1
( sleep 2; run -e "INSERT INTO lc VALUES (10, 'anne'); INSERT INTO lo VALUES (2, 10), (3, 99)" >/dev/null 2>&1 ) &
out=$("$BIN" sql --warehouse "$W/wh" --format csv --idle-timeout-ms 4000 \
  -e "SET 'execution.runtime-mode' = 'streaming'; SELECT o.oid, c.name FROM lo AS o LEFT JOIN lc FOR SYSTEM_TIME AS OF o.pt AS c ON o.cid = c.id" 2>/dev/null | tr -d '\r' | tr '\n' ' ')
wait
check "streaming lookup join sees the dimension's new commits" "op,oid,name +I,1,ann +I,2,anne +I,3, " "$out"
# The lookup cache decides what the join sees of that commit: a PARTIAL cache serves the row it
# looked up before until the entry expires (stale within the hour, fresh after 500 ms); FULL loads
# the table again after the commit.
lookup_cache_case() {  # <name> <hint options> <expected>
  run -e "DROP TABLE IF EXISTS lo2; DROP TABLE IF EXISTS lc2;
CREATE TABLE lo2 (oid INT, cid INT, pt AS PROCTIME(), PRIMARY KEY (oid) NOT ENFORCED) WITH ('bucket' = '1');
CREATE TABLE lc2 (id INT, name STRING, PRIMARY KEY (id) NOT ENFORCED);
INSERT INTO lc2 VALUES (10, 'ann'); INSERT INTO lo2 VALUES (1, 10)" >/dev/null 2>&1
  ( sleep 2; run -e "INSERT INTO lc2 VALUES (10, 'anne'); INSERT INTO lo2 VALUES (2, 10)" >/dev/null 2>&1 ) &
  out=$("$BIN" sql --warehouse "$W/wh" --format csv --idle-timeout-ms 4000 \
    -e "SET 'execution.runtime-mode' = 'streaming'; SELECT o.oid, c.name FROM lo2 AS o JOIN lc2 /*+ OPTIONS($2) */ FOR SYSTEM_TIME AS OF o.pt AS c ON o.cid = c.id" 2>/dev/null | tr -d '\r' | tr '\n' ' ')
  wait
  check "lookup join, $1" "$3" "$out"
}
lookup_cache_case "PARTIAL cache within its expiry" \
  "'lookup.cache' = 'PARTIAL', 'lookup.partial-cache.expire-after-write' = '1 h'" "op,oid,name +I,1,ann +I,2,ann "
lookup_cache_case "PARTIAL cache after its expiry" \
  "'lookup.cache' = 'PARTIAL', 'lookup.partial-cache.expire-after-access' = '500 ms'" "op,oid,name +I,1,ann +I,2,anne "
lookup_cache_case "FULL cache" "'lookup.cache' = 'FULL'" "op,oid,name +I,1,ann +I,2,anne "
lookup_cache_case "async lookups" "'lookup.async' = 'true', 'lookup.async-thread-number' = '2'" "op,oid,name +I,1,ann +I,2,anne "
# The delta join's cache of looked-up rows is forgotten when the side passes an OVERWRITE (which
# no stream hands out): the order's update after the overwrite joins the new line (99), not the
# cached one (3).
run -e "CREATE TABLE dj_o (oid INT, amt INT, PRIMARY KEY (oid) NOT ENFORCED) WITH ('bucket' = '1');
CREATE TABLE dj_l (oid INT, line INT, qty INT, PRIMARY KEY (oid, line) NOT ENFORCED) WITH ('bucket' = '1', 'bucket-key' = 'oid');
INSERT INTO dj_l VALUES (5, 1, 3)" >/dev/null 2>&1
( sleep 1.5; run -e "INSERT INTO dj_o VALUES (5, 10)" >/dev/null 2>&1; sleep 1
  run -e "INSERT OVERWRITE dj_l VALUES (5, 1, 99)" >/dev/null 2>&1; sleep 1
  run -e "INSERT INTO dj_o VALUES (5, 11)" >/dev/null 2>&1 ) &
out=$("$BIN" sql --warehouse "$W/wh" --format csv --idle-timeout-ms 3000 \
  -e "SET 'execution.runtime-mode' = 'streaming'; SELECT o.oid, o.amt, l.qty FROM dj_o AS o JOIN dj_l AS l ON o.oid = l.oid" 2>/dev/null | tr -d '\r' | tr '\n' ' ')
wait
check "delta join cache after an OVERWRITE" "op,oid,amt,qty +I,5,10,3 -U,5,10,99 +U,5,11,99 " "$out"
# A streaming SELECT hands each change out as it arrives (a pipe sees it before the query ends).
"$BIN" sql --warehouse "$W/wh" --format csv --idle-timeout-ms 6000 \
  -e "SET 'execution.runtime-mode' = 'streaming'; SELECT id FROM s" > "$W/stream.csv" 2>/dev/null &
reader=$!
sleep 2
check "streamed rows reach the pipe while the query runs" "op,id +I,1 +I,2 " \
  "$(tr -d '\r' < "$W/stream.csv" | tr '\n' ' ')"
kill -0 "$reader" 2>/dev/null
check "the streaming query is still running" "0" "$?"
kill "$reader" 2>/dev/null; wait "$reader" 2>/dev/null
# Ctrl-C ends a streaming query, not the program: the statements after it still run.
"$BIN" sql --warehouse "$W/wh" --format csv -e "SET 'execution.runtime-mode' = 'streaming';
SELECT id FROM s; SET 'execution.runtime-mode' = 'batch'; SELECT COUNT(*) AS n FROM s" \
  > "$W/interrupted.csv" 2>/dev/null &
reader=$!
sleep 2
kill -INT "$reader"
wait "$reader"
check "Ctrl-C ends the streaming query" "0" "$?"
check "the statements after it ran" "op,id +I,1 +I,2 n 2 " "$(tr -d '\r' < "$W/interrupted.csv" | tr '\n' ' ')"
out=$("$BIN" sql --warehouse "$W/wh" --idle-timeout-ms x -e "SELECT 1" 2>&1; true)
case "$out" in *"non-negative number"*) check "bad --idle-timeout-ms" "yes" "yes" ;;
  *) check "bad --idle-timeout-ms" "non-negative number" "$out" ;; esac

# A read-only statement on a missing warehouse is an error naming the path, and creates nothing;
# the first statement that writes creates it.
out=$("$BIN" sql --warehouse "$W/mistyped/wh" -e "SHOW TABLES" 2>&1 >/dev/null)
check "missing warehouse exits 1" "1" "$?"
case "$out" in *"$W/mistyped/wh"*"does not exist"*) check "missing warehouse is named" "yes" "yes" ;;
  *) check "missing warehouse is named" "the path" "$out" ;; esac
check "a read creates no warehouse" "no" "$([ -e "$W/mistyped" ] && echo yes || echo no)"
# Statements that read no table run without a warehouse (and create none).
check "VALUES without a warehouse" "x
1" "$("$BIN" sql --warehouse "$W/mistyped/wh" --format csv -e "SELECT * FROM (VALUES (1)) AS v(x)" 2>/dev/null | tr -d "\r")"
check "SHOW FUNCTIONS without a warehouse" "0" \
  "$("$BIN" sql --warehouse "$W/mistyped/wh" -e "SHOW FUNCTIONS" >/dev/null 2>&1; echo $?)"
check "... and they create none" "no" "$([ -e "$W/mistyped" ] && echo yes || echo no)"
"$BIN" sql --warehouse "$W/fresh" -e "CREATE TABLE c1 (a INT)" >/dev/null 2>&1
check "CREATE TABLE creates the warehouse" "0" "$?"

# --version on every command, --help on stdout (CONTRACT.md, "Every command").
for cmd in "" "sql" "ingest"; do
  v=$("$BIN" $cmd --version 2>/dev/null)
  case "$v" in "tributary "[0-9]*) check "--version ${cmd:-top}" "yes" "yes" ;;
    *) check "--version ${cmd:-top}" "tributary <version>" "$v" ;; esac
  h=$("$BIN" $cmd --help 2>/dev/null | head -1)
  case "$h" in "usage: tributary"*) check "--help on stdout ${cmd:-top}" "yes" "yes" ;;
    *) check "--help on stdout ${cmd:-top}" "usage: tributary ..." "$h" ;; esac
done

# QUIT / EXIT (any case) end a script there, exit 0; HELP prints a summary.
out=$(printf "SELECT 10;\nhelp;\nQuit;\nSELECT 20;\n" | run 2>/dev/null)
check "QUIT ends the script with exit 0" "0" "$?"
case "$out" in *20*) check "statements after QUIT do not run" "no 20" "$out" ;;
  *) check "statements after QUIT do not run" "yes" "yes" ;; esac
case "$out" in *"QUIT or EXIT ends the shell"*) check "HELP prints a summary" "yes" "yes" ;;
  *) check "HELP prints a summary" "the summary" "$out" ;; esac

# The SQL client's statement set: BEGIN STATEMENT SET; INSERT ...; END; commits the INSERTs
# together at END; a failing INSERT commits none of them; other statements are refused inside.
run -e "CREATE TABLE ss_a (id INT); CREATE TABLE ss_b (id INT NOT NULL)" >/dev/null 2>&1
printf "BEGIN STATEMENT SET;\nINSERT INTO ss_a VALUES (1);\nINSERT INTO ss_b VALUES (1), (2);\nEND;\n" | run >/dev/null 2>&1
check "statement set commits at END" "1,2" \
  "$(run -e "SELECT (SELECT COUNT(*) FROM ss_a), (SELECT COUNT(*) FROM ss_b)" 2>/dev/null | tail -1)"
printf "BEGIN STATEMENT SET;\nINSERT INTO ss_a VALUES (2);\nINSERT INTO ss_b VALUES (CAST(NULL AS INT));\nEND;\n" | run >/dev/null 2>&1
check "a failed statement set exits 1" "1" "$?"
check "a failed statement set commits nothing" "1" "$(run -e "SELECT COUNT(*) FROM ss_a" 2>/dev/null | tail -1)"
out=$(printf "BEGIN STATEMENT SET;\nSELECT 1;\n" | run 2>&1)
case "$out" in *"only INSERT statements can be added to a statement set"*)
  check "non-INSERT refused in a statement set" "yes" "yes" ;;
  *) check "non-INSERT refused in a statement set" "the error" "$out" ;; esac

# A warehouse is a local path, a file:// URI or s3://; any other scheme is refused by name, and
# no URI ever becomes a local directory ("s3:/bucket/wh").
(cd "$W" && env -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY "$BIN" sql --warehouse s3://bucket/wh \
  -e "CREATE TABLE t (id INT)" >/dev/null 2>"$W/s3.err")
check "an s3:// warehouse without credentials is refused" "1" "$?"
case "$(cat "$W/s3.err")" in *"no S3 credentials"*) check "the error says what is missing" "yes" "yes" ;;
  *) check "the error says what is missing" "no S3 credentials" "$(cat "$W/s3.err")" ;; esac
check "no local directory named after the URI" "no" "$([ -e "$W/s3:" ] && echo yes || echo no)"
(cd "$W" && "$BIN" sql --warehouse gs://bucket/wh -e "CREATE TABLE t (id INT)" >/dev/null 2>"$W/gs.err")
case "$(cat "$W/gs.err")" in *"'gs' scheme is not supported yet"*) check "the error names the scheme" "yes" "yes" ;;
  *) check "the error names the scheme" "'gs' scheme is not supported yet" "$(cat "$W/gs.err")" ;; esac
(cd "$W" && "$BIN" sql --warehouse hdfs://nn:8020/wh -e "SELECT 1" >/dev/null 2>&1)
check "an hdfs:// warehouse is refused" "1" "$?"
"$BIN" sql --warehouse "file://$W/furi" -e "CREATE TABLE t (id INT); INSERT INTO t VALUES (7)" >/dev/null 2>&1
check "--warehouse file:// works" "7" "$("$BIN" sql --warehouse "$W/furi" --format csv -e "SELECT * FROM t" 2>/dev/null | tr -d '\r' | tail -1)"
check "CREATE CATALOG with file:// works" "7" "$(run -e "CREATE CATALOG f WITH ('type' = 'paimon', 'warehouse' = 'file://$W/furi'); USE CATALOG f; SELECT * FROM t" 2>/dev/null | tail -1)"

# 'table.local-time-zone' = 'default' is the machine's zone, $TZ first, as LOCALTIMESTAMP of an
# unset session has it (Shanghai: UTC+8, no daylight saving).
check "'default' time zone honours TZ" "8" \
  "$(TZ=Asia/Shanghai run -e "SET 'table.local-time-zone' = 'default';
     SELECT HOUR(TO_TIMESTAMP_LTZ(0, 0))" 2>/dev/null | tail -1)"
local_hour() {
  TZ=Asia/Shanghai run -e "$1 SELECT SUBSTRING(CAST(LOCALTIMESTAMP AS STRING), 1, 13)" \
    2>/dev/null | tail -1
}
check "'default' LOCALTIMESTAMP is an unset session's" "$(local_hour "")" \
  "$(local_hour "SET 'table.local-time-zone' = 'default';")"

[ "$fails" -eq 0 ] && echo "sql_cli_test: all passed" || echo "sql_cli_test: $fails failed"
[ "$fails" -eq 0 ]
