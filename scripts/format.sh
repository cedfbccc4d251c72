#!/usr/bin/env bash
# The C++ sources formatted by .clang-format (Debian's clang-format 14).
#   scripts/format.sh          rewrite them in place
#   scripts/format.sh --check  fail, naming each file, when one is not formatted (make format-check)
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files 'src/*.cc' 'src/*.h' 'include/*.h' 'bench/*.cc' 'bench/*.h' \
                                  'examples/*.cc' 'tests/*.cc')
if [ "${1:-}" = "--check" ]; then
  bad=()
  for f in "${files[@]}"; do
    clang-format --dry-run --Werror "$f" >/dev/null 2>&1 || bad+=("$f")
  done
  if [ ${#bad[@]} -gt 0 ]; then
    printf 'format-check: not formatted as .clang-format says (run make format): %s\n' "${bad[@]}" >&2
    exit 1
  fi
  echo "format-check: ${#files[@]} files formatted"
else
  clang-format -i "${files[@]}"
fi
