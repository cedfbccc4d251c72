#!/usr/bin/env python3
"""Several processes write different columns of the same rows at the same time (FEATURES 1.5,
seed 004's rec_score / imp_cnt / click_cnt jobs): nothing any of them wrote may be lost.

Each writer owns one column and runs many INSERT INTO t (id, <col>) statements over the same
keys, with increasing values; a compaction loop runs alongside. At the end every row must hold,
in every column, the last value that column's writer wrote for it."""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

KEYS = 12
ROUNDS = 40
COLUMNS = ["rec_score", "imp_cnt", "click_cnt"]
# The one way CALL sys.compact may fail here: a writer committed over the files it compacted, so
# nothing of it was published (src/write/append_compact.cc). Any other failure fails the test.
RACE_LOST = "full compaction lost a race with another writer; run it again"


def run(binary, warehouse, sql):
    return subprocess.run([binary, "sql", "--warehouse", warehouse, "--format", "csv", "-e", sql],
                          capture_output=True, text=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", default="build/tributary")
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="tributary-partial-", dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
    binary = os.path.join(tmp, "tributary")
    shutil.copy(args.binary, binary)
    wh = os.path.join(tmp, "wh")
    try:
        r = run(binary, wh, "CREATE TABLE t (id BIGINT, rec_score BIGINT, imp_cnt BIGINT, "
                            "click_cnt BIGINT, PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '2', "
                            "'num-sorted-run.compaction-trigger' = '3')")
        assert r.returncode == 0, r.stderr
        errors = []

        def writer(col_index):
            col = COLUMNS[col_index]
            for i in range(ROUNDS):
                values = ", ".join("(%d, %d)" % (k, i * 100 + col_index) for k in range(KEYS))
                r = run(binary, wh, "INSERT INTO t (id, %s) VALUES %s" % (col, values))
                if r.returncode != 0:
                    errors.append("%s round %d: %s" % (col, i, r.stderr.strip()))
                    return

        stop = threading.Event()

        compactions = [0, 0]  # published, lost a race (a writer committed the files it read)

        def compactor():  # until the writers are done and at least one compaction published
            while not stop.is_set() or compactions[0] == 0:
                r = run(binary, wh, "CALL sys.compact('default.t')")
                if r.returncode == 0:
                    compactions[0] += 1
                elif RACE_LOST in r.stderr:
                    compactions[1] += 1
                else:
                    errors.append("CALL sys.compact: exit status %d: %s" %
                                  (r.returncode, r.stderr.strip()))
                    return
                if stop.is_set() and compactions[0] == 0:
                    errors.append("CALL sys.compact lost a race with no writer left (%d lost)" %
                                  compactions[1])
                    return
                time.sleep(0.05)

        start = time.time()
        threads = [threading.Thread(target=writer, args=(c,)) for c in range(len(COLUMNS))]
        comp = threading.Thread(target=compactor)
        for t in threads:
            t.start()
        comp.start()
        for t in threads:
            t.join()
        stop.set()
        comp.join()
        if errors:
            print("FAIL partial columns: a writer or the compaction loop failed: " + errors[0])
            return 1
        r = run(binary, wh, "SELECT * FROM t ORDER BY id")
        assert r.returncode == 0, r.stderr
        lines = r.stdout.strip().splitlines()[1:]
        want = [",".join([str(k)] + [str((ROUNDS - 1) * 100 + c) for c in range(len(COLUMNS))])
                for k in range(KEYS)]
        if lines != want:
            print("FAIL partial columns: expected every column to hold its writer's last value")
            print("  want: %s\n  got:  %s" % (want[:3], lines[:3]))
            return 1
        print("  ok  partial columns: %d writers x %d statements on %d shared keys, each writing "
              "its own column, with %d compactions (and %d that lost a race), in %.1fs: nothing "
              "lost" % (len(COLUMNS), ROUNDS, KEYS, compactions[0], compactions[1],
                        time.time() - start))
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
