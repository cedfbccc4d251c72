"""What the streaming differential tests share (delta_join.py, streaming_topn.py): running a
statement, materializing a streamed result (+I/+U add a row, -U/-D remove exactly a row held) and
comparing it with a batch result, and the command line (--binary, --rounds, --seed)."""
import argparse
import collections
import csv
import io
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time


def run(binary, warehouse, sql):
    p = subprocess.run([binary, "sql", "--warehouse", warehouse, "--format", "csv", "-e", sql],
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"statement failed: {sql}\n{p.stderr}")
    return p.stdout


def stream_while(binary, warehouse, query, out_path, writes):
    """Runs the streaming `query` (CSV into `out_path`, ended 2.5 s after the last change) while
    writes() commits to the warehouse; returns None, or the query's error."""
    with open(out_path, "w") as out:
        reader = subprocess.Popen([binary, "sql", "--warehouse", warehouse, "--format", "csv",
                                   "--idle-timeout-ms", "2500", "-e",
                                   "SET 'execution.runtime-mode' = 'streaming'; " + query],
                                  stdout=out, stderr=subprocess.PIPE, text=True)
        time.sleep(0.3)
        writes()
        _, err = reader.communicate(timeout=120)
    return err if reader.returncode != 0 else None


def materialize(stream_csv_path, complete_lines_only=False):
    """The stream in `stream_csv_path` (CSV with the op first) applied in order to an empty
    multiset: (the rows held, the retractions of rows that were not held). With
    `complete_lines_only`, a last line still being written is left out."""
    with open(stream_csv_path) as f:
        text = f.read()
    if complete_lines_only:
        text = text[:text.rfind("\n") + 1]
    state = collections.Counter()
    problems = []
    for row in list(csv.reader(io.StringIO(text)))[1:]:
        op, values = row[0], tuple(row[1:])
        if op in ("+I", "+U"):
            state[values] += 1
        else:
            if state[values] == 0:
                problems.append(f"{op} of {values} that is not in the result")
            state[values] -= 1
    return collections.Counter({k: v for k, v in state.items() if v}), problems


def batch_rows(batch_csv):
    return collections.Counter(tuple(r) for r in list(csv.reader(io.StringIO(batch_csv)))[1:])


def print_difference(label, state, want):
    print(f"{label}: the materialized stream differs from the batch result")
    print(f"  stream only: {sorted((state - want).elements())}")
    print(f"  batch only:  {sorted((want - state).elements())}")


def materialize_matches(stream_csv_path, batch_csv, label):
    """Whether the stream in `stream_csv_path`, materialized, equals the rows of `batch_csv`;
    prints what differs under `label`."""
    state, problems = materialize(stream_csv_path)
    for p in problems:
        print(f"{label}: {p}")
    want = batch_rows(batch_csv)
    if state != want:
        print_difference(label, state, want)
    return not problems and state == want


def wait_for_match(stream_csv_path, batch_csv, label, timeout_s=20):
    """Waits until the stream written so far, materialized, equals the rows of `batch_csv` (a
    running query shows a commit within its poll interval); False, printing what differs, when
    it does not within `timeout_s` or a retraction removes a row not held."""
    want = batch_rows(batch_csv)
    deadline = time.time() + timeout_s
    while True:
        state, problems = materialize(stream_csv_path, complete_lines_only=True)
        for p in problems:
            print(f"{label}: {p}")
        if problems:
            return False
        if state == want:
            return True
        if time.time() > deadline:
            print_difference(label + f" (after waiting {timeout_s} s)", state, want)
            return False
        time.sleep(0.05)


def main(name, one_round, default_rounds=4):
    """Runs one_round(binary, rng, workdir, r) -> bool for each round; exits 1 if any failed."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", default="build/tributary")
    ap.add_argument("--rounds", type=int, default=default_rounds)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    binary = os.path.abspath(args.binary)
    rng = random.Random(args.seed)
    workdir = tempfile.mkdtemp(prefix="tributary-" + name.replace(" ", "-") + "-")
    failures = 0
    try:
        for r in range(args.rounds):
            if not one_round(binary, rng, workdir, r):
                failures += 1
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    print(f"{name} differential: {args.rounds} rounds, {failures} failed")
    sys.exit(1 if failures else 0)
