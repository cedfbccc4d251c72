#!/usr/bin/env python3
"""Crash test: a writer stopped at any moment leaves a table that opens and holds exactly the
batches committed before it stopped (STYLE.md: crash safety is tested, not hoped for).

Part 1, named crash points. `TRIBUTARY_CRASH_AT=<point>` makes a process exit with status 86 when
it reaches <point> (src/io/file_system.h CrashPoint). For each point and each kind of write that
reaches it (INSERT into a primary-key table with 'bucket' = '2' that compacts on every commit,
DELETE, CALL sys.compact, `tributary ingest --commit-every`, INSERT into an append table), on a
fresh table holding three committed batches:
  - the crashing process exits with 86 (the point was reached);
  - SELECT returns exactly the committed batches: without the crashed write when the point comes
    before its snapshot is published, with it from commit.after-snapshot on;
  - the snapshot ids stay contiguous from 1, one more than before only when the crashed write's
    snapshot was published; totalRecordCount agrees with the live files; live files exist;
  - the table keeps working: another INSERT commits and reads back, CALL sys.compact too.

Part 2, random kills. `tributary ingest --commit-every N` runs on a generated stream of Debezium
upserts and deletes over a few hundred keys (keys repeat, so deduplication matters) and is
SIGKILLed after a random delay, several rounds with a fixed seed. After each kill the table must
open and hold exactly the state after the first k*N events, where k is the number of APPEND
snapshots; the same invariants as above hold; then ingest resumes from event k*N. The last round
runs to the end. An append table gets the same treatment with inserts only, compared as a
multiset (a doubled commit would show).

With --s3 the warehouses are on the test S3 server (tests/crash/s3rver/s3server.py, started for
the run): the same cases and checks, the crash points reached on the way to the conditional PUT
of snapshot-N; part 2 ingests a fifth of the events and kills later (0.05 to 1 s).

Usage: crash_test.py --binary build/tributary [--s3] [--seed N] [--rounds N] [--dir DIR] [--keep] [-v]
The warehouses go to /dev/shm when there is one (see --dir).
Exits 1 with a message naming the failed check.
"""

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

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tributary_harness import (CRASH_EXIT, Failure, Tributary, check_table_invariants,  # noqa: E402
                               copy_binary, default_work_dir, diff_keyed, diff_multiset, rows_by_key,
                               s3_server, warehouse_in)

PK_DDL = ("CREATE TABLE t (id BIGINT, v STRING, n BIGINT, PRIMARY KEY (id) NOT ENFORCED) "
          "WITH ('bucket' = '2', 'num-sorted-run.compaction-trigger' = '2')")
APPEND_DDL = "CREATE TABLE a (id BIGINT, v STRING, n BIGINT) WITH ('bucket' = '-1')"

