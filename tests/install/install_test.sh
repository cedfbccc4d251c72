#!/usr/bin/env bash
# The library as another CMake project uses it: `cmake --install` into a fresh prefix, then
# examples/api_example.cc built outside this tree with find_package(tributary) and run.
# Usage: tests/install/install_test.sh [build dir]   (part of `make test-slow`)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "${1:-$ROOT/build}" && pwd)
TMP=$(mktemp -d /tmp/tributary-install.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
cmake --install "$BUILD" --prefix "$TMP/prefix" >/dev/null
mkdir -p "$TMP/app"
cp "$ROOT/examples/api_example.cc" "$TMP/app/"
cat >"$TMP/app/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.25)
project(app CXX)
set(CMAKE_CXX_STANDARD 20)
find_package(tributary REQUIRED)
add_executable(app api_example.cc)
target_link_libraries(app tributary::tributary)
CMAKE
cmake -S "$TMP/app" -B "$TMP/app/build" -G Ninja -DCMAKE_PREFIX_PATH="$TMP/prefix" >/dev/null
cmake --build "$TMP/app/build" >/dev/null
out=$("$TMP/app/build/app" "$TMP/warehouse")
if ! grep -q "1 | apple | 3.00" <<<"$out"; then
  echo "install_test: FAILED: the example built against the installed package printed:" >&2
  echo "$out" >&2
  exit 1
fi
# Only the public headers are installed.
if [ -n "$(find "$TMP/prefix/include" -type f ! -path '*/include/tributary/*')" ]; then
  echo "install_test: FAILED: headers outside include/tributary were installed" >&2
  exit 1
fi
echo "install_test: the installed package builds and runs examples/api_example.cc"
