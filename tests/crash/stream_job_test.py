#!/usr/bin/env python3
"""Streaming jobs (issue 36): `INSERT INTO sink SELECT ...` in streaming mode runs on, and
exactly once across kill -9.

    stream_job_test.py --binary build/tributary [--seed N] [--rounds N]

Part A, a primary-key sink: random inserts, updates and deletes are committed to a primary-key
source while a job (projection + filter) writes into a primary-key sink; the job is killed with
SIGKILL at random moments and started again. Once the writes stop and the job has caught up, the
sink holds exactly what the batch query over the source gives, and each of the sink's commits
records how far the job had read the source.
Part B, an append sink: random rows appended to an append source while a job (filter) copies
them, killed and restarted the same way: every source row that passes the filter is in the sink
exactly once.
Part B also: SIGTERM stops a job cleanly (its rows committed); a restart after a clean stop
writes nothing again; EXPLAIN shows the job; a second process running the same job is refused.
Part C, refusals: an append sink fed by a primary-key table's changes, a top-N whose source
does not start from a snapshot whole, a statement reading other sources under a job name that
read others, a column count that does not match, VALUES in a streaming statement set.
Part D, a statement set: one job feeding two sinks, killed and restarted: each sink gets every
row once, committed by its part of the job.
Part E, a delta join (no join state: each side's changes joined with the other side's table at
the snapshot its stream has reached) into a primary-key sink, killed and restarted: the sink
equals the batch join.
Part F, the sink's changelog of a job killed at random moments equals an uninterrupted job's.
Part G, a UNION ALL of two streams into an append sink: every row exactly once.
Part H, a top-N (ties by the rows' values) into a primary-key sink, killed and restarted (the
top-N rebuilt from the source's snapshot before the job's position): the sink equals the batch
query and its changelog an uninterrupted job's.
Part I, a projection into a sink keyed like its partitioned source (the job takes the source's
changes as written, no normalisation; EXPLAIN says so and each commit records it), with
repeated rows, updates and deletes, killed and restarted: the sink equals the batch query.
Python 3 standard library; the binary is the only other thing it runs.
"""
import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tributary_harness import Failure, Tributary, copy_binary, default_work_dir  # noqa: E402

JOB_PRELUDE = ("SET 'execution.runtime-mode' = 'streaming';\n"
               "SET 'execution.checkpointing.interval' = '200 ms';\n")


def start_job(t, statement, idle_ms=None, name=None):
    """A job process reading `statement` on stdin (not a terminal: no progress line)."""
    text = JOB_PRELUDE
    if name:
        text += "SET 'pipeline.name' = '%s';\n" % name
    text += statement + ";\n"
    cmd = [t.binary, "sql", "--warehouse", t.warehouse]
    if idle_ms:
        cmd += ["--idle-timeout-ms", str(idle_ms)]
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=t._env())
    p.stdin.write(text)
    p.stdin.close()
    p.stdin = None  # communicate() then only reads
    return p


def finish(p, what, expect_ok=True):
    out, err = p.communicate(timeout=120)
    if expect_ok and p.returncode != 0:
        raise Failure("%s: exit status %d: %s" % (what, p.returncode, err.strip()[-1500:]))
    return out, err


def rows(t, query):
    return sorted(tuple(r.values()) for r in t.query(query))


def part_a(t, rng, rounds):
    t.sql("CREATE TABLE src (id INT PRIMARY KEY NOT ENFORCED, v INT) WITH ('bucket' = '2')")
    t.sql("CREATE TABLE snk (id INT PRIMARY KEY NOT ENFORCED, v2 INT, tag STRING)")
    statement = ("INSERT INTO snk SELECT id, v * 2, CONCAT('k', CAST(id AS STRING)) "
                 "FROM src WHERE v % 3 <> 0")
    job = start_job(t, statement)
    kills = 0
    for r in range(rounds):
        values = []
        for _ in range(rng.randint(1, 6)):
            values.append("(%d, %d)" % (rng.randint(1, 30), rng.randint(0, 100)))
        t.sql("INSERT INTO src VALUES " + ", ".join(values))
        if rng.random() < 0.3:
            t.sql("DELETE FROM src WHERE id = %d" % rng.randint(1, 30))
        job, k = maybe_kill(t, rng, job, statement, 0.25)
        kills += k
    out, err = catch_up(t, job, statement, "the catching-up job")
    if "stopped" not in out + err:
        raise Failure("part A: the job did not say it stopped: %r" % (out + err))
    want = rows(t, "SELECT id, v * 2, CONCAT('k', CAST(id AS STRING)) FROM src "
                   "WHERE v % 3 <> 0")
    got = rows(t, "SELECT id, v2, tag FROM snk")
    if got != want:
        raise Failure("part A: after %d kills the sink differs from the batch query:\n"
                      "  sink:  %s\n  query: %s" % (kills, got, want))
    # Every job commit records the source's position, increasing.
    last = None
    for s in t.snapshots("snk"):
        if s["commit_kind"] != "APPEND":
            continue
        if s["commit_user"] != "tributary-job:insert-into_default.snk":
            raise Failure("part A: snapshot %d was committed by %r" %
                          (s["snapshot_id"], s["commit_user"]))
        if last is not None and s["commit_identifier"] <= last:
            raise Failure("part A: commit identifiers do not increase: %d after %d" %
                          (s["commit_identifier"], last))
        last = s["commit_identifier"]
    print("part A: primary-key sink equals the batch query after %d kill(s), %d rows" %
          (kills, len(got)))


