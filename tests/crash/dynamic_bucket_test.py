#!/usr/bin/env python3
"""Dynamic bucket mode ('bucket' = '-1') with several writer processes at once: every key must
end up in exactly one bucket (the HASH index and the table lock keep concurrent writers from
assigning a new key twice), and the buckets fill up to 'dynamic-bucket.target-row-num'.

A full compaction at the end leaves one file per bucket holding each of its keys once, so the
files' record counts are the keys per bucket: none may hold more than the target, and a new
bucket opens only when the others are full (src/write/dynamic_bucket.h), so the 2 * ROUNDS keys
fill ceil(2 * ROUNDS / TARGET) buckets, all full but the last one."""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

WRITERS = 4
ROUNDS = 12
TARGET = 5
INITIAL = 2  # 'dynamic-bucket.initial-buckets' (its default, one per thread, differs by machine)


def run(binary, wh, sql):
    return subprocess.run([binary, "sql", "--warehouse", wh, "--format", "csv", "-e", sql],
                          capture_output=True, text=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", default="build/tributary")
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="tributary-dyn-",
                           dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
    binary = os.path.join(tmp, "tributary")
    shutil.copy(args.binary, binary)
    wh = os.path.join(tmp, "wh")
    try:
        r = run(binary, wh, "CREATE TABLE t (id BIGINT, v STRING, PRIMARY KEY (id) NOT ENFORCED) "
                            "WITH ('dynamic-bucket.target-row-num' = '%d', "
                            "'dynamic-bucket.initial-buckets' = '%d')" % (TARGET, INITIAL))
        assert r.returncode == 0, r.stderr
        errors = []

        def writer(w):
            for i in range(ROUNDS):
                # Every writer writes the same keys: new keys race for a bucket.
                r = run(binary, wh, "INSERT INTO t VALUES (%d, 'w%d'), (%d, 'w%d')" %
                        (i, w, i + 1000, w))
                if r.returncode != 0:
                    errors.append(r.stderr.strip())
                    return

        start = time.time()
        threads = [threading.Thread(target=writer, args=(w,)) for w in range(WRITERS)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if errors:
            print("FAIL dynamic bucket: a writer failed: " + errors[0])
            return 1
        r = run(binary, wh, "SELECT COUNT(*), COUNT(DISTINCT id) FROM t")
        total, distinct = r.stdout.strip().splitlines()[1].split(",")
        if total != distinct or int(distinct) != 2 * ROUNDS:
            print("FAIL dynamic bucket: %s rows for %s distinct keys (want %d, one row per key)" %
                  (total, distinct, 2 * ROUNDS))
            return 1
        r = run(binary, wh, "CALL sys.compact('default.t')")
        if r.returncode != 0:
            print("FAIL dynamic bucket: CALL sys.compact: " + r.stderr.strip())
            return 1
        r = run(binary, wh, "SELECT bucket, COUNT(*), SUM(record_count) FROM t$files "
                            "GROUP BY bucket ORDER BY bucket")
        per_bucket = [tuple(int(x) for x in line.split(","))
                      for line in r.stdout.strip().splitlines()[1:]]
        keys = 2 * ROUNDS
        want_buckets = -(-keys // TARGET)
        sizes = [n for _, _, n in per_bucket]
        problems = []
        if any(files != 1 for _, files, _ in per_bucket):
            problems.append("a bucket holds more than one file after a full compaction")
        if sum(sizes) != keys:
            problems.append("the buckets hold %d keys, want %d (a key in two buckets?)" %
                            (sum(sizes), keys))
        if max(sizes, default=0) > TARGET:
            problems.append("a bucket holds more than %d keys" % TARGET)
        if len(per_bucket) != want_buckets or sorted(sizes)[1:] != [TARGET] * (want_buckets - 1):
            problems.append("want %d buckets, all of %d keys but one" % (want_buckets, TARGET))
        if problems:
            print("FAIL dynamic bucket ('dynamic-bucket.target-row-num' = '%d'): %s; "
                  "(bucket, files, keys): %s" % (TARGET, "; ".join(problems), per_bucket))
            return 1
        print("  ok  dynamic bucket: %d writers x %d statements racing for new keys in %.1fs: "
              "%s keys, one row each, in %d buckets of %s keys (target %d)" %
              (WRITERS, ROUNDS, time.time() - start, distinct, len(per_bucket),
               "/".join(map(str, sizes)), TARGET))
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
