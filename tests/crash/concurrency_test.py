#!/usr/bin/env python3
"""Concurrency test: several writer processes on one table at once (CONTRACT.md: "Several
processes may run against one warehouse at the same time"; PAIMON_FORMAT.md 1.8).

1. Disjoint keys. Four writers, each in its own key range, run many small INSERT (upsert) and
   DELETE statements through `tributary sql` processes, while a fifth process runs
   CALL sys.compact('default.t') in a loop and the writers compact on their own
   ('num-sorted-run.compaction-trigger' = '2'). Checked:
   - every writer statement succeeds (commit retries absorb the races);
   - the final table holds exactly the union of the writers' final states: nothing lost, nothing
     doubled; snapshot ids are contiguous from 1; one APPEND snapshot per statement;
   - totalRecordCount: each snapshot's = the previous one's + its delta, the latest = the records
     of the live files, and after a last full compaction = the number of rows;
   - every snapshot, read with 'scan.snapshot-id', shows each writer's range in the state after
     some prefix of that writer's statements, prefixes only grow, an APPEND snapshot advances
     exactly one writer by exactly one statement and a COMPACT snapshot changes nothing.
2. Same keys. Four writers upsert the SAME 16 keys concurrently (each statement also writes a
   marker key of its own), with the compaction loop running. Checked: the final table holds
   exactly one row per key, whose value is one that some statement wrote for it; every snapshot
   has no key twice; each APPEND snapshot makes exactly one statement's marker visible (a
   statement commits as a whole, once); a COMPACT snapshot changes nothing visible.
   In every APPEND snapshot and in the final table every key holds the value of the statement
   committed last (a commit renumbers its files above numbers a concurrent commit published).
3. Append table. Three `tributary ingest --commit-every 10` processes at once on an append table:
   exactly the ingested rows (as a multiset), one APPEND snapshot per commit, ids contiguous.

   A COMPACT snapshot that changes a visible value is a failure (it happened before commits
   renumbered concurrent writers' files: tests/crash/repro_seq_tie_compaction.py).

With --s3 the warehouses are on the test S3 server (tests/crash/s3rver/s3server.py, started for
the run; commits race through conditional PUTs of snapshot-N): the same cases and checks.

Usage: concurrency_test.py --binary build/tributary [--s3] [--statements N] [--seed N] [--dir DIR]
       [--keep] [-v]
Exits 1 with a message naming the failed check.
"""

import argparse
import collections
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tributary_harness import (Failure, Tributary, check_table_invariants,  # noqa: E402
                               copy_binary, default_work_dir, diff_keyed, diff_multiset, rows_by_key,
                               s3_server, warehouse_in)

PK_DDL = ("CREATE TABLE t (id BIGINT, v STRING, n BIGINT, PRIMARY KEY (id) NOT ENFORCED) "
          "WITH ('bucket' = '2', 'num-sorted-run.compaction-trigger' = '2')")
WRITERS = 4
PER_PROCESS = 5  # statements per `tributary sql` process

VERBOSE = False


def log(msg):
    print(msg, flush=True)


def vlog(msg):
    if VERBOSE:
        print("    " + msg, flush=True)


class Runner:
    """Runs writer threads and a compaction loop at once; collects failures."""

    def __init__(self, t):
        self.t = t
        self.errors = []
        self.lock = threading.Lock()
        self.writers_done = threading.Event()
        self.compactions = collections.Counter()

    def fail(self, msg):
        with self.lock:
            self.errors.append(msg)

    def writer(self, name, statements):
        try:
            self._writer(name, statements)
        except Exception as e:  # noqa: BLE001 -- reported as a failure of the test
            self.fail("%s: %r" % (name, e))

    def compactor(self):
        try:
            self._compactor()
        except Exception as e:  # noqa: BLE001
            self.fail("compaction loop: %r" % e)

    def _writer(self, name, statements):
        for i in range(0, len(statements), PER_PROCESS):
            chunk = statements[i:i + PER_PROCESS]
            p = subprocess.run(self.t.sql_cmd("; ".join(chunk)), capture_output=True, text=True,
                               env=self.t._env())
            if p.returncode != 0:
                self.fail("%s: statements %d..%d failed with exit status %d: %s" %
                          (name, i, i + len(chunk) - 1, p.returncode, p.stderr.strip()[-1500:]))
                return

    def _compactor(self):
        while not self.writers_done.is_set():
            p = subprocess.run(self.t.sql_cmd("CALL sys.compact('default.t')"),
                               capture_output=True, text=True, env=self.t._env())
            if p.returncode == 0:
                self.compactions["committed" if "snapshot" in p.stderr else "nothing to do"] += 1
            elif "lost a race" in p.stderr:
                self.compactions["lost a race (allowed)"] += 1
            else:
                self.fail("CALL sys.compact failed with exit status %d: %s" %
                          (p.returncode, p.stderr.strip()[-1500:]))
                return

    def run(self, writer_statements):
        threads = [threading.Thread(target=self.writer, args=("writer %d" % w, s))
                   for w, s in enumerate(writer_statements)]
        comp = threading.Thread(target=self.compactor)
        comp.start()
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        self.writers_done.set()
        comp.join()
        if self.errors:
            raise Failure("\n".join(self.errors))


