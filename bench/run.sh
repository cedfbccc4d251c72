#!/usr/bin/env bash
# `make bench`: every workload (W1-W5, issue 5) against every peer (RocksDB, SQLite, PostgreSQL,
# DuckDB) on this machine, in one run, printed as markdown tables of Tributary's ratios.
# Installs what is missing (Debian packages, the DuckDB npm package), builds build-bench
# (Release, -DTRIBUTARY_BENCH=ON) through the machine-wide build lock, starts a private
# PostgreSQL cluster on a loopback port and stops it by pid at the end.
#
# Knobs (environment):
#   BENCH_SCALE=1      multiplies every row count (0.02 is a smoke run of a few seconds each)
#   W1_ROWS W2_KEYS W2_EVENTS W3_KEYS W4_LOOKUPS  override one count (after scaling)
#   BENCH_BATCH=100000 rows per durable commit;  W4_SECONDS=10 time cap of W4 per system
#   W5_REPEAT=9        runs per W5 query (median reported; the first is a cold run)
#   BENCH_SYSTEMS="tributary rocksdb sqlite postgresql duckdb"  BENCH_WORKLOADS="W1 W4 W5 W2 W3"
#   S1 (Tributary only): W1 and W5 with the warehouse on the test S3 server against local disk
#   (bench/s1.py; S1_BATCH, S1_IDLE_SHORT_MS, S1_IDLE_LONG_MS)
#   SV (Tributary only; PostgreSQL's side is its W1, W4 and W6): W1's COPY, W4's prepared lookups
#   and W6's subscription through `tributary serve` over libpq (postgres_bench SV1 / SV4 / SV6)
#   BENCH_DIR=...      where data goes (default: a new temp dir, removed at the end)
#   BENCH_KEEP=1       keep BENCH_DIR;  BENCH_OUT=build-bench/bench  where results are written
#   BENCH_MICRO=1      also run the Google Benchmark micro-benchmarks (src/*/*_benchmark.cc)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
BUILD=${BENCH_BUILD:-build-bench}
LOCK=/tmp/tributary-build.lock
log() { echo "bench: $*" >&2; }

# ---------------------------------------------------------------------------------------------
# Packages.
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
bash scripts/setup.sh
pkgs=(librocksdb-dev libsqlite3-dev postgresql libpq-dev libbenchmark-dev pkg-config)
command -v node >/dev/null || pkgs+=(nodejs)
command -v npm >/dev/null || pkgs+=(npm)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  log "installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# ---------------------------------------------------------------------------------------------
# Build (Release) through the lock; only the bench programs and micro-benchmarks.
if [ ! -f "$BUILD/build.ninja" ] || ! grep -q "TRIBUTARY_BENCH:BOOL=ON" "$BUILD/CMakeCache.txt"; then
  cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTRIBUTARY_BENCH=ON >/dev/null
fi
# The CLI too: S1 measures a streaming `tributary sql` poll.
flock "$LOCK" cmake --build "$BUILD" -j 2 --target bench_all tributary

# DuckDB: the npm platform package ships the native library (libduckdb.so), which
# bench/duckdb_bench.cc drives through DuckDB's C API.
if [ ! -d bench/node_modules/@duckdb/node-bindings-linux-x64 ]; then
  log "installing @duckdb/node-bindings-linux-x64 (npm: the library DuckDB ships)"
  (cd bench && npm install --no-audit --no-fund --loglevel=error >&2) || log "npm install failed"
fi
export DUCKDB_LIB=${DUCKDB_LIB:-$PWD/bench/node_modules/@duckdb/node-bindings-linux-x64/libduckdb.so}

