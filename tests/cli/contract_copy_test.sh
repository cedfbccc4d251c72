#!/usr/bin/env bash
# docs/cli.md is the command-line contract, copied into the repository so a clone stands alone:
# while the original (../shared/spec/CONTRACT.md, beside the repository) exists, the copy must
# equal it. Without the original there is nothing to compare: skipped (exit 77).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
original="$root/../shared/spec/CONTRACT.md"
if [ ! -f "$original" ]; then
  echo "contract_copy: no $original to compare with; skipped"
  exit 77
fi
if ! diff -u "$original" "$root/docs/cli.md"; then
  echo "contract_copy: docs/cli.md differs from $original: copy it again" >&2
  exit 1
fi
echo "contract_copy: docs/cli.md equals the contract"