def maybe_kill(t, rng, job, statement, odds, name=None):
    """With probability `odds`, kills the job (SIGKILL) a random moment later and starts it
    again. Returns the running job and how many kills (0 or 1)."""
    if rng.random() >= odds:
        return job, 0
    time.sleep(rng.uniform(0.0, 0.5))
    job.send_signal(signal.SIGKILL)
    job.wait()
    return start_job(t, statement, name=name), 1


def catch_up(t, job, statement, what, name=None):
    """Kills the job, then runs it until its sources have been idle 1.5 s."""
    time.sleep(0.3)
    job.send_signal(signal.SIGKILL)
    job.wait()
    return finish(start_job(t, statement, idle_ms=1500, name=name), what)


def append_with_kills(t, rng, rounds, statement, name, first_id, kill_odds):
    """Appends random rows (ids from first_id) to `log` in `rounds` commits while the job runs,
    killing it (SIGKILL) at random moments and starting it again. Returns the running job and
    the number of kills."""
    job = start_job(t, statement, name=name)
    next_id = first_id
    kills = 0
    for _ in range(rounds):
        values = []
        for _ in range(rng.randint(1, 8)):
            next_id += 1
            values.append("(%d, %d)" % (next_id, rng.randint(0, 9)))
        t.sql("INSERT INTO log VALUES " + ", ".join(values))
        job, k = maybe_kill(t, rng, job, statement, kill_odds, name=name)
        kills += k
    return job, kills


def part_b(t, rng, rounds):
    t.sql("CREATE TABLE log (id INT, v INT)")
    t.sql("CREATE TABLE copy (id INT, v INT)")
    statement = "INSERT INTO copy SELECT id, v FROM log WHERE v % 2 = 0"
    job, kills = append_with_kills(t, rng, rounds, statement, "copier", 0, 0.25)
    time.sleep(0.3)
    # SIGTERM stops the job cleanly: what it read is committed.
    job.send_signal(signal.SIGTERM)
    out, err = finish(job, "the job stopped by SIGTERM")
    if "Job 'copier' stopped" not in out + err:
        raise Failure("part B: SIGTERM did not stop the job cleanly: %r" % (out + err))
    out, err = finish(start_job(t, statement, idle_ms=1500, name="copier"), "the last job")
    want = rows(t, "SELECT id, v FROM log WHERE v % 2 = 0")
    got = rows(t, "SELECT id, v FROM copy")
    if got != want:
        dup = sorted(set(x for x in got if got.count(x) > 1))
        raise Failure("part B: after %d kills the append sink is not every row exactly once:\n"
                      "  duplicates: %s\n  missing: %s" %
                      (kills, dup, sorted(set(want) - set(got))))
    # A restart after the clean stop writes nothing again.
    out, err = finish(start_job(t, statement, idle_ms=800, name="copier"), "a restart")
    if "0 change(s) written" not in out + err:
        raise Failure("part B: a restart with nothing new wrote changes: %r" % (out + err))
    # EXPLAIN shows the job, where its source resumes, and its operators; it runs nothing.
    p = t.run([t.binary, "sql", "--warehouse", t.warehouse, "--format", "csv", "-e",
               JOB_PRELUDE + "SET 'pipeline.name' = 'copier';\nEXPLAIN " + statement],
              what="EXPLAIN of the job")
    for needle in ["StreamingInsert: job 'copier' into default.copy, a commit every 200 ms",
                   "source 1: default.log resumes at snapshot ",
                   "StreamScan: default.log"]:
        if needle not in p.stdout:
            raise Failure("part B: EXPLAIN lacks %r:\n%s" % (needle, p.stdout))
    # A second process running the same job is refused while the first runs.
    first = start_job(t, statement, name="copier")
    time.sleep(1.0)
    out, err = finish(start_job(t, statement, idle_ms=500, name="copier"), "a second copier",
                      expect_ok=False)
    if "is already running in another process" not in err:
        raise Failure("part B: a second process running the job was not refused: %r" % err)
    first.send_signal(signal.SIGTERM)
    finish(first, "the first copier")
    print("part B: append sink holds each row once after %d kill(s), %d rows" % (kills, len(got)))


