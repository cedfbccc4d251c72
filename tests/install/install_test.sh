#!/usr/bin/env bash
# The library as another CMake project uses it: `cmake --install` into a fresh prefix, then
# examples/api_example.cc (tables) and examples/sql_example.cc (SQL: tributary/sql.h) built
# outside this tree with find_package(tributary) and run.
# Usage: tests/install/install_test.sh [build dir]   (part of `make test-slow`)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "${1:-$ROOT/build}" && pwd)
TMP=$(mktemp -d /tmp/tributary-install.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
cmake --install "$BUILD" --prefix "$TMP/prefix" >/dev/null
# Lean: no debug info in the installed archives or program (the build tree keeps it).
with_debug=()
for f in "$TMP"/prefix/lib*/libtributary_*.a "$TMP/prefix/bin/tributary"; do
  if objdump -h "$f" 2>/dev/null | grep -q '\.debug_info'; then with_debug+=("$f"); fi
done
if [ ${#with_debug[@]} -gt 0 ]; then
  echo "install_test: FAILED: installed with debug info: ${with_debug[*]}" >&2
  exit 1
fi
mkdir -p "$TMP/app"
cp "$ROOT/examples/api_example.cc" "$ROOT/examples/sql_example.cc" "$TMP/app/"
cat >"$TMP/app/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.25)
project(app CXX)
set(CMAKE_CXX_STANDARD 20)
find_package(tributary @VERSION@ REQUIRED)
add_executable(app api_example.cc)
target_link_libraries(app tributary::tributary)
add_executable(sql_app sql_example.cc)
target_link_libraries(sql_app tributary::tributary)
CMAKE
# The version the package says it is (tributaryConfigVersion.cmake), asked for as a user would.
version=$("$BUILD/tributary" --version | awk '{print $2}')
sed -i "s/@VERSION@/${version%.*}/" "$TMP/app/CMakeLists.txt"
cmake -S "$TMP/app" -B "$TMP/app/build" -G Ninja -DCMAKE_PREFIX_PATH="$TMP/prefix" >/dev/null
cmake --build "$TMP/app/build" >/dev/null
out=$("$TMP/app/build/app" "$TMP/warehouse")
if ! grep -q "1 | apple | 3.00" <<<"$out"; then
  echo "install_test: FAILED: the example built against the installed package printed:" >&2
  echo "$out" >&2
  exit 1
fi
out=$("$TMP/app/build/sql_app" "$TMP/sql-warehouse")
if ! grep -q "n = 3, total = 5.00" <<<"$out"; then
  echo "install_test: FAILED: the SQL example built against the installed package printed:" >&2
  echo "$out" >&2
  exit 1
fi
# Only the public headers are installed.
if [ -n "$(find "$TMP/prefix/include" -type f ! -path '*/include/tributary/*')" ]; then
  echo "install_test: FAILED: headers outside include/tributary were installed" >&2
  exit 1
fi
# A version the package is not compatible with is refused by find_package.
mkdir -p "$TMP/old"
sed "s/find_package(tributary [0-9.]* REQUIRED)/find_package(tributary 99.0 REQUIRED)/" \
  "$TMP/app/CMakeLists.txt" >"$TMP/old/CMakeLists.txt"
cp "$ROOT/examples/api_example.cc" "$ROOT/examples/sql_example.cc" "$TMP/old/"
if cmake -S "$TMP/old" -B "$TMP/old/build" -G Ninja -DCMAKE_PREFIX_PATH="$TMP/prefix" \
    >/dev/null 2>&1; then
  echo "install_test: FAILED: find_package(tributary 99.0) accepted version $version" >&2
  exit 1
fi
echo "install_test: the installed package (version $version) builds and runs examples/api_example.cc and examples/sql_example.cc; 99.0 is refused"
