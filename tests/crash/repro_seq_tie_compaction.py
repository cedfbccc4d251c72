#!/usr/bin/env python3
"""Regression test (it was the reproduction of issue 15 item 1): two writers that start from the
same table state gave the same key the same sequence number, and a later COMPACT snapshot changed
which of the two values was visible, with no write in between. (Found by concurrency_test.py,
"same keys".) Fixed by the commit: a bucket's new files whose sequence numbers a concurrent
commit reached are renumbered above them (the later commit wins) and that bucket's compaction,
which merged a stale view, is dropped (commit/file_store_commit.cc AppendDelta). Run by
tests/crash/run_all.sh (make test).

Steps, on a primary-key table with one bucket and 'num-sorted-run.compaction-trigger' = '2'.
Each step waits until the ingest it fed has read the line and gone back to waiting for the next
one (its pipe is empty and it sleeps in poll), so the order does not hang on a sleep:
  1. writer A (`tributary ingest`, --commit-every 2, fed through a pipe) writes k='A': it
     restores the empty table, so k gets sequence number 0; A waits for its second event.
  2. writer B (`tributary sql`) inserts k='B': also sequence 0; commits snapshot 1.
  3. writer C (ingest through a pipe) writes key 100: it restores {B's file} (next sequence 1).
  4. A gets its second event and commits snapshot 2. Snapshot 1 shows k='B', 2 shows k='A'.
  5. C gets its second event and commits: APPEND snapshot 3, and its own compaction of the
     files it knows ({B's file, C's file}); with the fix that compaction is dropped, since it
     merged a stale view.
  6. CALL sys.compact: a full compaction of A's and B's files, a COMPACT snapshot.
Before the fix, the COMPACT snapshot of step 5 showed k='B'. Every COMPACT snapshot must show
what the snapshot before it showed, there must be one, and the latest must show 'A'.

Why it happened: the equal sequence numbers are broken by file order (table_read.cc ReadSplit sorts a
split's files by max_sequence_number and the loser tree prefers the earlier source on a tie);
compacting B's file into a file with a higher max_sequence_number moves B's record after A's.
Root cause: a writer numbers records from the state it restored (table_write.cc GetBucket /
Restore), and the commit (file_store_commit.cc) does not detect that another writer committed
files with overlapping sequence numbers to the same bucket in between.

Usage: repro_seq_tie_compaction.py [build/tributary] [--keep]. Exit status 1 when a COMPACT
snapshot changes the value of k=1, there is no COMPACT snapshot, or the latest snapshot does not
show A's value (A committed last). The warehouse is removed unless --keep.
"""

import fcntl
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import termios
import time

# poll and ppoll, as /proc/<pid>/syscall numbers them (when /proc/<pid>/wchan does not say).
POLL_SYSCALLS = {"x86_64": ("7", "271"), "aarch64": ("73",)}.get(platform.machine(), ())


def wait_idle(p, what):
    """Until ingest `p` has read everything written to its stdin and sleeps in poll() waiting for
    more: every line it was given is processed (and its table state restored)."""
    deadline = time.time() + 60
    while time.time() < deadline:
        unread = int.from_bytes(fcntl.ioctl(p.stdin.fileno(), termios.FIONREAD, b"\0" * 4),
                                sys.byteorder, signed=True)
        try:
            with open("/proc/%d/wchan" % p.pid) as f:
                wchan = f.read()
            with open("/proc/%d/syscall" % p.pid) as f:
                call = f.read().split()[0]
        except OSError:
            wchan, call = "", ""
        if unread == 0 and ("poll" in wchan or call in POLL_SYSCALLS):
            return
        if p.poll() is not None:
            raise RuntimeError("%s ended (exit status %s)" % (what, p.returncode))
        time.sleep(0.02)
    raise RuntimeError("%s did not read its input in 60 s" % what)


def main():
    args = [a for a in sys.argv[1:] if a != "--keep"]
    keep = "--keep" in sys.argv[1:]
    binary = os.path.abspath(args[0] if args else "build/tributary")
    wh = tempfile.mkdtemp(prefix="tributary-repro-")
    try:
        return run(binary, wh)
    finally:
        if keep:
            print("warehouse kept: %s" % wh)
        else:
            shutil.rmtree(wh, ignore_errors=True)


def run(binary, wh):
    def sql(text):
        p = subprocess.run([binary, "sql", "--warehouse", wh, "--format", "json", "-e", text],
                           capture_output=True, text=True, check=True)
        return [json.loads(line) for line in p.stdout.splitlines() if line.strip()]

    def ingest():
        return subprocess.Popen([binary, "ingest", "--warehouse", wh, "--table", "default.t",
                                 "--format", "debezium-json", "--commit-every", "2", "-"],
                                stdin=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)

    def feed(p, name, key, v):
        p.stdin.write(json.dumps({"before": None, "after": {"id": key, "v": v}, "op": "c"}) + "\n")
        p.stdin.flush()
        wait_idle(p, "writer " + name)

    sql("CREATE TABLE t (id BIGINT, v STRING, PRIMARY KEY (id) NOT ENFORCED) "
        "WITH ('bucket' = '1', 'num-sorted-run.compaction-trigger' = '2')")
    a = ingest()
    feed(a, "A", 1, "A")                          # 1. A: k=1 -> 'A', sequence 0
    sql("INSERT INTO t VALUES (1, 'B')")          # 2. B: k=1 -> 'B', sequence 0, snapshot 1
    c = ingest()
    feed(c, "C", 100, "c1")                       # 3. C restores {B's file}
    feed(a, "A", 101, "a2")                       # 4. A commits snapshot 2
    a.stdin.close()
    if a.wait() != 0:
        print("FAIL: writer A exited with %d" % a.returncode)
        return 1
    print("after A committed:", sql("SELECT * FROM t WHERE id = 1"))
    feed(c, "C", 102, "c2")                       # 5. C commits APPEND 3 (+ COMPACT, dropped)
    c.stdin.close()
    if c.wait() != 0:
        print("FAIL: writer C exited with %d" % c.returncode)
        return 1
    sql("CALL sys.compact('default.t')")          # 6. a full compaction: COMPACT
    snaps = sql("SELECT snapshot_id, commit_kind FROM t$snapshots ORDER BY snapshot_id")
    values = {}
    for s in snaps:
        sid = s["snapshot_id"]
        rows = sql("SELECT v FROM t /*+ OPTIONS('scan.snapshot-id' = '%d') */ WHERE id = 1" % sid)
        values[sid] = rows[0]["v"] if rows else None
        print("snapshot %d %-8s k=1 -> %s" % (sid, s["commit_kind"], values[sid]))
    if values.get(1) != "B" or values.get(2) != "A":
        print("FAIL: the writers did not commit in the order the test sets up (snapshot 1 "
              "should show B's value, snapshot 2 A's)")
        return 1
    compacts = [s["snapshot_id"] for s in snaps if s["commit_kind"] == "COMPACT"]
    if not compacts:
        print("FAIL: no COMPACT snapshot: the check below would prove nothing")
        return 1
    bad = [sid for sid in compacts if values[sid] != values[sid - 1]]
    if bad:
        print("BUG: COMPACT snapshot(s) %s changed the value of k=1" % bad)
        return 1
    latest = max(values)
    if values[latest] != "A":
        print("BUG: the latest snapshot %d shows k=1 -> %s, not 'A' (A committed after B)" %
              (latest, values[latest]))
        return 1
    print("not reproduced (%d COMPACT snapshot(s) checked)" % len(compacts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