def read_every_snapshot(t, snaps, table="t"):
    """{snapshot id: {id: row}} read with 'scan.snapshot-id'."""
    out = {s["snapshot_id"]: {} for s in snaps}
    ids = sorted(out)
    for i in range(0, len(ids), 100):
        sql = "; ".join("SELECT %d AS s, id, v, n FROM %s /*+ OPTIONS('scan.snapshot-id' = '%d') */"
                        % (sid, table, sid) for sid in ids[i:i + 100])
        for r in t.query(sql, what="reading snapshots %d..%d" % (ids[i], ids[min(i + 99,
                                                                              len(ids) - 1)])):
            state = out[r["s"]]
            if r["id"] in state:
                raise Failure("snapshot %d: key %d appears twice: %r and %r" %
                              (r["s"], r["id"], state[r["id"]], r))
            state[r["id"]] = {"id": r["id"], "v": r["v"], "n": r["n"]}
    return out


def commit_kinds(snaps):
    return collections.Counter(s["commit_kind"] for s in snaps)


# ---------------------------------------------------------------------------------------------
# 1. Disjoint keys


def disjoint_statements(w, count, rng):
    """Writer w's statements over keys w*1000 + 0..29, and its state after each prefix."""
    base = w * 1000
    state = {}
    states = [{}]
    stmts = []
    for j in range(count):
        if j % 6 == 5 and state:
            k = rng.choice(sorted(state))
            stmts.append("DELETE FROM t WHERE id = %d" % k)
            del state[k]
        else:
            rows = []
            for r in range(4):
                k = base + (j * 3 + r * 7) % 30
                row = {"id": k, "v": "w%dc%d" % (w, j), "n": j}
                rows.append(row)
                state[k] = row
            stmts.append("INSERT INTO t VALUES " + ", ".join(
                "(%d, '%s', %d)" % (r["id"], r["v"], r["n"]) for r in rows))
        states.append(dict(state))
    return stmts, states