# Where each crash point sits (the ones marked * were added for this test):
#   write.after-flush*       a bucket's buffer is written to level-0 data files (table_write.cc)
#   compact.after-rewrite*   a compaction's output files are written (table_write.cc)
#   commit.after-manifests   manifests and manifest lists written, snapshot not yet (file_store_commit.cc)
#   commit.before-snapshot   just before snapshot-N is published with link(2) (snapshot.cc)
#   commit.after-snapshot    snapshot-N published, LATEST/EARLIEST hints not yet (snapshot.cc)
# (kind of write, point, whether the crashed write is visible afterwards)
NAMED_CASES = [
    ("pk-insert", "write.after-flush", False),
    ("pk-insert", "compact.after-rewrite", False),
    ("pk-insert", "commit.after-manifests", False),
    ("pk-insert", "commit.before-snapshot", False),
    ("pk-insert", "commit.after-snapshot", True),  # the APPEND snapshot is out; COMPACT is not
    ("pk-delete", "commit.after-manifests", False),
    ("pk-delete", "commit.before-snapshot", False),
    ("pk-delete", "commit.after-snapshot", True),
    ("pk-compact", "compact.after-rewrite", False),
    ("pk-compact", "commit.after-manifests", False),
    ("pk-compact", "commit.before-snapshot", False),
    ("pk-compact", "commit.after-snapshot", True),
    ("pk-ingest", "write.after-flush", False),
    ("pk-ingest", "commit.before-snapshot", False),
    ("pk-ingest", "commit.after-snapshot", True),  # the first --commit-every batch only
    ("append-insert", "write.after-flush", False),
    ("append-insert", "commit.after-manifests", False),
    ("append-insert", "commit.before-snapshot", False),
    ("append-insert", "commit.after-snapshot", True),
    # A deletion-vector table (DV_DDL): its commit compacts every bucket it wrote and writes the
    # bucket's new vectors (dv.after-index-file: the index file written, nothing committed).
    # Published in the APPEND snapshot alone, the rows stay in level 0, which batch reads leave
    # out, until the next write into their buckets compacts them ("later").
    ("dv-insert", "compact.after-rewrite", False),
    ("dv-insert", "dv.after-index-file", False),
    ("dv-insert", "commit.after-manifests", False),
    ("dv-insert", "commit.after-snapshot", "later"),
    ("dv-delete", "dv.after-index-file", False),
    ("dv-delete", "commit.after-snapshot", "later"),
    ("dv-compact", "compact.after-rewrite", False),
    ("dv-compact", "commit.before-snapshot", False),
]
DV_DDL = ("CREATE TABLE t (id BIGINT, v STRING, n BIGINT, PRIMARY KEY (id) NOT ENFORCED) "
          "WITH ('bucket' = '2', 'deletion-vectors.enabled' = 'true')")

VERBOSE = False


def log(msg):
    print(msg, flush=True)


def vlog(msg):
    if VERBOSE:
        print("    " + msg, flush=True)


def values_sql(rows):
    return ", ".join("(%d, '%s', %d)" % (r["id"], r["v"], r["n"]) for r in rows)


# ---------------------------------------------------------------------------------------------
# Part 1: named crash points


class KeyedModel:
    """The expected content of the primary-key table: id -> row."""

    def __init__(self):
        self.rows = {}

    def upsert(self, rows):
        for r in rows:
            self.rows[r["id"]] = dict(r)

    def delete(self, ids):
        for i in ids:
            self.rows.pop(i, None)


def pk_batch(b):
    # Keys overlap between batches, so later batches update earlier rows.
    return [{"id": (b * 5 + i) % 13, "v": "b%dk%d" % (b, (b * 5 + i) % 13), "n": b * 100 + i}
            for i in range(8)]


def append_batch(b):
    return [{"id": b * 10 + i, "v": "b%d-%d" % (b, i), "n": b} for i in range(6)]


def check_pk_rows(t, model, what):
    actual = rows_by_key(t.query("SELECT id, v, n FROM t"))
    d = diff_keyed(model.rows, actual)
    if d:
        raise Failure("%s: SELECT * FROM t does not hold exactly the committed batches:\n%s" %
                      (what, d))


def check_append_rows(t, expected, what):
    actual = [(r["id"], r["v"], r["n"]) for r in t.query("SELECT id, v, n FROM a")]
    d = diff_multiset([(r["id"], r["v"], r["n"]) for r in expected], actual)
    if d:
        raise Failure("%s: SELECT * FROM a does not hold exactly the committed batches:\n%s" %
                      (what, d))


