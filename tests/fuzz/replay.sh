#!/usr/bin/env bash
# The short fuzz run of `make test`: builds TARGET's seed corpus (tests/fuzz/make_seeds.py) and
# replays it, plus MUTATIONS random edits of it, through the target built without libFuzzer
# (<target>_replay, tests/fuzz/replay_main.cc). What fails it is a crash: a fatal signal (SIGSEGV;
# SIGABRT, e.g. from an uncaught exception) or any other non-zero exit; the input is left in the
# working directory as fuzz-crash-input. `make test` builds the replays without sanitizers, so there
# a read or write out of bounds, a use after free or undefined behaviour that does not crash goes
# unseen: those fail it only where the replays are built with ASan/UBSan (`make asan`, then
# `ctest -R fuzz_replay` in build-asan; UBSan halts on its first report, below), and in the
# libFuzzer runs of `make test-slow` (tests/fuzz/run_fuzzers.sh).
# Usage: replay.sh path/to/<target>_replay TARGET [MUTATIONS]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=$1
target=$2
mutations=${3:-20000}
seeds=$(mktemp -d)
trap 'rm -rf "$seeds"' EXIT
python3 "$root/tests/fuzz/make_seeds.py" "$target" "$seeds"
# Without halt_on_error UBSan prints its report and carries on, and the run would pass.
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
"$bin" --mutations "$mutations" --seed 1 "$seeds"
