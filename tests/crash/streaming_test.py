#!/usr/bin/env python3
"""Streaming differential test: a streaming SELECT follows a table while several writer
processes commit to it (and compact it); the changes it printed, applied in order to an empty
table, must equal a batch read of the table after the last commit: no change missing or doubled,
at the seam between the snapshot a `full` start-up reads and the changes after it either. A
CALL sys.compact runs meanwhile.
Run for each changelog producer (none, input, lookup, full-compaction). Writers use disjoint keys (racing
writers of one key are the concurrency test's business) but share every bucket.

Usage: streaming_test.py --binary build/tributary [--dir DIR] [--keep] [--seed N]
"""

import argparse
import csv
import io
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tributary_harness import Failure, Tributary, copy_binary, default_work_dir  # noqa: E402

WRITERS = 3
STATEMENTS = 12
IDLE_MS = 4000


def writer_script(w, rng):
    """INSERTs (upserts) and DELETEs of writer w's keys (w, w + WRITERS, ...)."""
    keys = [w + WRITERS * i for i in range(15)]
    stmts = []
    for s in range(STATEMENTS):
        if s % 4 == 3:
            stmts.append("DELETE FROM t WHERE id IN (%s)" %
                         ", ".join(str(k) for k in rng.sample(keys, 3)))
        else:
            rows = ["(%d, 'w%d-s%d')" % (k, w, s) for k in rng.sample(keys, 5)]
            stmts.append("INSERT INTO t VALUES " + ", ".join(rows))
    return stmts


def materialize(csv_text, what):
    state = {}
    reader = csv.reader(io.StringIO(csv_text))
    header = next(reader, None)
    if header != ["op", "id", "v"]:
        raise Failure("%s: stream header %r" % (what, header))
    for row in reader:
        op, key, v = row[0], int(row[1]), row[2]
        if op in ("+I", "+U"):
            state[key] = v
        elif op in ("-U", "-D"):
            if state.get(key) != v:
                raise Failure("%s: %s of (%d, %s) but the stream holds %r for the key" %
                              (what, op, key, v, state.get(key)))
            del state[key]
        else:
            raise Failure("%s: unknown op %r" % (what, op))
    return state


def run_case(binary, root, producer, seed):
    rng = random.Random(seed)
    t = Tributary(binary, os.path.join(root, producer))
    t.sql("CREATE TABLE t (id BIGINT, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ("
          "'bucket' = '2', 'changelog-producer' = '%s', "
          "'num-sorted-run.compaction-trigger' = '3')" % producer)
    t.sql("INSERT INTO t VALUES " + ", ".join("(%d, 'initial')" % k for k in range(0, 45, 2)))
    reader = subprocess.Popen(
        [binary, "sql", "--warehouse", t.warehouse, "--format", "csv", "--idle-timeout-ms",
         str(IDLE_MS), "-e", "SET 'execution.runtime-mode' = 'streaming'; SELECT * FROM t"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(0.3)  # the reader plans its snapshot while the writers start
    writers = []
    for w in range(WRITERS):
        script = "; ".join(writer_script(w, rng))
        writers.append(subprocess.Popen(
            [binary, "sql", "--warehouse", t.warehouse, "-e", script],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True))
    # A full compaction meanwhile, as an operator would run it (it may lose a race with a
    # writer's compaction: then it says so and changes nothing).
    time.sleep(0.5)
    c = t.run([binary, "sql", "--warehouse", t.warehouse, "-e", "CALL sys.compact('default.t')"],
              expect=None)
    if c.returncode != 0 and "lost a race" not in c.stderr:
        raise Failure("%s: CALL sys.compact failed: %s" % (producer, c.stderr.strip()[-500:]))
    for w, p in enumerate(writers):
        _, err = p.communicate(timeout=300)
        if p.returncode != 0:
            raise Failure("%s: writer %d failed: %s" % (producer, w, err.strip()[-1000:]))
    if producer == "full-compaction":
        # The changelog of the last commits comes with the next full compaction (a writer whose
        # own lost a race to another leaves it to the next one).
        t.sql("CALL sys.compact('default.t')")
    out, err = reader.communicate(timeout=300)
    if reader.returncode != 0:
        raise Failure("%s: the streaming reader failed: %s" % (producer, err.strip()[-1000:]))
    streamed = materialize(out, producer)
    batch = {r["id"]: r["v"] for r in t.query("SELECT id, v FROM t")}
    if streamed != batch:
        missing = sorted(set(batch.items()) - set(streamed.items()))[:10]
        extra = sorted(set(streamed.items()) - set(batch.items()))[:10]
        raise Failure("%s: the stream does not add up to the table: missing %r, extra %r" %
                      (producer, missing, extra))
    print("ok   %s: %d changes streamed, %d rows" % (producer, out.count("\n") - 1, len(batch)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    ap.add_argument("--dir", default=None)
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--seed", type=int, default=11)
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="trib_stream_", dir=args.dir or default_work_dir())
    try:
        binary = copy_binary(args.binary, work)
        for i, producer in enumerate(["none", "input", "lookup", "full-compaction"]):
            run_case(binary, work, producer, args.seed + i)
        print("streaming_test: all passed")
        return 0
    except Failure as e:
        print("FAIL %s" % e)
        return 1
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