def run_named_case(binary, root, s3, index, kind, point, visible):
    what = "%s crashed at %s" % (kind, point)
    t = Tributary(binary, warehouse_in(root, "named-%02d" % index, s3), s3)
    append = kind.startswith("append")
    table = "a" if append else "t"
    t.sql(APPEND_DDL if append else DV_DDL if kind.startswith("dv-") else PK_DDL)
    kind = kind.replace("dv-", "pk-")
    model = KeyedModel()
    appended = []
    for b in range(3):
        rows = append_batch(b) if append else pk_batch(b)
        t.sql("INSERT INTO %s VALUES %s" % (table, values_sql(rows)))
        model.upsert(rows)
        appended += rows
    before = check_table_invariants(t, table, None if append else "id")[0]

    # The crashing write, and what the table holds when it is visible.
    after_model = KeyedModel()
    after_model.rows = dict(model.rows)
    after_appended = list(appended)
    snapshots_if_visible = 1
    if kind in ("pk-insert", "append-insert"):
        rows = append_batch(3) if append else pk_batch(3)
        t.sql("INSERT INTO %s VALUES %s" % (table, values_sql(rows)), crash_at=point,
              expect=CRASH_EXIT, what=what)
        after_model.upsert(rows)
        after_appended += rows
    elif kind == "pk-delete":
        ids = sorted(model.rows)[:4]
        t.sql("DELETE FROM t WHERE id IN (%s)" % ", ".join(map(str, ids)), crash_at=point,
              expect=CRASH_EXIT, what=what)
        after_model.delete(ids)
    elif kind == "pk-compact":
        t.sql("CALL sys.compact('default.t')", crash_at=point, expect=CRASH_EXIT, what=what)
    elif kind == "pk-ingest":
        # 7 events committed every 3: the crash comes in the first commit.
        events, rows = [], []
        for i in range(7):
            r = {"id": 20 + i % 5, "v": "ing%d" % i, "n": 1000 + i}
            prev = after_model.rows.get(r["id"]) if i < 3 else None
            events.append({"before": prev, "after": r, "op": "u" if prev else "c"})
            if i < 3:
                after_model.upsert([r])
        path = os.path.join(root, "events-%02d.json" % index)
        with open(path, "w") as f:
            for e in events:
                f.write(json.dumps(e) + "\n")
        t.run(t.ingest_cmd("default.t", path, commit_every=3), crash_at=point, expect=CRASH_EXIT,
              what=what)
    else:
        raise AssertionError(kind)

    # The table opens and holds exactly the committed batches.
    snaps = check_table_invariants(t, table, None if append else "id")[0]
    later = visible == "later"  # published, visible once compacted by the next write
    expect_snaps = len(before) + (snapshots_if_visible if visible else 0)
    if len(snaps) != expect_snaps:
        raise Failure("%s: expected %d snapshots after the crash, found %d (%s)" %
                      (what, expect_snaps, len(snaps),
                       [(s["snapshot_id"], s["commit_kind"]) for s in snaps]))
    if visible and not later:
        model, appended = after_model, after_appended
    if append:
        check_append_rows(t, appended, what)
    else:
        check_pk_rows(t, model, what)
    if later:
        model = after_model

    # The table keeps working.
    rows = append_batch(4) if append else pk_batch(4)
    t.sql("INSERT INTO %s VALUES %s" % (table, values_sql(rows)),
          what="%s: INSERT after the crash" % what)
    model.upsert(rows)
    appended += rows
    if append:
        check_append_rows(t, appended, what + ", then an INSERT")
    else:
        check_pk_rows(t, model, what + ", then an INSERT")
        t.sql("CALL sys.compact('default.t')", what="%s: CALL sys.compact after the crash" % what)
        check_pk_rows(t, model, what + ", then an INSERT and a full compaction")
    snaps = check_table_invariants(t, table, None if append else "id")[0]
    if len(snaps) <= expect_snaps:
        raise Failure("%s: the INSERT after the crash made no snapshot" % what)
    vlog("%s: %d snapshots, %d rows" % (what, len(snaps),
                                          len(appended) if append else len(model.rows)))


def part_named(binary, root, s3):
    log("part 1: named crash points")
    for i, (kind, point, visible) in enumerate(NAMED_CASES):
        run_named_case(binary, root, s3, i, kind, point, visible)
        log("  ok  %-14s %-24s exit 86; table opens and holds the committed batches %s; "
            "INSERT after it works" % (kind, point,
                                       "with the crashed one after the next write"
                                       if visible == "later" else
                                       "with the crashed one" if visible else "only"))


# ---------------------------------------------------------------------------------------------
# Part 2: random kills