def expect_refused(t, statement, needle, what, name=None):
    out, err = finish(start_job(t, statement, idle_ms=500, name=name), what, expect_ok=False)
    if needle not in err:
        raise Failure("%s: expected an error with %r, got: %r" % (what, needle, (out + err)[-800:]))


def part_c(t):
    t.sql("CREATE TABLE appended (id INT, v INT)")
    expect_refused(t, "INSERT INTO appended SELECT id, v FROM src",
                   "doesn't support consuming update and delete changes",
                   "an append sink fed by a primary-key table")
    expect_refused(t, "INSERT INTO snk SELECT id, v, 'x' FROM (SELECT id, v, ROW_NUMBER() OVER "
                      "(PARTITION BY id ORDER BY v DESC) AS rn FROM src /*+ OPTIONS("
                      "'scan.startup.mode' = 'latest') */) WHERE rn = 1",
                   "reads its source from a snapshot whole first", "a top-N from 'latest'")
    expect_refused(t, "INSERT INTO snk SELECT id, v FROM src", "expects 3 columns",
                   "a column count that does not match")
    # The job 'copier' read `log` into `copy`; a statement reading another table into `copy`
    # under its name is refused (its recorded position is `log`'s).
    expect_refused(t, "INSERT INTO copy SELECT id, v FROM appended", "give the job another "
                   "name", "another statement under a job's name", name="copier")
    expect_refused(t, "EXECUTE STATEMENT SET BEGIN INSERT INTO copy VALUES (1, 2); END",
                   "not supported yet", "INSERT ... VALUES in a streaming statement set")
    print("part C: refusals name what is not supported")


def part_d(t, rng, rounds):
    """A statement set: one job feeding two sinks, each commit of each sink with its own
    source position, killed and restarted."""
    t.sql("CREATE TABLE evens (id INT, v INT)")
    t.sql("CREATE TABLE odds (id INT, v INT)")
    statement = ("EXECUTE STATEMENT SET BEGIN\n"
                 "INSERT INTO evens SELECT id, v FROM log WHERE v % 2 = 0;\n"
                 "INSERT INTO odds SELECT id, v * 10 FROM log WHERE v % 2 = 1;\nEND")
    job, kills = append_with_kills(t, rng, rounds, statement, "split", 100000, 0.3)
    out, err = catch_up(t, job, statement, "the set's last run", name="split")
    for needle in ["Job 'split#1' stopped", "Job 'split#2' stopped"]:
        if needle not in out + err:
            raise Failure("part D: %r not said: %r" % (needle, out + err))
    for sink, query in [("evens", "SELECT id, v FROM log WHERE v % 2 = 0"),
                        ("odds", "SELECT id, v * 10 FROM log WHERE v % 2 = 1")]:
        want = rows(t, query)
        got = rows(t, "SELECT id, v FROM %s" % sink)
        if got != want:
            raise Failure("part D: after %d kills %s is not every row exactly once (%d rows, "
                          "want %d)" % (kills, sink, len(got), len(want)))
    for sink, part in [("evens", "split#1"), ("odds", "split#2")]:
        users = set(s["commit_user"] for s in t.snapshots(sink) if s["commit_kind"] == "APPEND")
        if users != {"tributary-job:" + part}:
            raise Failure("part D: %s was committed by %s" % (sink, users))
    print("part D: a statement set fed two sinks exactly once after %d kill(s)" % kills)