def check_keys_move_forward(what, plans, snaps, contents):
    """Deletion-vector tables: a statement's rows show when their bucket is compacted, and with
    several writers another writer's compaction may take one bucket's part first, so a snapshot
    can show a statement in some buckets only. What must hold: every key shows a value its writer
    gave it (or its absence) after some prefix of the writer's statements, and that prefix never
    goes back from one snapshot to the next."""
    at = {}  # key -> the prefix its last shown value came from
    for s in snaps:
        sid = s["snapshot_id"]
        state = contents[sid]
        for w, (_, states) in enumerate(plans):
            keys = set(k for st in states for k in st) | set(
                k for k in state if k // 1000 == w)
            for k in keys:
                start = at.get(k, 0)
                match = [j for j in range(start, len(states))
                         if states[j].get(k) == state.get(k)]
                if not match:
                    raise Failure("%s: snapshot %d (%s) shows key %d as %r, which writer %d's "
                                  "statements give it after no prefix from statement %d on" %
                                  (what, sid, s["commit_kind"], k, state.get(k), w, start))
                at[k] = match[0]


def test_disjoint(binary, root, s3, count, rng, dv=False):
    """`dv`: on a deletion-vector table, whose rows become visible to batch reads when their
    bucket is compacted (by the writing statement, or, when another writer's compaction of the
    bucket won the race, by a later one): snapshots then show each writer at a prefix that only
    grows, in any number of steps, and the final state after a full compaction."""
    what = "disjoint keys, deletion vectors" if dv else "disjoint keys"
    t = Tributary(binary, warehouse_in(root, "disjoint-dv" if dv else "disjoint", s3), s3)
    t.sql(PK_DDL.replace("'bucket' = '2'", "'bucket' = '2', 'deletion-vectors.enabled' = 'true'")
          if dv else PK_DDL)
    plans = [disjoint_statements(w, count, rng) for w in range(WRITERS)]
    start = time.time()
    runner = Runner(t)
    runner.run([p[0] for p in plans])
    elapsed = time.time() - start
    if dv:
        t.sql("CALL sys.compact('default.t')")

    expected = {}
    for _, states in plans:
        expected.update(states[-1])
    actual = rows_by_key(t.query("SELECT id, v, n FROM t"))
    d = diff_keyed(expected, actual)
    if d:
        raise Failure(what + ": the final table is not the union of the writers' final "
                      "states (rows lost or doubled):\n" + d)
    snaps, _ = check_table_invariants(t, "t", "id")
    kinds = commit_kinds(snaps)
    if kinds["APPEND"] != WRITERS * count:
        raise Failure(what + ": %d statements committed but there are %d APPEND snapshots" %
                      (WRITERS * count, kinds["APPEND"]))

    contents = read_every_snapshot(t, snaps)
    if dv:
        check_keys_move_forward(what, plans, snaps, contents)
        snaps = []  # (the prefix check below is for tables whose statements show atomically)
    # Every snapshot: each writer's range is a prefix state; prefixes grow one step per APPEND.
    pos = [0] * WRITERS if snaps else [count] * WRITERS
    prev = {}
    for s in snaps:
        sid, kind = s["snapshot_id"], s["commit_kind"]
        state = contents[sid]
        new_pos = []
        for w, (_, states) in enumerate(plans):
            part = {k: r for k, r in state.items() if k // 1000 == w}
            # Prefix states are distinct (every statement changes its writer's rows).
            match = [j for j in range(pos[w], len(states)) if states[j] == part]
            if not match:
                earlier = [j for j in range(pos[w]) if states[j] == part]
                raise Failure(what + ": snapshot %d (%s) shows writer %d's keys in no state "
                              "after a prefix of its statements at or after statement %d%s:\n%s" %
                              (sid, kind, w, pos[w],
                               " (it is the state after %d statements: went back)" % earlier[0]
                               if earlier else "",
                               diff_keyed(states[pos[w]], part)))
            new_pos.append(match[0])
        steps = sum(new_pos) - sum(pos)
        if kind == "APPEND" and steps != 1 and not dv:
            raise Failure(what + ": APPEND snapshot %d advanced the writers by %d statements "
                          "(from %s to %s), expected exactly 1" % (sid, steps, pos, new_pos))
        if kind == "COMPACT" and state != prev and not dv:
            raise Failure(what + ": COMPACT snapshot %d changed the rows:\n%s" %
                          (sid, diff_keyed(prev, state)))
        pos, prev = new_pos, state
    if pos != [count] * WRITERS:
        raise Failure(what + ": the last snapshot shows the writers at statements %s, "
                      "expected all %d" % (pos, count))

    t.sql("CALL sys.compact('default.t')")
    snaps, _ = check_table_invariants(t, "t", "id")
    if snaps[-1]["total_record_count"] != len(expected):
        raise Failure(what + ": after a full compaction totalRecordCount is %d but the table "
                      "has %d rows" % (snaps[-1]["total_record_count"], len(expected)))
    log("  ok  %s: %d writers x %d statements (upserts, deletes) in %.1fs with "
        "compactions %s; no row lost or doubled; %d snapshots (%s), ids contiguous; %s; "
        "totalRecordCount consistent" %
        (what, WRITERS, count, elapsed, dict(runner.compactions), len(snaps),
         ", ".join("%d %s" % (n, k) for k, n in sorted(commit_kinds(snaps).items())),
         "every key shows a value of a prefix of its writer's statements, never going back"
         if dv else "every snapshot is a prefix of each writer's statements, one statement per "
         "APPEND, COMPACT changes nothing"))


# ---------------------------------------------------------------------------------------------
# 2. Same keys

SAME_KEYS = 16
MARKER_BASE = 100000


def same_key_statements(w, count):
    stmts = []
    written = []  # per statement: {key: value}
    for j in range(count):
        vals = {}
        for r in range(8):
            vals[(j * 5 + w * 3 + r) % SAME_KEYS] = "w%ds%d" % (w, j)
        vals[MARKER_BASE + w * 1000 + j] = "w%ds%d" % (w, j)
        written.append(vals)
        stmts.append("INSERT INTO t VALUES " + ", ".join(
            "(%d, '%s', %d)" % (k, v, w) for k, v in sorted(vals.items())))
    return stmts, written


def test_same_keys(binary, root, s3, count):
    t = Tributary(binary, warehouse_in(root, "same-keys", s3), s3)
    t.sql(PK_DDL)
    plans = [same_key_statements(w, count) for w in range(WRITERS)]
    start = time.time()
    runner = Runner(t)
    runner.run([p[0] for p in plans])
    elapsed = time.time() - start

    allowed = collections.defaultdict(set)
    markers = {}
    for w, (_, written) in enumerate(plans):
        for j, vals in enumerate(written):
            for k, v in vals.items():
                allowed[k].add(v)
            markers[MARKER_BASE + w * 1000 + j] = (w, j)
    final = rows_by_key(t.query("SELECT id, v, n FROM t"))
    keys = set(range(SAME_KEYS)) | set(markers)
    if set(final) != keys:
        raise Failure("same keys: expected exactly one row for each of %d keys; missing %s, "
                      "unexpected %s" % (len(keys), sorted(keys - set(final))[:20],
                                         sorted(set(final) - keys)[:20]))
    for k, r in final.items():
        if r["v"] not in allowed[k]:
            raise Failure("same keys: key %d holds %r, which no statement wrote for it" %
                          (k, r["v"]))
    snaps, _ = check_table_invariants(t, "t", "id")
    kinds = commit_kinds(snaps)
    if kinds["APPEND"] != WRITERS * count:
        raise Failure("same keys: %d statements committed but there are %d APPEND snapshots" %
                      (WRITERS * count, kinds["APPEND"]))

    contents = read_every_snapshot(t, snaps)
    seen = set()
    prev = {}
    order = []  # statements in commit order
    last_writer_wins = {}
    compact_changes = []
    not_last = 0  # APPEND snapshots where a key does not hold the last committed statement's value
    for s in snaps:
        sid, kind = s["snapshot_id"], s["commit_kind"]
        state = contents[sid]
        for k, r in state.items():
            if r["v"] not in allowed[k]:
                raise Failure("same keys: snapshot %d: key %d holds %r, which no statement wrote "
                              "for it" % (sid, k, r["v"]))
        vis = {k for k in state if k in markers}
        if not seen <= vis:
            raise Failure("same keys: snapshot %d lost the markers of statements %s" %
                          (sid, sorted(markers[k] for k in seen - vis)))
        new = vis - seen
        if kind == "APPEND" and len(new) != 1:
            raise Failure("same keys: APPEND snapshot %d made %d statements visible (%s), expected "
                          "exactly one" % (sid, len(new), sorted(markers[k] for k in new)))
        if kind == "COMPACT":
            if new:
                raise Failure("same keys: COMPACT snapshot %d made statements %s visible" %
                              (sid, sorted(markers[k] for k in new)))
            if state != prev:
                compact_changes.append((sid, diff_keyed(prev, state, limit=3)))
        if kind == "APPEND":
            w, j = markers[next(iter(new))]
            order.append((w, j))
            for k, v in plans[w][1][j].items():
                last_writer_wins[k] = v
            if any(state[k]["v"] != v for k, v in last_writer_wins.items()):
                not_last += 1
        seen, prev = vis, state
    if compact_changes:
        msg = ("same keys: %d COMPACT snapshots changed visible values without any write, the "
               "first: snapshot %d:\n%s\n  (equal sequence numbers from writers that started "
               "from the same state, ordered by file and reordered by a compaction? see "
               "tests/crash/repro_seq_tie_compaction.py)" %
               (len(compact_changes), compact_changes[0][0], compact_changes[0][1]))
        raise Failure(msg)
    differ = sorted(k for k in range(SAME_KEYS) if final[k]["v"] != last_writer_wins[k])
    log("  ok  same keys: %d writers x %d statements on %d shared keys in %.1fs with compactions "
        "%s; one row per key, every value one written for it, in every snapshot; each APPEND "
        "snapshot publishes exactly one statement; COMPACT changes nothing; %d snapshots, ids "
        "contiguous" % (WRITERS, count, SAME_KEYS, elapsed, dict(runner.compactions), len(snaps)))
    if not_last or differ:
        raise Failure("same keys: the statement committed last must win: in %d of %d APPEND "
                      "snapshots some key does not hold the value of the statement committed "
                      "last; in the final table %d of %d keys" %
                      (not_last, kinds["APPEND"], len(differ), SAME_KEYS))
    log("  ok  same keys: in every APPEND snapshot every key holds the value of the statement "
        "committed last")


# ---------------------------------------------------------------------------------------------
# 3. Append table, concurrent ingest


def test_append_ingest(binary, root, s3, events_per_writer):
    t = Tributary(binary, warehouse_in(root, "append", s3), s3)
    t.sql("CREATE TABLE a (id BIGINT, v STRING, n BIGINT) WITH ('bucket' = '-1')")
    every = 10
    writers = 3
    expected = []
    paths = []
    for w in range(writers):
        path = os.path.join(root, "append-%d.json" % w)
        with open(path, "w") as f:
            for i in range(events_per_writer):
                row = {"id": w * 100000 + i, "v": "w%d" % w, "n": i % 5}
                expected.append((row["id"], row["v"], row["n"]))
                f.write(json.dumps({"before": None, "after": row, "op": "c"}) + "\n")
        paths.append(path)
    start = time.time()
    procs = [subprocess.Popen(t.ingest_cmd("default.a", p, commit_every=every),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env=t._env()) for p in paths]
    for w, p in enumerate(procs):
        _, err = p.communicate(timeout=300)
        if p.returncode != 0:
            raise Failure("append ingest writer %d exited with %d: %s" %
                          (w, p.returncode, err.strip()[-1500:]))
    elapsed = time.time() - start
    actual = [(r["id"], r["v"], r["n"]) for r in t.query("SELECT id, v, n FROM a")]
    d = diff_multiset(expected, actual)
    if d:
        raise Failure("append ingest: the table does not hold exactly the ingested rows:\n" + d)
    snaps, _ = check_table_invariants(t, "a")
    commits = writers * -(-events_per_writer // every)
    appends = [s for s in snaps if s["commit_kind"] == "APPEND"]
    # The writers also compact small files (COMPACT snapshots, which change no row).
    if len(appends) != commits:
        raise Failure("append ingest: %d commits but %d APPEND snapshots" % (commits, len(appends)))
    for s in snaps:
        if s["commit_kind"] == "COMPACT" and s["delta_record_count"] != 0:
            raise Failure("append ingest: COMPACT snapshot %d changes %d records" %
                          (s["snapshot_id"], s["delta_record_count"]))
    if snaps[-1]["total_record_count"] != len(expected):
        raise Failure("append ingest: totalRecordCount %d, rows %d" %
                      (snaps[-1]["total_record_count"], len(expected)))
    log("  ok  append table: %d concurrent `ingest --commit-every %d` x %d events in %.1fs; "
        "exactly the ingested rows, %d APPEND snapshots = commits (and %d COMPACT), ids "
        "contiguous, totalRecordCount = rows" % (writers, every, events_per_writer, elapsed,
                                                len(appends), len(snaps) - len(appends)))


def main():
    global VERBOSE
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--binary", default="build/tributary")
    ap.add_argument("--statements", type=int, default=100, help="statements per writer")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--keep", action="store_true", help="keep the warehouses")
    ap.add_argument("--dir", default=default_work_dir(),
                    help="where the warehouses go (default: /dev/shm when there is one: a killed "
                    "process leaves the same files on any file system, and memory keeps the run "
                    "time independent of the disk)")
    ap.add_argument("--s3", action="store_true",
                    help="warehouses on the test S3 server (tests/crash/s3rver) instead of --dir")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    VERBOSE = args.verbose
    binary = os.path.abspath(args.binary)
    if not os.access(binary, os.X_OK):
        print("concurrency_test: %s is not an executable" % binary, file=sys.stderr)
        return 2
    root = tempfile.mkdtemp(prefix="tributary-concurrency-", dir=args.dir)
    # A private copy: other builds may relink build/tributary while this runs.
    binary = copy_binary(binary, root)
    rng = random.Random(args.seed)
    start = time.time()
    log("concurrency: several writer processes on one table%s" %
        (" (warehouses on the test S3 server)" if args.s3 else ""))
    try:
        with s3_server(args.s3) as s3:
            test_disjoint(binary, root, s3, args.statements, rng)
            test_disjoint(binary, root, s3, args.statements, rng, dv=True)
            test_same_keys(binary, root, s3, args.statements)
            test_append_ingest(binary, root, s3, 1500)
    except Failure as e:
        print("FAIL concurrency_test%s: %s" % (" (on S3)" if args.s3 else "", e), file=sys.stderr)
        if not args.s3:
            print("  (warehouses kept in %s)" % root, file=sys.stderr)
        return 1
    finally:
        os.remove(binary)  # the private copy; on failure the warehouses stay for a post-mortem
    if args.keep:
        log("warehouses kept in %s" % root)
    else:
        shutil.rmtree(root, ignore_errors=True)
    log("concurrency_test: all checks passed in %.1fs" % (time.time() - start))
    return 0


if __name__ == "__main__":
    sys.exit(main())