def gen_pk_events(rng, count, keys):
    """Debezium upserts and deletes over `keys` keys; returns (events, state after each prefix)."""
    state = {}
    events = []
    for i in range(count):
        k = rng.randrange(keys)
        cur = state.get(k)
        if cur is None:
            row = {"id": k, "v": "e%d" % i, "n": i}
            events.append({"before": None, "after": row, "op": "c" if i % 2 else "r"})
            state[k] = row
        elif rng.random() < 0.12:
            events.append({"before": cur, "after": None, "op": "d"})
            del state[k]
        else:
            row = {"id": k, "v": "e%d" % i, "n": i}
            events.append({"before": cur, "after": row, "op": "u"})
            state[k] = row
    return events


def prefix_states(events, every):
    """{number of events: state} for every multiple of `every` and for the whole stream."""
    states = {0: {}}
    state = {}
    for i, e in enumerate(events, 1):
        if e["op"] == "d":
            state.pop(e["before"]["id"], None)
        else:
            state[e["after"]["id"]] = e["after"]
        if i % every == 0 or i == len(events):
            states[i] = dict(state)
    return states


def write_events(path, events):
    with open(path, "w") as f:
        for e in events:
            f.write(json.dumps(e, separators=(",", ":")) + "\n")


def ingest_and_kill(t, table, path, every, delay):
    """Starts ingest on `path` and SIGKILLs it after `delay` seconds. True if it was killed."""
    p = subprocess.Popen(t.ingest_cmd(table, path, commit_every=every), stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, env=t._env())
    try:
        p.wait(timeout=delay)
    except subprocess.TimeoutExpired:
        os.kill(p.pid, signal.SIGKILL)
        p.wait()
        p.stdout.close()
        p.stderr.close()
        return True
    out, err = p.communicate()
    if p.returncode != 0:
        raise Failure("ingest into %s exited with %d before it was killed: %s" %
                      (table, p.returncode, err.decode(errors="replace").strip()[-2000:]))
    return False


def random_kill_rounds(t, table, events, every, rounds, rng, delay_range, check_rows, label, root):
    """Kills ingest `rounds` times, checking the table after each kill, then ingests to the end.
    `check_rows(done, what)` checks that the table holds exactly the first `done` events.
    Returns the kills, the commits seen after each round, and whether the round that brought in
    the last events was killed (after its last commit: what it left to do after the commit, an
    asynchronous compaction, was not done)."""
    total = len(events)
    done = 0
    kills = 0
    commits_seen = []
    work = os.path.join(root, "%s-rest.json" % label)
    for r in range(rounds + 1):
        last = r == rounds
        write_events(work, events[done:])
        if last:
            t.run(t.ingest_cmd("default." + table, work, commit_every=every),
                  what="%s: final ingest" % label)
            killed = False
        else:
            delay = rng.uniform(*delay_range)
            killed = ingest_and_kill(t, "default." + table, work, every, delay)
        kills += killed
        last_killed = killed
        what = "%s round %d (%s)" % (label, r + 1, "killed" if killed else "ran to the end")
        snaps = check_table_invariants(t, table, "id" if table == "t" else None)[0]
        k = sum(1 for s in snaps if s["commit_kind"] == "APPEND")
        done = min(k * every, total)
        check_rows(done, "%s: %d APPEND snapshots, so the first %d events" % (what, k, done))
        commits_seen.append(k)
        vlog("%s: %d snapshots, %d commits, %d/%d events" % (what, len(snaps), k, done, total))
        if done == total and not last:
            # Everything is in already: finish with the final round.
            if r + 1 < rounds:
                vlog("%s: all events ingested after %d rounds" % (label, r + 1))
            write_events(work, [])
            break
    if done != total:
        raise Failure("%s: after the final ingest only %d of %d events are in" %
                      (label, done, total))
    return kills, commits_seen, last_killed


