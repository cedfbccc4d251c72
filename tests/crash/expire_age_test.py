#!/usr/bin/env python3
"""Snapshot expiration by age (docs/streaming.md, "Snapshot expiration"):

1. 'snapshot.time-retained': with 'snapshot.num-retained.min' = '1' only age keeps a snapshot.
   Three commits in a row all stay (each is younger than the retention when the next commits);
   after a pause longer than the retention the next commit expires all three, and the commit
   right after it keeps it (young). The rows of the latest snapshot and of the oldest one kept
   (time travel) are read, not counted, and time travel to an expired snapshot fails.
2. `CALL sys.expire_snapshots(..., older_than => ...)`, read in the session time zone (the test
   runs in Asia/Tokyo, nine hours from the UTC commit times of t$snapshots): a cut at the first
   snapshot's second expires nothing; a cut at the second in which the fourth was committed (a
   pause of more than a second before it) expires the first three only; a cut in the future
   keeps 'retain_min' snapshots.

Usage: expire_age_test.py --binary build/tributary [--dir DIR] [--keep]
"""

import argparse
import datetime
import os
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tributary_harness import Failure, Tributary, copy_binary, default_work_dir  # noqa: E402

RETAINED_S = 2
ZONE = "Asia/Tokyo"
ZONE_OFFSET = datetime.timedelta(hours=9)  # Japan has no daylight saving time
# One snapshot per commit (no COMPACT snapshot among them), so snapshot ids are commit numbers.
NO_COMPACTION = "'num-sorted-run.compaction-trigger' = '50'"

# Five commits; each key's value says which commit wrote it last.
COMMITS = ["INSERT INTO %s VALUES (1, 'a1'), (2, 'b1')", "INSERT INTO %s VALUES (1, 'a2')",
           "INSERT INTO %s VALUES (3, 'c3')", "INSERT INTO %s VALUES (2, 'b4')",
           "INSERT INTO %s VALUES (1, 'a5'), (4, 'd5')"]
AT_4 = {1: "a2", 2: "b4", 3: "c3"}
AT_5 = {1: "a5", 2: "b4", 3: "c3", 4: "d5"}


def ids(t, table):
    return [s["snapshot_id"] for s in t.snapshots(table)]


def expect_ids(t, table, want, what):
    got = ids(t, table)
    if got != want:
        raise Failure("%s: snapshots %r, expected %r" % (what, got, want))


def expect_rows(t, table, want, what, snapshot=None):
    hint = "" if snapshot is None else \
        " /*+ OPTIONS('scan.snapshot-id' = '%d') */" % snapshot
    rows = {r["id"]: r["v"] for r in t.query("SELECT id, v FROM %s%s" % (table, hint))}
    if rows != want:
        raise Failure("%s: %s reads %r, expected %r" %
                      (what, "the table" if snapshot is None else "snapshot %d" % snapshot,
                       rows, want))


def expect_expired(t, table, snapshot, what):
    p = t.sql("SELECT * FROM %s /*+ OPTIONS('scan.snapshot-id' = '%d') */" % (table, snapshot),
              expect=None)
    if p.returncode == 0:
        raise Failure("%s: time travel to expired snapshot %d succeeded" % (what, snapshot))


def commits(t, table, which):
    """Commits COMMITS[which], one process each: tens of milliseconds apart, far less than the
    retention (and more than a retention of a millisecond, which must expire them)."""
    for i in which:
        t.sql(COMMITS[i] % table)


def in_zone(commit_time):
    """t$snapshots' commit_time (UTC) as a wall time of ZONE to the second, for older_than."""
    # A TIMESTAMP(3) prints without its fraction when the milliseconds are 000.
    fmt = "%Y-%m-%d %H:%M:%S.%f" if "." in commit_time else "%Y-%m-%d %H:%M:%S"
    utc = datetime.datetime.strptime(commit_time, fmt)
    local = utc + ZONE_OFFSET
    return local.strftime("%Y-%m-%d %H:%M:%S")


def time_retained(t):
    t.sql("CREATE TABLE t (id BIGINT, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ("
          "'bucket' = '1', %s, 'snapshot.num-retained.min' = '1', "
          "'snapshot.time-retained' = '%d s')" % (NO_COMPACTION, RETAINED_S))
    commits(t, "t", [0, 1, 2])
    expect_ids(t, "t", [1, 2, 3], "three commits younger than 'snapshot.time-retained'")
    time.sleep(RETAINED_S + 0.5)
    commits(t, "t", [3, 4])
    expect_ids(t, "t", [4, 5], "commits after a pause of %.1f s" % (RETAINED_S + 0.5))
    expect_rows(t, "t", AT_5, "after expiration by age")
    expect_rows(t, "t", AT_4, "after expiration by age", snapshot=4)
    expect_expired(t, "t", 3, "after expiration by age")


def older_than(t):
    t.sql("CREATE TABLE u (id BIGINT, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ("
          "'bucket' = '1', %s, 'snapshot.num-retained.min' = '1')" % NO_COMPACTION)
    commits(t, "u", [0, 1, 2])
    time.sleep(1.2)  # the fourth commit is in a later second than the third
    commits(t, "u", [3, 4])
    expect_ids(t, "u", [1, 2, 3, 4, 5], "commits younger than the default 1 h")
    snaps = t.snapshots("u")

    def expire(cut, extra=""):
        t.sql("SET 'table.local-time-zone' = '%s'; CALL sys.expire_snapshots(`table` => "
              "'default.u', older_than => '%s'%s)" % (ZONE, cut, extra))

    cut = in_zone(snaps[0]["commit_time"])
    expire(cut)
    expect_ids(t, "u", [1, 2, 3, 4, 5], "older_than => '%s' (%s; snapshot 1 committed at %s "
               "UTC)" % (cut, ZONE, snaps[0]["commit_time"]))
    cut = in_zone(snaps[3]["commit_time"])
    expire(cut)
    expect_ids(t, "u", [4, 5], "older_than => '%s' (%s; snapshots 3 and 4 committed at %s and "
               "%s UTC)" % (cut, ZONE, snaps[2]["commit_time"], snaps[3]["commit_time"]))
    expect_rows(t, "u", AT_5, "after older_than")
    expect_rows(t, "u", AT_4, "after older_than", snapshot=4)
    expect_expired(t, "u", 3, "after older_than")
    expire("2999-01-01 00:00:00", ", retain_min => 2")
    expect_ids(t, "u", [4, 5], "older_than in the future with retain_min => 2")
    expire("2999-01-01 00:00:00")
    expect_ids(t, "u", [5], "older_than in the future ('snapshot.num-retained.min' = '1')")
    expect_rows(t, "u", AT_5, "after expiring all but the latest")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    ap.add_argument("--dir", default=None)
    ap.add_argument("--keep", action="store_true")
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="trib_expire_age_", dir=args.dir or default_work_dir())
    try:
        t = Tributary(copy_binary(args.binary, work), os.path.join(work, "wh"))
        time_retained(t)
        older_than(t)
        print("expire_age_test: 'snapshot.time-retained' and older_than expire exactly the old "
              "snapshots; the rows kept read as committed")
        return 0
    except Failure as e:
        print("FAIL %s" % e)
        return 1
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