def part_e(t, rng, rounds):
    """A delta join into a primary-key sink, killed and restarted: the sink equals the batch
    join of the two tables."""
    t.sql("CREATE TABLE a (id INT, g INT, v STRING, PRIMARY KEY (id) NOT ENFORCED) "
          "WITH ('bucket' = '2')")
    t.sql("CREATE TABLE b (id INT, s INT, w STRING, PRIMARY KEY (id, s) NOT ENFORCED) "
          "WITH ('bucket' = '2', 'bucket-key' = 'id')")
    t.sql("CREATE TABLE ab (id INT, s INT, g INT, v STRING, w STRING, "
          "PRIMARY KEY (id, s) NOT ENFORCED)")
    select = "SELECT a.id, b.s, a.g, a.v, b.w FROM a JOIN b ON a.id = b.id"
    statement = "INSERT INTO ab " + select
    job = start_job(t, statement, name="joiner")
    kills = 0
    for _ in range(rounds):
        if rng.random() < 0.5:
            i = rng.randint(1, 12)
            t.sql("INSERT INTO a VALUES (%d, %d, 'v%d')" % (i, rng.randint(0, 3), rng.randint(0, 99)))
        else:
            t.sql("INSERT INTO b VALUES (%d, %d, 'w%d')" %
                  (rng.randint(1, 12), rng.randint(0, 2), rng.randint(0, 99)))
        if rng.random() < 0.15:
            t.sql("DELETE FROM %s WHERE id = %d" % (rng.choice("ab"), rng.randint(1, 12)))
        job, k = maybe_kill(t, rng, job, statement, 0.25, name="joiner")
        kills += k
    catch_up(t, job, statement, "the joiner's last run", name="joiner")
    want = rows(t, select)
    got = rows(t, "SELECT id, s, g, v, w FROM ab")
    if got != want:
        raise Failure("part E: after %d kills the delta join's sink differs from the batch join:\n"
                      "  sink: %s\n  join: %s" % (kills, got, want))
    print("part E: a delta join's sink equals the batch join after %d kill(s), %d rows" %
          (kills, len(got)))


def changelog(t, table):
    """Every change of `table`'s changelog files, sorted: a streaming read from 'earliest'."""
    p = t.run([t.binary, "sql", "--warehouse", t.warehouse, "--format", "csv",
               "--idle-timeout-ms", "500", "-e",
               "SET 'execution.runtime-mode' = 'streaming';\nSELECT * FROM %s /*+ "
               "OPTIONS('scan.startup.mode' = 'earliest') */" % table],
              what="the changelog of " + table)
    return sorted(line for line in p.stdout.splitlines()[1:] if line.strip())


def part_f(t, rng, rounds):
    """The sink's changelog holds no duplicate and no missing change: a job killed at random
    moments and a job run once at the end, both reading the source's whole log ('earliest')
    into sinks that store every change ('changelog-producer' = 'input'), leave the same changes
    in their sinks' changelogs."""
    t.sql("CREATE TABLE hist (id INT PRIMARY KEY NOT ENFORCED, v INT) WITH ('bucket' = '2')")
    for sink in ("killed", "once"):
        t.sql("CREATE TABLE %s (id INT PRIMARY KEY NOT ENFORCED, v INT) "
              "WITH ('changelog-producer' = 'input')" % sink)
    select = ("SELECT id, v FROM hist /*+ OPTIONS('scan.startup.mode' = 'earliest') */ "
              "WHERE v % 4 <> 0")
    job = start_job(t, "INSERT INTO killed " + select)
    kills = 0
    for _ in range(rounds):
        t.sql("INSERT INTO hist VALUES (%d, %d), (%d, %d)" %
              (rng.randint(1, 10), rng.randint(0, 50), rng.randint(1, 10), rng.randint(0, 50)))
        if rng.random() < 0.2:
            t.sql("DELETE FROM hist WHERE id = %d" % rng.randint(1, 10))
        job, k = maybe_kill(t, rng, job, "INSERT INTO killed " + select, 0.3)
        kills += k
    catch_up(t, job, "INSERT INTO killed " + select, "the killed job's last run")
    finish(start_job(t, "INSERT INTO once " + select, idle_ms=1500), "the job run once")
    got = changelog(t, "killed")
    want = changelog(t, "once")
    if got != want:
        raise Failure("part F: after %d kills the sink's changelog differs from an uninterrupted "
                      "job's:\n  killed: %s\n  once:   %s" % (kills, got, want))
    print("part F: the sink's changelog equals an uninterrupted job's after %d kill(s), "
          "%d changes" % (kills, len(got)))