def leftovers(t, table):
    """What the kills left behind: temporary files (a kill while a file was being written) and,
    for an append table (nothing is ever compacted away), data files no snapshot refers to.
    Garbage that reads must ignore; nothing removes it yet."""
    files = t.query("SELECT file_path FROM %s$files" % table)
    referenced = {os.path.basename(f["file_path"]) for f in files}
    tmp = orphans = 0
    for n in t.file_names("%s/default.db/%s" % (t.warehouse, table)):
        if n.startswith(".") and n.endswith(".tmp"):
            tmp += 1
        elif n.startswith("data-") and n not in referenced:
            orphans += 1
    if table == "a":
        return "%d temporary files and %d unreferenced data files" % (tmp, orphans)
    return "%d temporary files" % tmp


def check_keyed_rows(t, states, done, what, hint=""):
    """Table t (read with `hint`) holds exactly the rows of the first `done` events
    (`states`: prefix_states of the events)."""
    expected = {k: {"id": r["id"], "v": r["v"], "n": r["n"]} for k, r in states[done].items()}
    actual = rows_by_key(t.query("SELECT id, v, n FROM t%s" % hint))
    d = diff_keyed(expected, actual)
    if d:
        match = [n for n, s in states.items() if s == actual]
        raise Failure("%s: the table does not hold exactly those events%s:\n%s" % (
            what, " (it matches the first %s events)" % match if match else "", d))


