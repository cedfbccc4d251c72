#!/usr/bin/env python3
"""Differential test of the streaming delta join (issue 13 part 5): a streaming SELECT joins two
primary-key tables while other processes insert, update and delete rows on both sides; the
changes it emits (+I, -U, +U, -D), applied in order to an empty multiset, must equal the batch
join of the two tables after the last commit, and no retraction may remove a row that is not
there. Each round starts the stream from 'full' after some rows exist, so the start-up seam is
crossed too.

  python3 tests/differential/delta_join.py --binary build/tributary [--rounds N] [--seed S]

Python 3 standard library only."""
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


def random_statement(rng, table):
    if table == "a":
        i = rng.randrange(12)
        kind = rng.random()
        if kind < 0.6:
            return f"INSERT INTO a VALUES ({i}, 'v{rng.randrange(100)}')"
        if kind < 0.8:
            return f"UPDATE a SET v = 'u{rng.randrange(100)}' WHERE id = {i}"
        return f"DELETE FROM a WHERE id = {i}"
    i, s = rng.randrange(12), rng.randrange(3)
    kind = rng.random()
    if kind < 0.6:
        return f"INSERT INTO b VALUES ({i}, {s}, 'w{rng.randrange(100)}'), ({rng.randrange(12)}, {s}, 'x')"
    if kind < 0.8:
        return f"UPDATE b SET w = 'z{rng.randrange(100)}' WHERE id = {i}"
    return f"DELETE FROM b WHERE id = {i} AND s = {s}"


def one_round(binary, rng, workdir, r):
    wh = os.path.join(workdir, f"wh{r}")
    buckets = rng.choice([1, 2, 3])
    run(binary, wh,
        f"CREATE TABLE a (id INT, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '{buckets}');"
        f"CREATE TABLE b (id INT, s INT, w STRING, PRIMARY KEY (id, s) NOT ENFORCED) "
        f"WITH ('bucket' = '{rng.choice([1, 2])}', 'bucket-key' = 'id')")
    for _ in range(rng.randrange(0, 4)):
        run(binary, wh, random_statement(rng, rng.choice("ab")))
    query = ("SET 'execution.runtime-mode' = 'streaming'; "
             "SELECT a.id, a.v, b.s, b.w FROM a JOIN b ON a.id = b.id")
    out_path = os.path.join(workdir, f"stream{r}.csv")
    with open(out_path, "w") as out:
        reader = subprocess.Popen([binary, "sql", "--warehouse", wh, "--format", "csv",
                                   "--idle-timeout-ms", "2500", "-e", query],
                                  stdout=out, stderr=subprocess.PIPE, text=True)
        time.sleep(0.3)
        for _ in range(rng.randrange(6, 14)):
            if rng.random() < 0.4:
                # Both sides committed within milliseconds: the join sees two new snapshots at
                # once and must join each with the other side as processed, not as latest.
                a = f"INSERT INTO a VALUES ({rng.randrange(12)}, 'p{rng.randrange(100)}')"
                b = f"INSERT INTO b VALUES ({rng.randrange(12)}, {rng.randrange(3)}, 'q{rng.randrange(100)}')"
                first, second = (a, b) if rng.random() < 0.5 else (b, a)
                run(binary, wh, f"EXECUTE STATEMENT SET BEGIN {first}; {second}; END")
            else:
                run(binary, wh, random_statement(rng, rng.choice("ab")))
            if rng.random() < 0.3:
                time.sleep(0.1)
        _, err = reader.communicate(timeout=120)
    if reader.returncode != 0:
        print(f"round {r}: the streaming query failed: {err}")
        return False
    with open(out_path) as f:
        rows = list(csv.reader(f))
    state = collections.Counter()
    ok = True
    for row in rows[1:]:
        op, values = row[0], tuple(row[1:])
        if op in ("+I", "+U"):
            state[values] += 1
        else:
            if state[values] == 0:
                print(f"round {r}: {op} of {values} that is not in the result")
                ok = False
            state[values] -= 1
    state = collections.Counter({k: v for k, v in state.items() if v})
    batch = run(binary, wh, "SELECT a.id, a.v, b.s, b.w FROM a JOIN b ON a.id = b.id")
    want = collections.Counter(tuple(r) for r in list(csv.reader(io.StringIO(batch)))[1:])
    if state != want:
        print(f"round {r}: the materialized stream differs from the batch join")
        print(f"  stream only: {sorted((state - want).elements())}")
        print(f"  batch only:  {sorted((want - state).elements())}")
        ok = False
    return ok


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", default="build/tributary")
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    binary = os.path.abspath(args.binary)
    rng = random.Random(args.seed)
    workdir = tempfile.mkdtemp(prefix="tributary-delta-join-")
    failures = 0
    try:
        for r in range(args.rounds):
            if not one_round(binary, rng, workdir, r):
                failures += 1
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    print(f"delta join differential: {args.rounds} rounds, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
