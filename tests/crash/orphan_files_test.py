#!/usr/bin/env python3
"""CALL sys.remove_orphan_files after writers were killed at each point of a commit: the files a
killed statement left (data, changelog, manifests, manifest lists, index files) are exactly the
orphans a dry run reports and the call removes; every file a snapshot or a tag uses stays, so
the table, every snapshot and the tag read as before; files younger than 'older_than' (by
default a day) are never touched.

Usage: orphan_files_test.py --binary build/tributary [--dir DIR] [--keep] [--seed N]
"""

import argparse
import collections
import os
import random
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tributary_harness import (CRASH_EXIT, Failure, Tributary, check_table_invariants,  # noqa: E402
                               copy_binary, default_work_dir)

# A partitioned table with dynamic buckets (HASH index files in index/) and an input changelog.
DDL = ("CREATE TABLE t (dt STRING, id BIGINT, v STRING, PRIMARY KEY (dt, id) NOT ENFORCED) "
       "PARTITIONED BY (dt) WITH ('bucket' = '-1', 'changelog-producer' = 'input', "
       "'num-sorted-run.compaction-trigger' = '2')")
# Points at which a killed statement has committed nothing.
UNCOMMITTED = ["write.after-flush", "commit.after-manifests", "commit.before-snapshot",
               "compact.after-rewrite"]
ATTEMPTS = 8  # statements tried per crash point and round
FUTURE = "2999-01-01 00:00:00"
META_DIRS = ("schema", "snapshot", "tag", "consumer")


def files_on_disk(table_dir):
    out = set()
    for root, _, names in os.walk(table_dir):
        rel_root = os.path.relpath(root, table_dir)
        if rel_root.split(os.sep)[0] in META_DIRS:
            continue
        for n in names:
            out.add(os.path.normpath(os.path.join(rel_root, n)))
    return out


def insert(rng, step):
    rows = ["('d%d', %d, 's%d')" % (rng.randrange(3), rng.randrange(40), step)
            for _ in range(rng.randint(3, 12))]
    return "INSERT INTO t VALUES " + ", ".join(rows)


def reads(t):
    """Every snapshot's rows and the tag's, keyed by what was read."""
    out = {"latest": sorted(map(repr, t.query("SELECT * FROM t")))}
    for s in t.snapshots("t"):
        sid = s["snapshot_id"]
        out["snapshot %d" % sid] = sorted(map(repr, t.query(
            "SELECT * FROM t /*+ OPTIONS('scan.snapshot-id' = '%d') */" % sid)))
    out["tag"] = sorted(map(repr, t.query(
        "SELECT * FROM t /*+ OPTIONS('scan.tag-name' = 'kept') */")))
    return out


def orphan_call(t, args):
    rows = t.query("CALL sys.remove_orphan_files(%s)" % args)
    if len(rows) != 1:
        raise Failure("remove_orphan_files(%s) returned %r" % (args, rows))
    return rows[0]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    ap.add_argument("--dir", default=None)
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--seed", type=int, default=3)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    work = tempfile.mkdtemp(prefix="trib_orphans_", dir=args.dir or default_work_dir())
    try:
        binary = copy_binary(args.binary, work)
        t = Tributary(binary, os.path.join(work, "wh"))
        t.sql(DDL)
        table_dir = os.path.join(t.warehouse, "default.db", "t")
        for step in range(4):
            t.sql(insert(rng, step))
        t.sql("CALL sys.create_tag('default.t', 'kept', 2)")
        expected = set()
        killed = 0
        reached = collections.Counter()  # crash point -> statements killed there
        for round_ in range(2):
            for point in UNCOMMITTED:
                # Until a statement reaches the point (a compaction runs only when the picker
                # says so); one that finishes first has committed its files. Each point must be
                # reached in each round, or the orphans of that point were never made.
                for attempt in range(ATTEMPTS):
                    before = files_on_disk(table_dir)
                    p = t.sql(insert(rng, 100 + round_), crash_at=point, expect=None)
                    if p.returncode == CRASH_EXIT:
                        expected |= files_on_disk(table_dir) - before
                        killed += 1
                        reached[point] += 1
                        break
                    if p.returncode != 0:
                        raise Failure("INSERT with a crash at %s failed: %s" % (point, p.stderr))
                else:
                    raise Failure("round %d: no INSERT of %d reached the crash point %s" %
                                  (round_, ATTEMPTS, point))
                t.sql(insert(rng, 200 + round_))  # a commit after the crash
        if not expected:
            raise Failure("the killed statements left no file: the test proves nothing")
        check_table_invariants(t, "t")
        before_reads = reads(t)
        before_files = files_on_disk(table_dir)
        # Younger than a day: nothing goes by default.
        r = orphan_call(t, "'default.t'")
        if r["deleted_file_count"] != 0 or files_on_disk(table_dir) != before_files:
            raise Failure("the default 'older_than' (a day ago) removed young files: %r" % r)
        dry = t.run([binary, "sql", "--warehouse", t.warehouse, "-e",
                     "CALL sys.remove_orphan_files('default.t', '%s', TRUE)" % FUTURE])
        reported = set(line.split(": ", 1)[1] for line in dry.stderr.splitlines()
                       if line.startswith("  default.t: "))
        if reported != expected:
            raise Failure("the dry run reports %d files, the killed statements left %d:\n"
                          "  not reported: %s\n  reported but not left: %s" %
                          (len(reported), len(expected), sorted(expected - reported)[:10],
                           sorted(reported - expected)[:10]))
        if files_on_disk(table_dir) != before_files:
            raise Failure("the dry run removed files")
        r = orphan_call(t, "`table` => 'default.*', older_than => '%s'" % FUTURE)
        if r["deleted_file_count"] != len(expected):
            raise Failure("removed %d files, expected %d" % (r["deleted_file_count"],
                                                             len(expected)))
        if files_on_disk(table_dir) != before_files - expected:
            raise Failure("the files left are not the ones before minus the orphans: missing "
                          "%s" % sorted((before_files - expected) - files_on_disk(table_dir))[:10])
        if reads(t) != before_reads:
            raise Failure("a snapshot or the tag reads differently after removing orphans")
        check_table_invariants(t, "t")
        r = orphan_call(t, "'default.t', '%s'" % FUTURE)
        if r["deleted_file_count"] != 0:
            raise Failure("a second call found %d more orphans" % r["deleted_file_count"])
        t.sql(insert(rng, 999))  # the table is still writable
        print("orphan_files_test: %d orphans of %d killed statements (%s) found and removed; "
              "every snapshot and the tag read as before" %
              (len(expected), killed, ", ".join("%s %d" % kv for kv in sorted(reached.items()))))
        return 0
    except Failure as e:
        print("FAIL: %s" % e, file=sys.stderr)
        return 1
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