def part_random(binary, root, seed, rounds, s3):
    log("part 2: random SIGKILLs during `tributary ingest --commit-every N` (seed %d)" % seed)
    rng = random.Random(seed)
    # On the test S3 server a commit costs tens of requests and opening the catalog a few: fewer
    # events, and kills late enough to land after a commit or several.
    scale, delays = (5, (0.05, 1.0)) if s3 else (1, (0.005, 0.3))

    # Primary-key table: upserts and deletes, compaction after every 3 sorted runs.
    t = Tributary(binary, warehouse_in(root, "random-pk", s3), s3)
    t.sql("CREATE TABLE t (id BIGINT, v STRING, n BIGINT, PRIMARY KEY (id) NOT ENFORCED) "
          "WITH ('bucket' = '2', 'num-sorted-run.compaction-trigger' = '3')")
    every = 37
    events = gen_pk_events(rng, 40000 // scale, 300)
    states = prefix_states(events, every)

    def check_pk(done, what):
        check_keyed_rows(t, states, done, what)

    start = time.time()
    kills, commits, _ = random_kill_rounds(t, "t", events, every, rounds, rng, delays, check_pk,
                                           "pk", root)
    t.sql("CALL sys.compact('default.t')")
    check_pk(len(events), "pk: after the final full compaction")
    snaps = check_table_invariants(t, "t", "id")[0]
    if snaps[-1]["total_record_count"] != len(states[len(events)]):
        raise Failure("pk: after a full compaction totalRecordCount is %d, the table has %d rows" %
                      (snaps[-1]["total_record_count"], len(states[len(events)])))
    log("  ok  primary-key table: %d kills, commits after each kill %s; every time the table "
        "held exactly the first k*%d events (k = APPEND snapshots), snapshot ids contiguous, "
        "totalRecordCount = live records; %d events, %d snapshots in the end; the kills left "
        "%s (%.1fs)" % (kills, commits, every, len(events), len(snaps), leftovers(t, "t"),
                        time.time() - start))

    # A deletion-vector table whose commits do not wait for their compaction ('lookup-wait' =
    # 'false'): batch reads lag behind the commits, so each kill is checked with the
    # merge-on-read hint (level-0 files merged in); the end of the last ingest waits, so then a
    # plain read holds every event and nothing is left in level 0 (when the ingest that brought
    # in the last events was killed after its last commit, a compaction does that instead).
    t = Tributary(binary, warehouse_in(root, "random-dv-async", s3), s3)
    t.sql("CREATE TABLE t (id BIGINT, v STRING, n BIGINT, PRIMARY KEY (id) NOT ENFORCED) "
          "WITH ('bucket' = '2', 'deletion-vectors.enabled' = 'true', 'lookup-wait' = 'false')")
    every = 29
    dv_events = gen_pk_events(rng, 12000 // scale, 300)
    dv_states = prefix_states(dv_events, every)

    def check_dv(done, what, hint=" /*+ OPTIONS('deletion-vectors.merge-on-read' = 'true') */"):
        check_keyed_rows(t, dv_states, done, what, hint)

    start = time.time()
    kills, commits, last_killed = random_kill_rounds(t, "t", dv_events, every, max(2, rounds // 4),
                                                     rng, delays, check_dv, "dv-async", root)
    if last_killed:
        # The ingest that committed the last events was killed before its compaction ran: its
        # level-0 files wait for the next write or a compaction (merged on read meanwhile, as the
        # round checked). A compaction, then the plain read.
        t.sql("CALL sys.compact('default.t')")
    check_dv(len(dv_events), "dv-async: a plain batch read after the last ingest", hint="")
    level0 = t.query("SELECT count(*) AS n FROM t$files WHERE level = 0")[0]["n"]
    if level0:
        raise Failure("dv-async: %d level-0 files left after the last ingest ended" % level0)
    log("  ok  deletion-vector table with 'lookup-wait' = 'false': %d kills, commits after each "
        "kill %s; every time the table (merged on read) held exactly the first k*%d events; "
        "after the last ingest%s a plain read held them all, no level-0 file left (%.1fs)" %
        (kills, commits, every,
         " (killed after its last commit: then a compaction)" if last_killed else "",
         time.time() - start))

    # Append table: inserts only, compared as a multiset.
    t = Tributary(binary, warehouse_in(root, "random-append", s3), s3)
    t.sql(APPEND_DDL)
    every = 23
    rows = [{"id": i, "v": "r%d" % rng.randrange(1000), "n": i % 7} for i in range(30000 // scale)]
    events = [{"before": None, "after": r, "op": "c"} for r in rows]

    def check_append(done, what):
        actual = [(r["id"], r["v"], r["n"]) for r in t.query("SELECT id, v, n FROM a")]
        d = diff_multiset([(r["id"], r["v"], r["n"]) for r in rows[:done]], actual)
        if d:
            raise Failure("%s: the table does not hold exactly those events:\n%s" % (what, d))

    start = time.time()
    kills, commits, _ = random_kill_rounds(t, "a", events, every, max(2, rounds // 2), rng, delays,
                                        check_append, "append", root)
    log("  ok  append table: %d kills, commits after each kill %s; every time the table held "
        "exactly the first k*%d events, no row lost or doubled; the kills left %s (%.1fs)" %
        (kills, commits, every, leftovers(t, "a"), time.time() - start))


def main():
    global VERBOSE
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--binary", default="build/tributary")
    ap.add_argument("--seed", type=int, default=20240607)
    ap.add_argument("--rounds", type=int, default=40, help="random kills of the primary-key run")
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
        print("crash_test: %s is not an executable" % binary, file=sys.stderr)
        return 2
    root = tempfile.mkdtemp(prefix="tributary-crash-", dir=args.dir)
    # A private copy: other builds may relink build/tributary while this runs.
    binary = copy_binary(binary, root)
    start = time.time()
    try:
        with s3_server(args.s3) as s3:
            part_named(binary, root, s3)
            part_random(binary, root, args.seed, args.rounds, s3)
    except Failure as e:
        print("FAIL crash_test%s: %s" % (" (on S3)" if args.s3 else "", e), file=sys.stderr)
        print("  (%s kept in %s; seed %d)" % ("the input files" if args.s3 else "warehouses",
                                               root, args.seed), file=sys.stderr)
        return 1
    finally:
        os.remove(binary)  # the private copy; on failure the warehouses stay for a post-mortem
    if args.keep:
        log("warehouses kept in %s" % root)
    else:
        shutil.rmtree(root, ignore_errors=True)
    log("crash_test: all checks passed in %.1fs" % (time.time() - start))
    return 0


if __name__ == "__main__":
    sys.exit(main())