def part_g(t, rng, rounds):
    """A UNION ALL of two streams into an append sink, killed and restarted: every row of
    both inputs that passes its branch's filter is in the sink exactly once."""
    t.sql("CREATE TABLE in1 (id INT, v INT)")
    t.sql("CREATE TABLE in2 (id BIGINT, v INT)")
    t.sql("CREATE TABLE merged (id BIGINT, v INT, src STRING)")
    select = ("SELECT id, v, 'one' FROM in1 WHERE v % 3 <> 0 UNION ALL "
              "SELECT id, v * 10, 'two' FROM in2")
    statement = "INSERT INTO merged " + select
    job = start_job(t, statement, name="merger")
    kills, next_id = 0, 0
    for _ in range(rounds):
        values = []
        for _ in range(rng.randint(1, 5)):
            next_id += 1
            values.append("(%d, %d)" % (next_id, rng.randint(0, 9)))
        t.sql("INSERT INTO %s VALUES %s" % (rng.choice(["in1", "in2"]), ", ".join(values)))
        job, k = maybe_kill(t, rng, job, statement, 0.25, name="merger")
        kills += k
    catch_up(t, job, statement, "the merger's last run", name="merger")
    want = rows(t, select)
    got = rows(t, "SELECT id, v, src FROM merged")
    if got != want:
        raise Failure("part G: after %d kills the UNION ALL's sink is not every row exactly "
                      "once (%d rows, want %d)" % (kills, len(got), len(want)))
    print("part G: a UNION ALL job fed its sink exactly once after %d kill(s), %d rows" %
          (kills, len(got)))


def part_h(t, rng, rounds):
    """A top-N (Flink's pattern: the two highest amounts per category, ties by the rows' values)
    into a primary-key sink, killed at random moments and restarted: the restart rebuilds the
    top-N from the source's rows at the job's position and writes nothing for them. The sink
    then equals the batch query, and its changelog (every change stored, 'changelog-producer' =
    'input') equals that of the same job run alongside without a kill."""
    t.sql("CREATE TABLE scores (id INT PRIMARY KEY NOT ENFORCED, cat INT, amt INT) "
          "WITH ('bucket' = '2')")
    for sink in ("best", "best_once"):
        t.sql("CREATE TABLE %s (cat INT, rn BIGINT, id INT, amt INT, "
              "PRIMARY KEY (cat, rn) NOT ENFORCED) WITH ('changelog-producer' = 'input')" % sink)
    select = ("SELECT cat, rn, id, amt FROM (SELECT id, cat, amt, ROW_NUMBER() OVER "
              "(PARTITION BY cat ORDER BY amt DESC) AS rn FROM scores WHERE amt > 0) "
              "WHERE rn <= 2")
    statement = "INSERT INTO best " + select
    once = start_job(t, "INSERT INTO best_once " + select, name="ranker_once")
    job = start_job(t, statement, name="ranker")
    # Both follow the source from its first change: each job's consumer appears as it opens.
    deadline = time.time() + 30
    while True:
        ids = set(r["consumer_id"] for r in t.query("SELECT consumer_id FROM scores$consumers"))
        if {"job-ranker-0", "job-ranker_once-0"} <= ids:
            break
        if time.time() > deadline:
            raise Failure("part H: the jobs did not open their sources: %s" % sorted(ids))
        time.sleep(0.05)
    kills = 0
    for _ in range(rounds):
        values = []
        for _ in range(rng.randint(1, 5)):
            # Few amounts, so ranks tie.
            values.append("(%d, %d, %d)" % (rng.randint(1, 25), rng.randint(1, 3),
                                            rng.randint(0, 6)))
        t.sql("INSERT INTO scores VALUES " + ", ".join(values))
        if rng.random() < 0.25:
            t.sql("DELETE FROM scores WHERE id = %d" % rng.randint(1, 25))
        job, k = maybe_kill(t, rng, job, statement, 0.3, name="ranker")
        kills += k
    catch_up(t, job, statement, "the ranker's last run", name="ranker")
    time.sleep(0.5)
    once.send_signal(signal.SIGTERM)
    finish(once, "the ranker run once")
    # Ties rank by the rows' values: the id first.
    want = rows(t, "SELECT cat, rn, id, amt FROM (SELECT id, cat, amt, ROW_NUMBER() OVER "
                   "(PARTITION BY cat ORDER BY amt DESC, id) AS rn FROM scores WHERE amt > 0) "
                   "WHERE rn <= 2")
    got = rows(t, "SELECT cat, rn, id, amt FROM best")
    if got != want:
        raise Failure("part H: after %d kills the top-N's sink differs from the batch query:\n"
                      "  sink:  %s\n  query: %s" % (kills, got, want))
    got_log, want_log = changelog(t, "best"), changelog(t, "best_once")
    if got_log != want_log:
        raise Failure("part H: after %d kills the top-N sink's changelog differs from an "
                      "uninterrupted job's:\n  killed: %s\n  once:   %s" %
                      (kills, got_log, want_log))
    # The snapshot the top-N is rebuilt from is kept by a consumer of its own.
    # The job's consumer follows it (expiration is not held back); the snapshot before it, the
    # one the top-N is rebuilt from, is kept by a consumer of its own.
    consumers = dict((r["consumer_id"], r["next_snapshot_id"])
                     for r in t.query("SELECT * FROM scores$consumers"))
    latest = max(s["snapshot_id"] for s in t.snapshots("scores"))
    if consumers.get("job-ranker-0") != latest + 1 or \
            consumers.get("job-ranker-0-state") != latest:
        raise Failure("part H: the job's consumers are not at snapshot %d and the one before: "
                      "%s" % (latest + 1, consumers))
    print("part H: a top-N job's sink and changelog equal an uninterrupted job's after %d "
          "kill(s), %d rows" % (kills, len(got)))