# ---------------------------------------------------------------------------------------------
# Parameters: the issue's counts times BENCH_SCALE (W1 has no count in the issue: 1M).
export BENCH_SCALE=${BENCH_SCALE:-1}
scaled() { python3 -c "import sys; print(max(1, int(float(sys.argv[1]) * float(sys.argv[2]))))" "$1" "$BENCH_SCALE"; }
export W1_ROWS=${W1_ROWS:-$(scaled 1000000)}
export W2_KEYS=${W2_KEYS:-$(scaled 1000000)}
export W2_EVENTS=${W2_EVENTS:-$(scaled 4000000)}
export W3_KEYS=${W3_KEYS:-$(scaled 1000000)}
export W4_LOOKUPS=${W4_LOOKUPS:-$(scaled 1000000)}
export W4_SECONDS=${W4_SECONDS:-10}
export W5_REPEAT=${W5_REPEAT:-9}
export J1_ORDERS=${J1_ORDERS:-$(scaled 1000000)}
export J1_CUSTOMERS=${J1_CUSTOMERS:-$(scaled 100000)}
export BENCH_BATCH=${BENCH_BATCH:-100000}
SYSTEMS=${BENCH_SYSTEMS:-tributary rocksdb sqlite postgresql duckdb}
WORKLOADS=${BENCH_WORKLOADS:-W1 W4 W5 W2 W3 J1 W6 W7 R3 S1 SV}
STEP_TIMEOUT=${BENCH_STEP_TIMEOUT:-1800}

OUT=${BENCH_OUT:-$BUILD/bench}
mkdir -p "$OUT"
RESULTS=$OUT/results.jsonl
LOG=$OUT/bench.log
: >"$RESULTS"
: >"$LOG"

if [ -n "${BENCH_DIR:-}" ]; then
  mkdir -p "$BENCH_DIR"
  DATA=$BENCH_DIR
else
  DATA=$(mktemp -d /tmp/tributary-bench.XXXXXX)
fi
chmod 755 "$DATA"

