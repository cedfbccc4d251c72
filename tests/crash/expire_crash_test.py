#!/usr/bin/env python3
"""Snapshot expiration stopped at any moment: a writer whose commit expires old snapshots is
killed between removing the snapshot files and removing the files only they used
(TRIBUTARY_CRASH_AT=expire.after-snapshots, src/commit/snapshot_expire.cc). The commit it made
stands, the table reads every committed batch, every snapshot left lists only files that exist,
and the next commits (with their expirations) work. Also checks CALL sys.expire_snapshots.

Usage: expire_crash_test.py --binary build/tributary [--dir DIR] [--keep]
"""

import argparse
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tributary_harness import (CRASH_EXIT, Failure, Tributary, check_table_invariants,  # noqa: E402
                               copy_binary, default_work_dir)

DDL = ("CREATE TABLE t (id BIGINT, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ("
       "'bucket' = '2', 'changelog-producer' = 'input', 'num-sorted-run.compaction-trigger' = '2', "
       "'snapshot.num-retained.min' = '2', 'snapshot.num-retained.max' = '3')")


def expect_rows(t, model, what):
    rows = {r["id"]: r["v"] for r in t.query("SELECT id, v FROM t")}
    if rows != model:
        raise Failure("%s: the table holds %r, expected %r" % (what, rows, model))


def record_snapshots(t, history, model):
    """Every snapshot not seen before was made by the statement just run: it reads as `model`."""
    for s in t.snapshots("t"):
        history.setdefault(s["snapshot_id"], dict(model))


def check_snapshots_complete(t, history, what):
    """Every remaining snapshot reads the rows it was committed with: the files its live set
    lists exist and hold them (the reads above prove the latest; this covers the older ones,
    which time travel may read). Rows, not COUNT(*), which the manifests alone can answer."""
    for s in t.snapshots("t"):
        sid = s["snapshot_id"]
        if sid not in history:
            raise Failure("%s: snapshot %d was never seen committed" % (what, sid))
        rows = {r["id"]: r["v"] for r in t.query(
            "SELECT id, v FROM t /*+ OPTIONS('scan.snapshot-id' = '%d') */" % sid,
            what="%s: read of snapshot %d" % (what, sid))}
        if rows != history[sid]:
            raise Failure("%s: snapshot %d reads %r, it was committed as %r" %
                          (what, sid, rows, history[sid]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    ap.add_argument("--dir", default=None)
    ap.add_argument("--keep", action="store_true")
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="trib_expire_", dir=args.dir or default_work_dir())
    try:
        binary = copy_binary(args.binary, work)
        t = Tributary(binary, os.path.join(work, "wh"))
        t.sql(DDL)
        model = {}
        history = {}  # snapshot id -> the rows it was committed with
        for b in range(6):
            rows = {(b * 3 + i) % 7: "b%d-%d" % (b, i) for i in range(4)}
            model.update(rows)
            t.sql("INSERT INTO t VALUES " + ", ".join("(%d, '%s')" % kv for kv in rows.items()))
            record_snapshots(t, history, model)
        ids = [s["snapshot_id"] for s in t.snapshots("t")]
        if len(ids) > 3:
            raise Failure("after 6 commits with 'snapshot.num-retained.max' = '3': snapshots %r" % ids)
        # A commit whose expiration is cut short.
        t.sql("INSERT INTO t VALUES (100, 'crash')", crash_at="expire.after-snapshots",
              expect=CRASH_EXIT, what="INSERT that crashes while expiring")
        model[100] = "crash"
        record_snapshots(t, history, model)
        expect_rows(t, model, "after the crash")
        check_snapshots_complete(t, history, "after the crash")
        check_table_invariants(t, "t", expiring=True)
        for b in range(3):
            t.sql("INSERT INTO t VALUES (%d, 'after%d')" % (200 + b, b))
            model[200 + b] = "after%d" % b
            record_snapshots(t, history, model)
        t.sql("CALL sys.compact('default.t')")
        record_snapshots(t, history, model)
        expect_rows(t, model, "after more commits")
        check_snapshots_complete(t, history, "after more commits")
        ids = [s["snapshot_id"] for s in t.snapshots("t")]
        if len(ids) > 3:
            raise Failure("after the crash, expiration stopped working: snapshots %r" % ids)
        # The procedure, with Paimon's argument names.
        out = t.sql("CALL sys.expire_snapshots(`table` => 'default.t', retain_max => 1, retain_min => 1)").stderr
        if "Expired" not in out:
            raise Failure("CALL sys.expire_snapshots printed %r" % out)
        ids = [s["snapshot_id"] for s in t.snapshots("t")]
        if len(ids) != 1:
            raise Failure("retain_max => 1 left snapshots %r" % ids)
        expect_rows(t, model, "after CALL sys.expire_snapshots")
        bad = t.sql("CALL sys.expire_snapshots(`table` => 'default.t', retain_maxx => 1)", expect=1)
        if "retain_max" not in bad.stderr:
            raise Failure("a misspelt argument: %r" % bad.stderr)
        print("expire_crash_test: all passed")
        return 0
    except Failure as e:
        print("FAIL %s" % e)
        return 1
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
