#!/usr/bin/env bash
# Runs the Parquet reader's libFuzzer target (src/format/parquet/parquet_fuzzer.cc) for a fixed
# number of inputs with a fixed seed, starting from the Java-written golden Parquet files.
# Part of `make test-slow`. Fails on a crash, a sanitizer report, a timeout or an allocation
# above the limit (an unbounded allocation from a hostile header).
# Environment: FUZZ_RUNS (default 200000), FUZZ_BUILD (default build-fuzz).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
runs=${FUZZ_RUNS:-200000}
build=${FUZZ_BUILD:-$root/build-fuzz}

if ! command -v clang++ >/dev/null; then
  SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq clang >/dev/null
fi
if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_COMPILER=clang++ -DTRIBUTARY_FUZZ=ON >/dev/null
fi
flock /tmp/tributary-build.lock cmake --build "$build" -j 2 --target parquet_fuzzer

corpus=$(mktemp -d)
trap 'rm -rf "$corpus"' EXIT
n=0
while IFS= read -r f; do
  cp "$f" "$corpus/seed-$n.parquet"
  n=$((n + 1))
done < <(find "$root/../shared/golden" -name '*.parquet' -size -100k | sort)
echo "parquet fuzzer: $n seed files, $runs inputs"
"$build/parquet_fuzzer" -runs="$runs" -seed=1 -rss_limit_mb=2048 -malloc_limit_mb=1024 \
  -max_len=131072 -timeout=20 -print_final_stats=1 "$corpus" 2>&1 | tail -20
status=${PIPESTATUS[0]}
[ "$status" = 0 ] || { echo "parquet fuzzer: FAILED (exit $status)"; exit 1; }
echo "parquet fuzzer: passed"