def part_i(t, rng, rounds):
    t.sql("CREATE TABLE ups (pt STRING, id INT, v INT, s STRING, PRIMARY KEY (pt, id) NOT "
          "ENFORCED) PARTITIONED BY (pt) WITH ('bucket' = '2')")
    t.sql("CREATE TABLE ups_copy (pt STRING, id INT, v10 INT, s STRING, PRIMARY KEY (pt, id) "
          "NOT ENFORCED) WITH ('bucket' = '3')")
    select = "SELECT pt, id, v * 10, UPPER(s) FROM ups"
    statement = "INSERT INTO ups_copy " + select
    plan = t.query("SET 'execution.runtime-mode' = 'streaming';\nEXPLAIN " + statement)
    if "as upserts (no ChangelogNormalize" not in json.dumps(plan):
        raise Failure("part I: EXPLAIN does not show the source read as upserts: %s" % plan)
    job = start_job(t, statement)
    kills = 0
    for _ in range(rounds):
        values = []
        for _ in range(rng.randint(1, 8)):
            values.append("('p%d', %d, %d, 's%d')" % (rng.randint(0, 2), rng.randint(1, 20),
                                                      rng.randint(0, 3), rng.randint(0, 2)))
        t.sql("INSERT INTO ups VALUES " + ", ".join(values))
        if rng.random() < 0.3:
            t.sql("DELETE FROM ups WHERE id = %d" % rng.randint(1, 20))
        job, k = maybe_kill(t, rng, job, statement, 0.25)
        kills += k
    catch_up(t, job, statement, "part I's catching-up job")
    want = rows(t, select)
    got = rows(t, "SELECT * FROM ups_copy")
    if got != want:
        raise Failure("part I: after %d kills the sink differs from the batch query:\n"
                      "  sink:  %s\n  query: %s" % (kills, got, want))
    snapshot_dir = os.path.join(t.warehouse, "default.db", "ups_copy", "snapshot")
    last = max(int(n.split("-")[1]) for n in os.listdir(snapshot_dir)
               if n.startswith("snapshot-"))
    with open(os.path.join(snapshot_dir, "snapshot-%d" % last)) as f:
        properties = json.load(f).get("properties", {})
    sources = json.loads(properties.get("tributary.job.sources", "[]"))
    if not sources or sources[0].get("upserts") is not True:
        raise Failure("part I: the job's last commit does not record reading upserts: %s" %
                      properties)
    print("part I: a projection read as upserts equals the batch query after %d kill(s), "
          "%d rows" % (kills, len(got)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    ap.add_argument("--seed", type=int, default=int(time.time()))
    ap.add_argument("--rounds", type=int, default=25)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory(dir=default_work_dir()) as root:
        binary = copy_binary(os.path.abspath(args.binary), root)
        t = Tributary(binary, os.path.join(root, "warehouse"))
        try:
            part_a(t, rng, args.rounds)
            part_b(t, rng, args.rounds)
            part_c(t)
            part_d(t, rng, max(5, args.rounds // 2))
            part_e(t, rng, 2 * args.rounds)
            part_f(t, rng, args.rounds)
            part_g(t, rng, args.rounds)
            part_h(t, rng, args.rounds)
            part_i(t, rng, args.rounds)
        except Failure as e:
            print("FAIL stream_job_test (seed %d): %s" % (args.seed, e))
            return 1
    print("stream_job_test: passed (seed %d)" % args.seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
