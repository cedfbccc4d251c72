#!/usr/bin/env python3
"""Regression test (it was the reproduction of issue 15 item 1): two writers that start from the
same table state gave the same key the same sequence number, and a later COMPACT snapshot changed
which of the two values was visible, with no write in between. (Found by concurrency_test.py,
"same keys".) Fixed by the commit: a bucket's new files whose sequence numbers a concurrent
commit reached are renumbered above them (the later commit wins) and that bucket's compaction,
which merged a stale view, is dropped (commit/file_store_commit.cc AppendDelta). Run by
tests/crash/run_all.sh (make test).

Steps, on a primary-key table with one bucket and 'num-sorted-run.compaction-trigger' = '2':
  1. writer A (`tributary ingest`, --commit-every 2, fed through a pipe) writes k='A': it
     restores the empty table, so k gets sequence number 0; A waits for its second event.
  2. writer B (`tributary sql`) inserts k='B': also sequence 0; commits snapshot 1.
  3. writer C (ingest through a pipe) writes key 100: it restores {B's file} (next sequence 1).
  4. A gets its second event and commits snapshot 2. SELECT shows k='A' (A committed last).
  5. C gets its second event and commits: APPEND snapshot 3, then its own compaction of the
     files it knows ({B's file, C's file}) into one file at the top level, COMPACT snapshot 4.
  Snapshot 3 shows k='A'; snapshot 4, a compaction, shows k='B'.

Why it happened: the equal sequence numbers are broken by file order (table_read.cc ReadSplit sorts a
split's files by max_sequence_number and the loser tree prefers the earlier source on a tie);
compacting B's file into a file with a higher max_sequence_number moves B's record after A's.
Root cause: a writer numbers records from the state it restored (table_write.cc GetBucket /
Restore), and the commit (file_store_commit.cc) does not detect that another writer committed
files with overlapping sequence numbers to the same bucket in between.

Usage: repro_seq_tie_compaction.py [build/tributary]. Exit status 1 when a COMPACT snapshot
changes the value of k=1, or the latest snapshot does not show A's value (A committed last).
"""

import json
import os
import subprocess
import sys
import tempfile
import time


def main():
    binary = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build/tributary")
    wh = tempfile.mkdtemp(prefix="tributary-repro-")

    def sql(text):
        p = subprocess.run([binary, "sql", "--warehouse", wh, "--format", "json", "-e", text],
                           capture_output=True, text=True, check=True)
        return [json.loads(line) for line in p.stdout.splitlines() if line.strip()]

    def ingest():
        return subprocess.Popen([binary, "ingest", "--warehouse", wh, "--table", "default.t",
                                 "--format", "debezium-json", "--commit-every", "2", "-"],
                                stdin=subprocess.PIPE, text=True)

    def feed(p, key, v):
        p.stdin.write(json.dumps({"before": None, "after": {"id": key, "v": v}, "op": "c"}) + "\n")
        p.stdin.flush()
        time.sleep(0.5)  # let it read the line (and restore the table state on its first one)

    sql("CREATE TABLE t (id BIGINT, v STRING, PRIMARY KEY (id) NOT ENFORCED) "
        "WITH ('bucket' = '1', 'num-sorted-run.compaction-trigger' = '2')")
    a = ingest()
    feed(a, 1, "A")                               # 1. A: k=1 -> 'A', sequence 0
    sql("INSERT INTO t VALUES (1, 'B')")          # 2. B: k=1 -> 'B', sequence 0, snapshot 1
    c = ingest()
    feed(c, 100, "c1")                            # 3. C restores {B's file}
    feed(a, 101, "a2")                            # 4. A commits snapshot 2
    a.stdin.close()
    a.wait()
    print("after A committed:", sql("SELECT * FROM t WHERE id = 1"))
    feed(c, 102, "c2")                            # 5. C commits APPEND 3 + COMPACT 4
    c.stdin.close()
    c.wait()
    snaps = sql("SELECT snapshot_id, commit_kind FROM t$snapshots")
    values = {}
    for s in snaps:
        sid = s["snapshot_id"]
        rows = sql("SELECT v FROM t /*+ OPTIONS('scan.snapshot-id' = '%d') */ WHERE id = 1" % sid)
        values[sid] = rows[0]["v"] if rows else None
        print("snapshot %d %-8s k=1 -> %s" % (sid, s["commit_kind"], values[sid]))
    bad = [s["snapshot_id"] for s in snaps
           if s["commit_kind"] == "COMPACT" and values[s["snapshot_id"]] != values[s["snapshot_id"] - 1]]
    if bad:
        print("BUG: COMPACT snapshot(s) %s changed the value of k=1 (warehouse %s)" % (bad, wh))
        return 1
    latest = max(values)
    if values[latest] != "A":
        print("BUG: the latest snapshot %d shows k=1 -> %s, not 'A' (A committed after B; "
              "warehouse %s)" % (latest, values[latest], wh))
        return 1
    print("not reproduced")
    return 0


if __name__ == "__main__":
    sys.exit(main())
