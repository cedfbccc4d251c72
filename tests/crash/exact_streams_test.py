#!/usr/bin/env python3
"""Exact streams (issue 33): what a streaming consumer receives, however it stops.

- A consumer id resumed after LIMIT, Ctrl-C (SIGINT) and the idle time-out, at random points:
  the changes of all its runs, one after another, are exactly those one uninterrupted read
  returns (nothing lost, nothing repeated), and they materialize to the table.
- A consumer killed with SIGKILL and restarted: every change is delivered (at least once) and
  the changes materialize to the table.
- A consumer id started with 'latest' holds its place from the start: writers committing fast
  with two snapshots retained never expire what it is about to read.
- 'full-compaction': the end of an ingest's input emits its last changes; a full start-up
  followed by commits and compactions never delivers a change twice or one that does not
  follow (every producer).
Python 3 standard library only."""
import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time

TIMEOUT_S = 120


class Failure(Exception):
    pass


class T:
    def __init__(self, binary, tmp):
        self.binary = binary
        self.tmp = tmp

    def sql(self, wh, text, fmt="json", extra=()):
        p = subprocess.run([self.binary, "sql", "--warehouse", wh, "--format", fmt, *extra, "-e",
                            text], capture_output=True, text=True, timeout=TIMEOUT_S)
        if p.returncode != 0:
            raise Failure("%r: exit %d: %s" % (text[:100], p.returncode, p.stderr.strip()[-400:]))
        return [json.loads(l) for l in p.stdout.splitlines() if l.strip()] if fmt == "json" else p

    def stream(self, wh, query, idle_ms=700):
        """Starts a streaming SELECT (json rows on stdout)."""
        return subprocess.Popen([self.binary, "sql", "--warehouse", wh, "--format", "json",
                                 "--idle-timeout-ms", str(idle_ms), "-e",
                                 "SET 'execution.runtime-mode' = 'streaming'; " + query],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def changes(out):
    return [(r["op"], r["id"], r["v"]) for r in (json.loads(l) for l in out.splitlines()
                                                  if l.strip())]


def materialize(seq, strict, what):
    """Applies changes to a key -> value map. strict: a change that does not follow (an insert
    of a present key, a retraction of an absent one or of another value) is a failure."""
    state = {}
    for op, k, v in seq:
        if op in ("+I", "+U"):
            if strict and op == "+I" and k in state:
                raise Failure("%s: +I %s %s while the key holds %s (a change delivered twice?)" %
                              (what, k, v, state[k]))
            state[k] = v
        else:
            if strict and state.get(k, object()) != v:
                raise Failure("%s: %s %s %s but the key holds %s" % (what, op, k, v,
                                                                      state.get(k)))
            state.pop(k, None)
    return state


def table_state(t, wh):
    return {r["id"]: r["v"] for r in t.sql(wh, "SELECT id, v FROM t")}


def fill(t, wh, producer, rng, commits=25, extra=""):
    t.sql(wh, "CREATE TABLE t (id INT, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH "
              "('bucket' = '1', 'changelog-producer' = '%s'%s)" % (producer, extra))
    for c in range(commits):
        stmts = []
        for _ in range(rng.randint(1, 4)):
            k = rng.randint(1, 12)
            if rng.random() < 0.2:
                stmts.append("DELETE FROM t WHERE id = %d" % k)
            else:
                stmts.append("INSERT INTO t VALUES (%d, 'c%d_%d')" % (k, c, k))
        t.sql(wh, "; ".join(stmts), fmt="csv")


def check_consumer_resumes_exactly(t):
    rng = random.Random(33)
    wh = os.path.join(t.tmp, "resume")
    fill(t, wh, "lookup", rng)
    query = "SELECT * FROM t /*+ OPTIONS('consumer-id' = '%s', 'scan.startup.mode' = 'earliest') */"
    whole = t.stream(wh, query % "whole")
    want = changes(whole.communicate(timeout=TIMEOUT_S)[0])
    if len(want) < 40:
        raise Failure("the uninterrupted read returned only %d changes" % len(want))
    got, runs, how = [], 0, {"limit": 0, "sigint": 0, "idle": 0}
    while len(got) < len(want) and runs < 200:
        runs += 1
        # Mostly LIMITs (which end inside snapshots), then Ctrl-C and the idle time-out.
        plan = ["limit"] * 10 + ["sigint"] + ["limit"] * 5 + ["idle"]
        kind = plan[(runs - 1) % len(plan)]
        how[kind] += 1
        if kind == "limit":
            p = t.stream(wh, query % "app" + " LIMIT %d" % rng.randint(1, 4))
            out = p.communicate(timeout=TIMEOUT_S)[0]
        elif kind == "sigint":
            p = t.stream(wh, query % "app", idle_ms=20000)
            time.sleep(rng.uniform(0.02, 0.15))
            p.send_signal(signal.SIGINT)
            out = p.communicate(timeout=TIMEOUT_S)[0]
        else:
            p = t.stream(wh, query % "app", idle_ms=200)
            out = p.communicate(timeout=TIMEOUT_S)[0]
        if p.returncode not in (0, 1):
            raise Failure("a %s run exited %d" % (kind, p.returncode))
        got.extend(changes(out))
    if got != want:
        for i, (a, b) in enumerate(zip(got, want)):
            if a != b:
                raise Failure("after %d runs (%s) change %d is %s, an uninterrupted read's is %s"
                              % (runs, how, i, a, b))
        raise Failure("after %d runs (%s): %d changes, an uninterrupted read returns %d" %
                      (runs, how, len(got), len(want)))
    if materialize(got, True, "resumed consumer") != table_state(t, wh):
        raise Failure("the resumed consumer's changes do not materialize to the table")
    print("  ok  a consumer stopped %d times (%s) delivered exactly the %d changes of an "
          "uninterrupted read" % (runs, how, len(want)))


def check_consumer_killed(t):
    rng = random.Random(7)
    wh = os.path.join(t.tmp, "killed")
    fill(t, wh, "input", rng, commits=40)
    query = ("SELECT * FROM t /*+ OPTIONS('consumer-id' = 'k', 'scan.startup.mode' = "
             "'earliest') */")
    got = []
    for _ in range(6):
        p = t.stream(wh, query, idle_ms=20000)
        time.sleep(rng.uniform(0.05, 0.3))
        p.kill()
        got.extend(changes(p.communicate(timeout=TIMEOUT_S)[0]))
    p = t.stream(wh, query, idle_ms=500)
    got.extend(changes(p.communicate(timeout=TIMEOUT_S)[0]))
    # At least once: a replayed suffix applies to the same state, so the result is the table's.
    if materialize(got, False, "killed consumer") != table_state(t, wh):
        raise Failure("the killed-and-restarted consumer's changes do not materialize to the table")
    print("  ok  a consumer killed 6 times with SIGKILL: every change delivered (%d in all)" %
          len(got))


def check_consumer_registered_at_start(t):
    wh = os.path.join(t.tmp, "latest")
    t.sql(wh, "CREATE TABLE t (id INT, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH "
              "('bucket' = '1', 'changelog-producer' = 'input', 'snapshot.num-retained.min' = "
              "'1', 'snapshot.num-retained.max' = '2')", fmt="csv")
    reader = t.stream(wh, "SELECT * FROM t /*+ OPTIONS('consumer-id' = 'late', "
                          "'scan.startup.mode' = 'latest') */", idle_ms=3000)
    deadline = time.time() + 30
    while not os.path.exists(os.path.join(wh, "default.db", "t", "consumer", "consumer-late")):
        if time.time() > deadline:
            reader.kill()
            raise Failure("no consumer position was registered when the reader started")
        time.sleep(0.02)
    # Let the reader fall behind: it is stopped while 30 commits go in.
    reader.send_signal(signal.SIGSTOP)
    for i in range(30):
        t.sql(wh, "INSERT INTO t VALUES (%d, 'v%d')" % (i, i), fmt="csv")
    reader.send_signal(signal.SIGCONT)
    out, err = reader.communicate(timeout=TIMEOUT_S)
    if reader.returncode != 0 or "expired" in err:
        raise Failure("the consumer failed: exit %d, %s" % (reader.returncode, err.strip()[-300:]))
    ids = sorted(k for _, k, _ in changes(out))
    if ids != list(range(30)):
        raise Failure("the consumer read %d of 30 changes" % len(ids))
    print("  ok  a consumer id with 'latest' holds its place from the start: 30 commits with 2 "
          "snapshots retained, all read")


def check_full_compaction_end_of_input(t):
    wh = os.path.join(t.tmp, "fc-ingest")
    t.sql(wh, "CREATE TABLE t (id INT, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH "
              "('bucket' = '1', 'changelog-producer' = 'full-compaction', "
              "'full-compaction.delta-commits' = '3')", fmt="csv")
    lines = "".join('{"op":"c","before":null,"after":{"id":%d,"v":"v%d"}}\n' % (i, i)
                    for i in range(1, 5))
    p = subprocess.run([t.binary, "ingest", "--warehouse", wh, "--table", "t", "--format",
                        "debezium-json", "--commit-every", "1", "-"], input=lines,
                       capture_output=True, text=True, timeout=TIMEOUT_S)
    if p.returncode != 0:
        raise Failure("ingest: %s" % p.stderr)
    got = changes(t.stream(wh, "SELECT * FROM t /*+ OPTIONS('scan.startup.mode' = 'earliest') */",
                           idle_ms=300).communicate(timeout=TIMEOUT_S)[0])
    if sorted(k for _, k, _ in got) != [1, 2, 3, 4]:
        raise Failure("the changelog of four ingested events holds %s" % got)
    print("  ok  full-compaction: the end of an ingest's input emits its last changes")


def check_full_startup_seam(t):
    for producer in ["none", "input", "lookup", "full-compaction"]:
        rng = random.Random(hash(producer) & 0xffff)
        wh = os.path.join(t.tmp, "seam-" + producer)
        extra = ", 'full-compaction.delta-commits' = '100'" if producer == "full-compaction" else ""
        fill(t, wh, producer, rng, commits=8, extra=extra)
        if producer == "full-compaction":
            t.sql(wh, "CALL sys.compact('default.t')", fmt="csv")
        reader = t.stream(wh, "SELECT * FROM t", idle_ms=1500)
        time.sleep(0.3)
        for c in range(8):
            k = rng.randint(1, 12)
            t.sql(wh, "INSERT INTO t VALUES (%d, 'late%d')" % (k, c), fmt="csv")
            if rng.random() < 0.4:
                t.sql(wh, "CALL sys.compact('default.t')", fmt="csv")
        t.sql(wh, "CALL sys.compact('default.t')", fmt="csv")  # the last changes of compactions
        out, err = reader.communicate(timeout=TIMEOUT_S)
        if reader.returncode != 0:
            raise Failure("%s: the reader failed: %s" % (producer, err.strip()[-300:]))
        # 'input' delivers what was written (an INSERT of a present key is +I): not normalized.
        state = materialize(changes(out), producer != "input", "full start-up, producer " +
                            producer)
        if state != table_state(t, wh):
            raise Failure("%s: the full start-up's changes do not materialize to the table" %
                          producer)
    print("  ok  a full start-up, then commits and compactions: every change once, for every "
          "producer")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", default="build/tributary")
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="tributary-exact-",
                           dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
    t = T(os.path.abspath(args.binary), tmp)
    failed = False
    try:
        for check in [check_consumer_resumes_exactly, check_consumer_killed,
                      check_consumer_registered_at_start, check_full_compaction_end_of_input,
                      check_full_startup_seam]:
            try:
                check(t)
            except Failure as e:
                failed = True
                print("FAIL %s: %s" % (check.__name__, e))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("exact_streams_test: %s" % ("FAILED" if failed else "all checks passed"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