# ---------------------------------------------------------------------------------------------
# PostgreSQL: a private cluster on a free loopback port, run by the `postgres` user when we are
# root (initdb refuses root). Stopped by the postmaster's pid on exit.
PG_PID=""
PGBIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
as_pg() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
stop_pg() {
  if [ -n "$PG_PID" ] && kill -0 "$PG_PID" 2>/dev/null; then
    log "stopping PostgreSQL (pid $PG_PID)"
    kill -INT "$PG_PID" 2>/dev/null || true
    for _ in $(seq 1 100); do kill -0 "$PG_PID" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$PG_PID" 2>/dev/null && kill -KILL "$PG_PID" 2>/dev/null || true
  fi
  PG_PID=""
}
cleanup() {
  stop_pg
  if [ -z "${BENCH_KEEP:-}" ] && [ -z "${BENCH_DIR:-}" ]; then rm -rf "$DATA"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

start_pg() {
  [ -n "$PGBIN" ] || { echo "no PostgreSQL binaries under /usr/lib/postgresql"; return 1; }
  local pgdata=$DATA/postgresql
  mkdir -p "$pgdata"
  [ "$(id -u)" -eq 0 ] && chown postgres:postgres "$pgdata"
  PG_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  as_pg "$PGBIN/initdb" -D "$pgdata" -U postgres -A trust --no-sync >>"$LOG" 2>&1 || return 1
  PG_OPTS="-p $PG_PORT -k $pgdata -c listen_addresses=127.0.0.1 -c shared_buffers=256MB -c max_wal_size=4GB -c fsync=on -c synchronous_commit=on"
  as_pg "$PGBIN/pg_ctl" -D "$pgdata" -l "$pgdata/server.log" -w -t 60 start -o "$PG_OPTS" \
    >>"$LOG" 2>&1 || return 1
  PG_PID=$(head -1 "$pgdata/postmaster.pid")
  PG_CONN="host=127.0.0.1 port=$PG_PORT user=postgres dbname=postgres"
}
# W6 alone needs logical decoding: the cluster restarted with wal_level = logical (which writes
# more WAL, so the other workloads run without it).
restart_pg_logical() {
  local pgdata=$DATA/postgresql
  as_pg "$PGBIN/pg_ctl" -D "$pgdata" -l "$pgdata/server.log" -w -t 60 restart -o \
    "$PG_OPTS -c wal_level=logical -c max_replication_slots=4 -c max_wal_senders=4" \
    >>"$LOG" 2>&1 || return 1
  PG_PID=$(head -1 "$pgdata/postmaster.pid")
}

# ---------------------------------------------------------------------------------------------
# One step: one workload of one system, in its own process; JSON lines to $RESULTS.
error_line() {  # sys workload message
  python3 -c 'import json,sys; print(json.dumps({"sys": sys.argv[1], "w": sys.argv[2], "case": "", "error": sys.argv[3]}))' "$1" "$2" "$3" >>"$RESULTS"
}
step() {  # sys workload command...
  local sys=$1 w=$2; shift 2
  log "$sys $w"
  echo "== $sys $w: $*" >>"$LOG"
  local rc=0
  timeout "$STEP_TIMEOUT" "$@" >>"$RESULTS" 2>>"$LOG" || rc=$?
  if [ $rc -ne 0 ]; then
    error_line "$sys" "$w" "exited with status $rc (124 = timed out after ${STEP_TIMEOUT}s); see $LOG"
  fi
}

# SV (issue 39): W1's COPY, W4's prepared lookups and W6's subscription through `tributary serve` on a free
# loopback port, driven by postgres_bench over libpq (the client PostgreSQL's W1 and W4 use).
run_sv() {
  local dir=$1 pg_prog=$BUILD/bench/postgres_bench
  if [ ! -x "$pg_prog" ]; then
    error_line tributary SV "$pg_prog was not built (libpq missing?)"
    return
  fi
  local port
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  "$BUILD/tributary" serve --warehouse "$dir/sv" --listen "127.0.0.1:$port" 2>>"$LOG" &
  local pid=$!
  for _ in $(seq 1 100); do
    python3 -c "import socket,sys; socket.create_connection(('127.0.0.1',$port),1)" 2>/dev/null && break
    sleep 0.1
  done
  export TRIBUTARY_SERVE_PID=$pid
  local conn="host=127.0.0.1 port=$port user=tributary dbname=default"
  step tributary SV "$pg_prog" SV1 "$conn"
  step tributary SV "$pg_prog" SV4 "$conn"
  step tributary SV "$pg_prog" SV6 "$conn"
  unset TRIBUTARY_SERVE_PID
  kill -TERM "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

run_system() {
  local sys=$1 dir=$DATA/$1 prog=""
  mkdir -p "$dir"
  case $sys in
    tributary) prog=$BUILD/bench/tributary_bench ;;
    rocksdb) prog=$BUILD/bench/rocksdb_bench ;;
    sqlite) prog=$BUILD/bench/sqlite_bench ;;
    postgresql) prog=$BUILD/bench/postgres_bench ;;
    duckdb) prog=$BUILD/bench/duckdb_bench ;;
  esac
  if [ "$sys" = duckdb ] && [ ! -f "$DUCKDB_LIB" ]; then
    for w in $WORKLOADS; do error_line duckdb "$w" "libduckdb.so is not installed (npm install failed)"; done
    return
  elif [ ! -x "$prog" ]; then
    for w in $WORKLOADS; do error_line "$sys" "$w" "$prog was not built (library missing?)"; done
    return
  fi
  if [ "$sys" = postgresql ]; then
    if ! start_pg; then
      for w in $WORKLOADS; do error_line postgresql "$w" "the private cluster did not start; see $LOG"; done
      return
    fi
  fi
  for w in $WORKLOADS; do
    # S1 is Tributary against itself (a warehouse on the test S3 server vs. local disk).
    [ "$w" = S1 ] && [ "$sys" != tributary ] && continue
    [ "$w" = R3 ] && [ "$sys" != tributary ] && continue  # Tributary against itself
    [ "$w" = SV ] && [ "$sys" != tributary ] && continue  # PostgreSQL's side is its W1 and W4
    case $sys in
      tributary)
        if [ "$w" = S1 ]; then
          step tributary S1 python3 bench/s1.py "$prog" "$BUILD/tributary" "$dir"
        elif [ "$w" = W1 ]; then
          step tributary W1 "$prog" W1 "$dir" fixed
          step tributary W1 "$prog" W1 "$dir" fixed_dv
          step tributary W1 "$prog" W1 "$dir" dynamic
        elif [ "$w" = SV ]; then
          run_sv "$dir"
        elif [ "$w" = R3 ]; then
          # Many active partitions x buckets (issue 38): each case a process of its own.
          for n in 1 50 500; do step tributary R3 "$prog" R3 "$dir/r3_$n" "$n"; done
        elif [ "$w" = W5 ]; then
          step tributary W5 "$prog" W5 "$dir"
          step tributary W5 "$prog" W5 "$dir" w1_fixed_dv
        elif [ "$w" = W7 ]; then
          step tributary W7 "$prog" W7 "$dir/W7"
          step tributary W7 "$prog" W7 "$dir/W7p" projection
        elif [ "$w" = J1 ] || [ "$w" = W6 ]; then
          step tributary "$w" "$prog" "$w" "$dir/$w"
        else
          step tributary "$w" "$prog" "$w" "$dir"
        fi ;;
      rocksdb)
        case $w in J1|W7) ;;  # a key-value store: no joins, no jobs
                   W6) step rocksdb W6 "$prog" W6 "$dir/w6" ;;
                   W2|W3) step rocksdb "$w" "$prog" "$w" "$dir/$w" ;;
                   *) step rocksdb "$w" "$prog" "$w" "$dir/w1" ;; esac ;;
      sqlite)
        case $w in W6|W7) ;;  # no change feed
                   W2|W3|J1) step sqlite "$w" "$prog" "$w" "$dir/$w" ;;
                   *) step sqlite "$w" "$prog" "$w" "$dir/w1" ;; esac ;;
      postgresql)
        case $w in J1) ;;
                   W6|W7) if restart_pg_logical; then step postgresql "$w" "$prog" "$w" "$PG_CONN"
                       else error_line postgresql "$w" "the cluster did not restart with wal_level = logical; see $LOG"; fi ;;
                   *) step postgresql "$w" "$prog" "$w" "$PG_CONN" ;; esac ;;
      duckdb)
        case $w in W6|W7) ;;  # no change feed
                   W2|W3|J1) step duckdb "$w" "$prog" "$w" "$dir/$w" ;;
                   *) step duckdb "$w" "$prog" "$w" "$dir/w1" ;; esac ;;
    esac
  done
  [ "$sys" = postgresql ] && stop_pg
  rm -rf "${dir:?}"  # free the disk before the next system
}

export BENCH_LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
for sys in $SYSTEMS; do run_system "$sys"; done
export BENCH_LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg)

# ---------------------------------------------------------------------------------------------
# Report.
mem=$(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)
cpu=$(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo)
export BENCH_MACHINE="$(nproc) cores ($cpu), $mem RAM, $(. /etc/os-release && echo "$PRETTY_NAME"), kernel $(uname -r)"
export BENCH_DATE=$(date -u +%Y-%m-%d)
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
if ! git diff --quiet HEAD -- src include CMakeLists.txt 2>/dev/null; then commit="$commit+uncommitted"; fi
export BENCH_COMMIT=$commit
export BENCH_COMPILER=$(c++ --version | head -1)
export BENCH_NODE=$(node --version 2>/dev/null || echo none)
python3 bench/report.py "$RESULTS" | tee "$OUT/results.md"
log "results: $OUT/results.md (raw: $RESULTS, log: $LOG)"

if [ -n "${BENCH_MICRO:-}" ]; then
  for b in "$BUILD"/*_benchmark; do
    [ -x "$b" ] && "$b" --benchmark_min_time=0.2 | tee -a "$OUT/micro.txt"
  done
fi
