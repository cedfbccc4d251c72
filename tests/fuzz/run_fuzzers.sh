#!/usr/bin/env bash
# Runs the libFuzzer targets (src/**/*_fuzzer.cc: the SQL parser, the Avro reader, the metadata
# decoders, the Parquet reader, the Debezium line decoder, the index files, the PostgreSQL protocol, Arrow IPC streams), each for FUZZ_RUNS inputs with a
# fixed seed from its seed corpus (tests/fuzz/make_seeds.py), built with clang and ASan/UBSan in
# FUZZ_BUILD. Part of `make test-slow`. Fails on a crash, a sanitizer report, a timeout or an
# allocation above the limit (an unbounded allocation from a hostile header); the failing input
# is left in FUZZ_BUILD/findings/.
# Environment: FUZZ_RUNS (default 200000), FUZZ_BUILD (default build-fuzz), FUZZ_TARGETS (default:
# every target), FUZZ_CORPUS (a directory kept between runs, one subdirectory per target; default
# a temporary one).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
runs=${FUZZ_RUNS:-200000}
build=${FUZZ_BUILD:-$root/build-fuzz}
targets=${FUZZ_TARGETS:-"sql_parser_fuzzer avro_fuzzer metadata_fuzzer parquet_fuzzer debezium_fuzzer index_fuzzer pg_wire_fuzzer arrow_fuzzer"}

if ! command -v clang++ >/dev/null; then
  SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq clang >/dev/null
fi
if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_COMPILER=clang++ -DTRIBUTARY_FUZZ=ON >/dev/null
fi
# shellcheck disable=SC2086
flock /tmp/tributary-build.lock cmake --build "$build" -j 2 --target $targets

work=${FUZZ_CORPUS:-$(mktemp -d)}
[ -n "${FUZZ_CORPUS:-}" ] || trap 'rm -rf "$work"' EXIT
mkdir -p "$build/findings"
status=0
for t in $targets; do
  corpus="$work/$t"
  mkdir -p "$corpus"
  python3 "$root/tests/fuzz/make_seeds.py" "$t" "$corpus/seeds" >/dev/null
  mkdir -p "$corpus/grown"
  echo "$t: $(ls "$corpus/seeds" | wc -l) seeds, $runs inputs"
  set +e
  "$build/$t" -runs="$runs" -seed=1 -rss_limit_mb=2048 -malloc_limit_mb=1024 -max_len=131072 \
    -timeout=20 -print_final_stats=1 -artifact_prefix="$build/findings/$t-" \
    "$corpus/grown" "$corpus/seeds" > "$build/findings/$t.log" 2>&1
  rc=$?
  set -e
  grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "$build/findings/$t.log" || true
  if [ "$rc" != 0 ]; then
    tail -40 "$build/findings/$t.log"
    echo "$t: FAILED (exit $rc; log $build/findings/$t.log)"
    status=1
  else
    echo "$t: passed"
  fi
done
exit "$status"
