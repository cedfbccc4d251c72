#!/usr/bin/env bash
# The short fuzz run of `make test`: builds TARGET's seed corpus (tests/fuzz/make_seeds.py) and
# replays it, plus MUTATIONS random edits of it, through the target built without libFuzzer
# (<target>_replay, tests/fuzz/replay_main.cc). Any crash or sanitizer report fails it; the input
# is left in the working directory as fuzz-crash-input.
# Usage: replay.sh path/to/<target>_replay TARGET [MUTATIONS]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=$1
target=$2
mutations=${3:-20000}
seeds=$(mktemp -d)
trap 'rm -rf "$seeds"' EXIT
python3 "$root/tests/fuzz/make_seeds.py" "$target" "$seeds"
"$bin" --mutations "$mutations" --seed 1 "$seeds"
