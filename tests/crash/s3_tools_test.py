#!/usr/bin/env python3
"""Warehouses on S3 seen by other tools, request costs, and every maintenance tool there
(issue 34). The test S3 server is s3rver behind the conditional proxy (tests/crash/s3rver/).

A. awscli (Debian's, installed when missing) as an independent client: after a table is written
   on the server, `aws s3 ls` lists under the table exactly the files its snapshots name (from
   $snapshots, $schemas, $manifests and $files, sizes included), `aws s3 cp` fetches its data
   files, and DuckDB (npm @duckdb/node-api, pinned as tests/crosscheck/parquet_duckdb.sh pins
   it) reads them: merged by key, their rows are the rows SELECT returns. The slow tier
   (`make test-slow`, `--parts A`): DuckDB comes from npm.
B. Request counts (the proxy's log), the bounds docs/format/object-storage.md documents: a
   streaming reader's look at an idle table costs at most 2 requests on average; one INSERT of
   one row into a one-bucket primary-key table in a fresh process at most 40, and lists no data
   directory; a query repeated in one session (an interactive `tributary sql` on a terminal)
   at most 4 requests (the remembered latest schema and snapshot each checked by two HEADs),
   and it sees what another process did meanwhile: a rollback and a new commit that reuse the
   remembered snapshot's name, a table dropped and created again with other columns.
C. Every tool on S3 gives what it gives on a local warehouse: `tributary ingest`, snapshot
   expiration (its deletes batched: DeleteObjects, no DELETE of a data file or manifest one by
   one), CALL sys.remove_orphan_files over a bucket directory of more than one listing page
   (1,100 orphans: two pages, two DeleteObjects), create_tag / rollback_to / create_branch and
   reading and writing the branch, CALL sys.rescale.

D. A commit whose conditional PUT of snapshot-N was stored but answered 503 (the proxy's
   lost-answer fault): the retry finds the name taken by its own bytes and the commit stands,
   once: no error, no second snapshot with the same rows.

E. A streaming job's lease (the one-process rule on object storage): a second process is refused
   while the job runs and while a killed holder's lease has not run out; a lease that ran out is
   taken over and the job resumes where it committed; a job whose lease another process took
   stops with the reason.

Usage: s3_tools_test.py [--binary build/tributary] [--parts ABCDE]   (default: B, C, D and E)
Python 3 standard library only.
"""
import argparse
import collections
import concurrent.futures
import hashlib
import http.client
import json
import os
import pty
import select
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "s3rver"))
from s3server import S3Server  # noqa: E402

TIMEOUT_S = 120
DUCKDB_NPM = "@duckdb/node-api@1.5.6-r.1"  # as tests/crosscheck/parquet_duckdb.sh
FUTURE = "2999-01-01 00:00:00"


class Failure(Exception):
    pass


def ok(msg):
    print("  ok  " + msg, flush=True)


class Warehouse:
    """Runs statements against one warehouse (a local directory or s3://...)."""

    def __init__(self, binary, path, env):
        self.binary, self.path, self.env = binary, path, env

    def run(self, args, expect=0, stdin=None):
        p = subprocess.run([self.binary] + args, capture_output=True, text=True, env=self.env,
                           timeout=TIMEOUT_S, input=stdin)
        if p.returncode != expect:
            raise Failure("%s on %s: exit %d (expected %d): %s" % (
                " ".join(args)[:160], self.path, p.returncode, expect, p.stderr.strip()[-600:]))
        return p

    def sql(self, text, extra=()):
        return self.run(["sql", "--warehouse", self.path, "--format", "json"] + list(extra) +
                        ["-e", text])

    def query(self, text, extra=()):
        out = self.sql(text, extra).stdout
        return [json.loads(line) for line in out.splitlines() if line.startswith("{")]


# --- A. awscli and DuckDB -------------------------------------------------------------------

def ensure_debian_aws():
    """Debian's awscli (/usr/bin/aws), installed when missing; never another `aws` on PATH."""
    aws = "/usr/bin/aws"
    if not os.path.exists(aws):
        sudo = [] if os.geteuid() == 0 else ["sudo"]
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        subprocess.run(sudo + ["apt-get", "update", "-qq"], check=True, env=env)
        subprocess.run(sudo + ["apt-get", "install", "-y", "-qq", "awscli"], check=True, env=env)
    return aws


def ensure_duckdb(tmp):
    work = os.path.join(tmp, "duckdb-npm")
    os.makedirs(work)
    subprocess.run(["npm", "init", "-y"], cwd=work, check=True, stdout=subprocess.DEVNULL)
    subprocess.run(["npm", "install", "--silent", "--no-audit", "--no-fund", DUCKDB_NPM],
                   cwd=work, check=True, stdout=subprocess.DEVNULL, timeout=600)
    return os.path.join(work, "node_modules")


DUCKDB_JS = r"""
const duckdb = require('@duckdb/node-api');
(async () => {
  const instance = await duckdb.DuckDBInstance.create(':memory:');
  const conn = await instance.connect();
  const result = await conn.runAndReadAll(process.argv[1]);
  console.log(JSON.stringify(result.getRows().map((r) => r.map((v) => v === null ? null
                                                                         : String(v)))));
})().catch((e) => { console.error(e); process.exit(1); });
"""


def part_a(binary, s3):
    aws = ensure_debian_aws()
    env = s3.env()
    wh = Warehouse(binary, "s3://tb/tools", env)
    wh.sql("CREATE TABLE t (id BIGINT, v STRING, d DOUBLE, amt DECIMAL(10, 2), day DATE, "
           "PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '2')")
    wh.sql("INSERT INTO t VALUES " + ", ".join(
        "(%d, %s, %s, %d.%02d, DATE '2024-01-%02d')" % (
            i, "NULL" if i % 7 == 0 else "'v%d'" % i, i * 0.25 - 3, i * 3, i % 100, 1 + i % 28)
        for i in range(40)))
    wh.sql("UPDATE t SET v = 'updated', d = -1.5 WHERE id % 5 = 1")
    wh.sql("DELETE FROM t WHERE id % 9 = 2")
    wh.sql("INSERT INTO t VALUES (100, 'late', 1e10, 99999999.99, DATE '1970-01-01')")
    table = "tools/default.db/t/"
    # What the snapshots name.
    snaps = wh.query("SELECT * FROM t$snapshots")
    schemas = wh.query("SELECT schema_id FROM t$schemas")
    manifests = wh.query("SELECT file_name, file_size FROM t$manifests")
    files = wh.query("SELECT file_path, file_size_in_bytes FROM t$files")
    if len(snaps) != 4 or not manifests or len(files) < 4:
        raise Failure("system tables: %d snapshots, %d manifests, %d data files" % (
            len(snaps), len(manifests), len(files)))
    named = {"snapshot/EARLIEST": None, "snapshot/LATEST": None}
    for s in snaps:
        named["snapshot/snapshot-%d" % s["snapshot_id"]] = None
        for k in ("base_manifest_list", "delta_manifest_list", "changelog_manifest_list"):
            if s[k]:
                named["manifest/" + s[k]] = None
    for s in schemas:
        named["schema/schema-%d" % s["schema_id"]] = None
    for m in manifests:
        named["manifest/" + m["file_name"]] = m["file_size"]
    prefix = "s3://tb/" + table
    for f in files:
        if not f["file_path"].startswith(prefix):
            raise Failure("a data file outside the table: %s" % f["file_path"])
        named[f["file_path"][len(prefix):]] = f["file_size_in_bytes"]
    # What awscli sees.
    aws_env = dict(env, AWS_CONFIG_FILE=os.path.join(s3.tmp, "aws-config"),
                   AWS_SHARED_CREDENTIALS_FILE=os.path.join(s3.tmp, "aws-credentials"),
                   AWS_PAGER="")
    aws_env.pop("AWS_ENDPOINT_URL", None)

    def aws_run(*args):
        p = subprocess.run([aws, "--endpoint-url", s3.endpoint()] + list(args),
                           capture_output=True, text=True, env=aws_env, timeout=TIMEOUT_S)
        if p.returncode != 0:
            raise Failure("aws %s: exit %d: %s" % (" ".join(args), p.returncode,
                                                  p.stderr.strip()[-400:]))
        return p.stdout

    listed = {}
    for line in aws_run("s3", "ls", "--recursive", prefix).splitlines():
        parts = line.split(None, 3)  # date, time, size, key
        if len(parts) == 4 and parts[3].startswith(table):
            listed[parts[3][len(table):]] = int(parts[2])
    if set(listed) != set(named):
        raise Failure("aws s3 ls lists %s more and %s fewer than the snapshots name" % (
            sorted(set(listed) - set(named)), sorted(set(named) - set(listed))))
    wrong = {k: (listed[k], v) for k, v in named.items() if v is not None and listed[k] != v}
    if wrong:
        raise Failure("sizes aws s3 ls gives differ from the table's (listed, recorded): %s" %
                      wrong)
    if set(listed) != set(k[len(table):] for k in s3.object_keys(table)):
        raise Failure("aws s3 ls does not list what the store holds")
    ok("aws s3 ls lists exactly the %d files the snapshots name (%d data files, %d manifests), "
       "with their recorded sizes" % (len(listed), len(files), len(manifests)))
    # Fetched by awscli, read by DuckDB.
    fetched = os.path.join(s3.tmp, "fetched")
    aws_run("s3", "cp", "--recursive", "--only-show-errors", prefix, fetched,
            "--exclude", "*", "--include", "bucket-*")
    data = sorted(os.path.join(fetched, f["file_path"][len(prefix):]) for f in files)
    for path, f in zip(data, sorted(files, key=lambda f: f["file_path"])):
        if os.path.getsize(path) != f["file_size_in_bytes"]:
            raise Failure("aws s3 cp fetched %s with %d bytes, not %d" % (
                path, os.path.getsize(path), f["file_size_in_bytes"]))
    node_path = ensure_duckdb(s3.tmp)
    quoted = ", ".join("'%s'" % p.replace("'", "''") for p in data)
    # Paimon's primary-key files: the row with the highest sequence number of each key is the
    # table's row unless it is a retraction (_VALUE_KIND 1 -U, 3 -D).
    duck_sql = ("SELECT CAST(id AS VARCHAR), v, CAST(d AS VARCHAR), CAST(amt AS VARCHAR), "
                "CAST(day AS VARCHAR) FROM (SELECT *, row_number() OVER (PARTITION BY _KEY_id "
                "ORDER BY _SEQUENCE_NUMBER DESC) AS rn FROM read_parquet([%s])) "
                "WHERE rn = 1 AND _VALUE_KIND IN (0, 2) ORDER BY id" % quoted)
    p = subprocess.run(["node", "-e", DUCKDB_JS, duck_sql], capture_output=True, text=True,
                       env=dict(os.environ, NODE_PATH=node_path), timeout=TIMEOUT_S)
    if p.returncode != 0:
        raise Failure("DuckDB failed: " + p.stderr.strip()[-600:])
    duck = [(int(r[0]), r[1], float(r[2]), r[3], r[4]) for r in json.loads(p.stdout)]
    ours = [(r["id"], r["v"], float(r["d"]), r["amt"], r["day"])
            for r in wh.query("SELECT * FROM t ORDER BY id")]
    if duck != ours or len(ours) < 30:
        diff = [(a, b) for a, b in zip(duck, ours) if a != b][:3]
        raise Failure("DuckDB reads %d rows, SELECT returns %d; first differences %s" % (
            len(duck), len(ours), diff))
    ok("aws s3 cp fetched the %d data files; DuckDB reads them, merged by key, as the %d rows "
       "SELECT returns" % (len(data), len(ours)))


# --- B. request counts ----------------------------------------------------------------------

def describe(req):
    method, path, query, _ = req
    if path == "/tb" and "list-type" in query:
        prefix = [q for q in query.split("&") if q.startswith("prefix=")]
        return "LIST " + (prefix[0][7:].replace("%2F", "/") if prefix else "")
    if path == "/tb" and "delete" in query:
        return "POST ?delete"
    return "%s %s" % (method, path.split("/", 2)[-1] if path.count("/") >= 2 else path)


def part_b(binary, s3):
    wh = Warehouse(binary, "s3://tb/costs", s3.env())
    wh.sql("CREATE TABLE t (id BIGINT, v STRING, PRIMARY KEY (id) NOT ENFORCED) "
           "WITH ('bucket' = '1'); INSERT INTO t VALUES (1, 'a')")
    # (1) Streaming looks at an idle table: two reads, idle 1 s and 4 s; the difference in
    #     requests over the difference in looks (a look is the HEAD of the next snapshot) is
    #     the cost of a look, the start of the read cancelled out.
    nxt = "/tb/costs/default.db/t/snapshot/snapshot-2"
    runs = []
    for idle in (1000, 4000):
        s3.clear_requests()
        rows = wh.query("SET 'execution.runtime-mode' = 'streaming'; SELECT * FROM t",
                        extra=("--idle-timeout-ms", str(idle)))
        if [(r.get("id"), r.get("v")) for r in rows] != [(1, "a")]:
            raise Failure("the streaming read gave %s" % rows)
        reqs = s3.requests()
        looks = sum(1 for m, p, _, _ in reqs if m == "HEAD" and p == nxt)
        runs.append((len(reqs), looks, reqs))
    (r1, l1, _), (r4, l4, reqs4) = runs
    if l4 - l1 < 20:
        raise Failure("3 s more of idle reading made only %d more looks" % (l4 - l1))
    per_look = (r4 - r1) / (l4 - l1)
    if per_look > 2:
        kinds = collections.Counter(describe(r) for r in reqs4)
        raise Failure("an idle streaming look costs %.2f requests on average (at most 2): %s" %
                      (per_look, kinds.most_common(8)))
    other = collections.Counter(describe(r) for r in reqs4 if not (r[0] == "HEAD" and
                                                                   r[1] == nxt))
    ok("an idle streaming look costs %.2f requests on average (%d looks in 4 s; besides the "
       "looks' HEADs: %s)" % (per_look, l4, dict(other.most_common(6))))
    # (2) One INSERT of one row in a fresh process.
    s3.clear_requests()
    wh.sql("INSERT INTO t VALUES (2, 'b')")
    reqs = s3.requests()
    kinds = [describe(r) for r in reqs]
    data_lists = [k for k in kinds if k.startswith("LIST") and "/bucket-" in k]
    if len(reqs) > 40 or data_lists:
        raise Failure("an INSERT of one row costs %d requests (at most 40, no data directory "
                      "listed): %s" % (len(reqs), kinds))
    by_method = collections.Counter(r[0] if not describe(r).startswith("LIST") else "LIST"
                                    for r in reqs)
    ok("an INSERT of one row into a one-bucket table costs %d requests (%s), no data directory "
       "listed" % (len(reqs), ", ".join("%d %s" % (n, m) for m, n in sorted(by_method.items()))))
    part_b_session(binary, s3)
    return per_look, len(reqs)


class Session:
    """An interactive `tributary sql` (stdin a terminal, as a user's shell), statements one at a
    time, each answered as JSON lines; a marker query after each tells where its answer ends."""

    def __init__(self, binary, path, env):
        master, slave = pty.openpty()
        self.master = master
        self.p = subprocess.Popen([binary, "sql", "--warehouse", path, "--format", "json"],
                                  stdin=slave, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                  env=env)
        os.close(slave)
        self.n = 0
        self.buf = b""

    def ask(self, stmt):
        self.n += 1
        marker = "end-%d" % self.n
        os.write(self.master, (stmt + ";\nSELECT '%s' AS m;\n" % marker).encode())
        lines = []
        deadline = time.time() + TIMEOUT_S
        while True:
            while b"\n" in self.buf:
                line, self.buf = self.buf.split(b"\n", 1)
                text = line.decode(errors="replace").strip()
                if marker in text and text.startswith("{"):
                    return [json.loads(t) for t in lines if t.startswith("{")], lines
                lines.append(text)
            left = deadline - time.time()
            if left <= 0 or self.p.poll() is not None:
                raise Failure("the interactive session did not answer %r: %s" % (stmt, lines[-5:]))
            ready, _, _ = select.select([self.p.stdout], [], [], left)
            if ready:
                self.buf += os.read(self.p.stdout.fileno(), 65536)

    def close(self):
        os.close(self.master)
        try:
            self.p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()


def part_b_session(binary, s3):
    """A query repeated in one session: its request count, and answers from the latest snapshot
    and schema after another process changed them under the same file names."""
    wh = Warehouse(binary, "s3://tb/session", s3.env())
    wh.sql("CREATE TABLE t (id BIGINT, v STRING, PRIMARY KEY (id) NOT ENFORCED) "
           "WITH ('bucket' = '1'); INSERT INTO t VALUES (1, 'a'); INSERT INTO t VALUES (2, 'b')")
    session = Session(binary, wh.path, s3.env())
    try:
        def rows(stmt):
            return sorted(tuple(sorted(r.items())) for r in session.ask(stmt)[0])

        first = rows("SELECT * FROM t")
        if first != [(("id", 1), ("v", "a")), (("id", 2), ("v", "b"))]:
            raise Failure("the session read %s" % first)
        s3.clear_requests()
        rows("SELECT * FROM t")
        reqs = [r for r in s3.requests()]
        if len(reqs) > 4:
            raise Failure("a repeated SELECT in one session costs %d requests (at most 4): %s" %
                          (len(reqs), [describe(r) for r in reqs]))
        ok("a repeated SELECT in one session costs %d requests (%s)" % (
            len(reqs), ", ".join(describe(r) for r in reqs)))
        # Another process: back to snapshot 1, then a new snapshot 2 (the session remembered
        # snapshot 2: the same name, other contents).
        wh.sql("CALL sys.rollback_to('default.t', 1); INSERT INTO t VALUES (3, 'c')")
        after = rows("SELECT * FROM t")
        if after != [(("id", 1), ("v", "a")), (("id", 3), ("v", "c"))]:
            raise Failure("after another process rolled back and committed snapshot 2 again, "
                          "the session read %s (the remembered snapshot 2?)" % after)
        ok("after another process rolled back and committed a new snapshot 2, the session reads "
           "it, not the snapshot 2 it remembered")
        # Another process: the table dropped and created again with other columns (schema-0
        # again, other contents).
        wh.sql("DROP TABLE t; CREATE TABLE t (id BIGINT, w INT, PRIMARY KEY (id) NOT ENFORCED) "
               "WITH ('bucket' = '1'); INSERT INTO t VALUES (7, 70)")
        again = rows("SELECT * FROM t")
        if again != [(("id", 7), ("w", 70))]:
            raise Failure("after another process dropped and created the table again, the "
                          "session read %s" % again)
        ok("after another process dropped and created the table again with other columns, the "
           "session reads the new table")
    finally:
        session.close()


# --- C. tools on S3 and locally -------------------------------------------------------------

def part_c(binary, s3):
    env = s3.env()
    local = Warehouse(binary, os.path.join(s3.tmp, "local-c"), env)
    remote = Warehouse(binary, "s3://tb/tools-c", env)
    both = (local, remote)

    def same(text, what):
        got = [w.query(text) for w in both]
        if got[0] != got[1]:
            raise Failure("%s: locally %s, on S3 %s" % (what, got[0][:6], got[1][:6]))
        return got[0]

    # tributary ingest, committing every 5 events.
    events = []
    for i in range(30):
        events.append({"before": None, "after": {"id": i, "v": "v%d" % i}, "op": "c"})
    for i in range(0, 30, 4):
        events.append({"before": {"id": i, "v": "v%d" % i}, "after": {"id": i, "v": "u%d" % i},
                       "op": "u"})
    for i in range(1, 30, 6):
        events.append({"before": {"id": i, "v": "v%d" % i}, "after": None, "op": "d"})
    feed = "".join(json.dumps(e) + "\n" for e in events)
    for w in both:
        w.sql("CREATE TABLE g (id BIGINT, v STRING, PRIMARY KEY (id) NOT ENFORCED) "
              "WITH ('bucket' = '2')")
        w.run(["ingest", "--warehouse", w.path, "--table", "default.g", "--format",
               "debezium-json", "--commit-every", "5", "-"], stdin=feed)
    rows = same("SELECT * FROM g ORDER BY id", "ingest's rows")
    # Its background compaction commits when it is done, so only the APPEND commits (one per 5
    # events) are the same sequence.
    snaps = same("SELECT delta_record_count FROM g$snapshots WHERE commit_kind = 'APPEND' "
                 "ORDER BY snapshot_id", "ingest's commits")
    if len(rows) != 25 or len(snaps) != (len(events) + 4) // 5:
        raise Failure("ingest: %d rows, %d commits" % (len(rows), len(snaps)))
    ok("tributary ingest (%d events, a commit every 5): the same %d rows and %d commits as "
       "locally" % (len(events), len(rows), len(snaps)))

    # Snapshot expiration: at most 3 snapshots kept; its deletes batched.
    for w in both:
        w.sql("CREATE TABLE e (id BIGINT, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH "
              "('bucket' = '1', 'snapshot.num-retained.min' = '2', "
              "'snapshot.num-retained.max' = '3', 'num-sorted-run.compaction-trigger' = '3')")
    deletes = []
    for i in range(8):
        stmt = "INSERT INTO e VALUES (%d, 'x%d'), (%d, 'y')" % (i, i, i % 3 + 100)
        local.sql(stmt)
        s3.clear_requests()
        remote.sql(stmt)
        deletes += [describe(r) for r in s3.requests() if r[0] in ("DELETE", "POST")]
    same("SELECT * FROM e ORDER BY id", "rows after expiration")
    kept = same("SELECT snapshot_id, commit_kind FROM e$snapshots", "snapshots after expiration")
    if len(kept) != 3:
        raise Failure("expiration kept %s" % kept)
    table = "tools-c/default.db/e/"
    on_s3 = sorted(k[len(table):] for k in s3.object_keys(table))
    local_dir = os.path.join(local.path, "default.db", "e")
    on_disk = sorted(os.path.relpath(os.path.join(d, f), local_dir)
                     for d, _, fs in os.walk(local_dir) for f in fs)

    def shape(names):  # file names hold UUIDs: compare the kinds per folder
        return collections.Counter((os.path.dirname(n), os.path.basename(n).split("-")[0])
                                   for n in names if not os.path.basename(n).startswith("."))

    if shape(on_s3) != shape(on_disk):
        raise Failure("after expiration the store holds %s, a local disk %s" % (
            shape(on_s3), shape(on_disk)))
    one_by_one = [d for d in deletes if d.startswith("DELETE") and
                  ("/bucket-" in d or "/manifest/" in d)]
    batches = deletes.count("POST ?delete")
    if one_by_one or not batches:
        raise Failure("expiration's deletes are not batched: %d DeleteObjects, one by one: %s" %
                      (batches, one_by_one[:6]))
    ok("expiration keeps the same 3 snapshots and files as locally; its data files and "
       "manifests go in %d DeleteObjects requests, none one by one" % batches)

    # remove_orphan_files over a bucket directory of two listing pages.
    orphans = 1100
    for w in both:
        w.sql("CREATE TABLE o (id BIGINT, v STRING) WITH ('bucket' = '1', "
              "'bucket-key' = 'id'); INSERT INTO o VALUES (1, 'a'), (2, 'b')")
    src = os.path.join(s3.tmp, "orphans")
    os.makedirs(src)
    for i in range(orphans):
        with open(os.path.join(src, "data-orphan-%04d.parquet" % i), "w") as f:
            f.write("x" * (i % 7))
    shutil.copytree(src, os.path.join(local.path, "default.db", "o", "bucket-0"),
                    dirs_exist_ok=True)
    upload_orphans(s3, src, "tools-c/default.db/o/bucket-0/")
    s3.clear_requests()
    res = same("CALL sys.remove_orphan_files('default.o', TIMESTAMP '%s')" % FUTURE,
               "remove_orphan_files")
    reqs = [describe(r) for r in s3.requests()]
    if res[0].get("deleted_file_count") != orphans:
        raise Failure("remove_orphan_files: %s (want %d files)" % (res, orphans))
    pages = sum(1 for r in s3.requests() if "continuation-token" in r[2] and
                "bucket-0" in r[2])
    if not pages or reqs.count("POST ?delete") != 2 or \
            sum(1 for k in reqs if k.startswith("DELETE")) > 0:
        raise Failure("remove_orphan_files: %d continuation pages, %d DeleteObjects, %d "
                      "DELETEs" % (pages, reqs.count("POST ?delete"),
                                   sum(1 for k in reqs if k.startswith("DELETE"))))
    same("SELECT * FROM o ORDER BY id", "rows after remove_orphan_files")
    left = [k for k in s3.object_keys("tools-c/default.db/o/") if "orphan" in k]
    if left:
        raise Failure("%d orphans left on S3" % len(left))
    ok("remove_orphan_files removes %d orphans from a bucket directory listed in %d pages, in 2 "
       "DeleteObjects, as locally (%s)" % (orphans, pages + 1, res[0]))

    # Tags, rollback, branches.
    for w in both:
        w.sql("CREATE TABLE b (id BIGINT, v STRING, PRIMARY KEY (id) NOT ENFORCED) "
              "WITH ('bucket' = '2')")
        for i in range(4):
            w.sql("INSERT INTO b VALUES (%d, 'r%d'), (%d, 'r%d')" % (i, i, i + 10, i))
    steps = [
        ("CALL sys.create_tag('default.b', 'two', 2)", "create_tag"),
        ("SELECT tag_name, snapshot_id, record_count FROM b$tags", "$tags"),
        ("SELECT * FROM b /*+ OPTIONS('scan.tag-name' = 'two') */ ORDER BY id", "a tag's rows"),
        ("CALL sys.rollback_to(`table` => 'default.b', snapshot_id => 3)", "rollback_to"),
        ("SELECT * FROM b ORDER BY id", "rows after the rollback"),
        ("SELECT snapshot_id FROM b$snapshots", "snapshots after the rollback"),
        ("CALL sys.create_branch('default.b', 'dev', 'two')", "create_branch"),
        ("SELECT branch_name FROM b$branches", "$branches"),
        ("SELECT * FROM b$branch_dev ORDER BY id", "the branch's rows"),
        ("INSERT INTO b$branch_dev VALUES (50, 'dev')", "a write to the branch"),
        ("SELECT * FROM b$branch_dev ORDER BY id", "the branch's rows after a write"),
        ("SELECT snapshot_id, commit_kind FROM b$branch_dev$snapshots", "the branch's snapshots"),
        ("SELECT * FROM b ORDER BY id", "main's rows after the branch's write"),
        ("CALL sys.rollback_to('default.b', 'two')", "rollback_to a tag"),
        ("SELECT * FROM b ORDER BY id", "rows after rolling back to the tag"),
    ]
    for text, what in steps:
        same(text, what)
    dev = remote.query("SELECT * FROM b$branch_dev ORDER BY id")
    if {"id": 50, "v": "dev"} not in dev or len(dev) != 5:
        raise Failure("the branch on S3 reads %s" % dev)
    ok("create_tag, rollback_to (a snapshot, a tag), create_branch, a branch read and written: "
       "the same results as locally")

    # Rescale.
    for w in both:
        w.sql("CREATE TABLE r (id BIGINT, v STRING, PRIMARY KEY (id) NOT ENFORCED) "
              "WITH ('bucket' = '2'); INSERT INTO r VALUES " +
              ", ".join("(%d, 'x%d')" % (i, i) for i in range(50)))
    same("CALL sys.rescale(`table` => 'default.r', bucket_num => 5)", "rescale")
    same("SELECT * FROM r ORDER BY id", "rows after rescale")
    buckets = same("SELECT DISTINCT bucket FROM r$files ORDER BY bucket", "buckets after rescale")
    if [b["bucket"] for b in buckets] != list(range(5)):
        raise Failure("after rescale to 5 the files are in buckets %s" % buckets)
    same("INSERT INTO r VALUES (7, 'new'); SELECT * FROM r WHERE id = 7", "an upsert after it")
    ok("CALL sys.rescale to 5 buckets: the same rows and buckets as locally, upserts land")


def upload_orphans(s3, src, key_prefix):
    """PUTs the files of `src` under `key_prefix`, eight at a time, straight to s3rver (the
    proxy's log stays the binary's). s3rver checks the access key, not the signature."""
    names = sorted(os.listdir(src))

    def put(share):
        conn = http.client.HTTPConnection("127.0.0.1", s3.port, timeout=TIMEOUT_S)
        for name in share:
            with open(os.path.join(src, name), "rb") as f:
                body = f.read()
            now = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
            conn.request("PUT", "/tb/" + key_prefix + name, body=body, headers={
                "x-amz-date": now, "x-amz-content-sha256": hashlib.sha256(body).hexdigest(),
                "Authorization": "AWS4-HMAC-SHA256 Credential=S3RVER/%s/us-east-1/s3/"
                                 "aws4_request, SignedHeaders=host;x-amz-content-sha256;"
                                 "x-amz-date, Signature=%s" % (now[:8], "0" * 64)})
            r = conn.getresponse()
            r.read()
            if r.status != 200:
                return "PUT %s: %d" % (name, r.status)
        return None

    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        errors = [e for e in pool.map(put, [names[k::8] for k in range(8)]) if e]
    if errors:
        raise Failure("uploading the orphans: " + errors[0])
    n = len(s3.object_keys(key_prefix))
    if n < len(names):
        raise Failure("only %d of %d orphans are in the store" % (n, len(names)))


# --- D. A lost answer to a conditional PUT --------------------------------------------------

def part_d(binary, s3):
    w = Warehouse(binary, "s3://tb/tools-d", s3.env())
    w.sql("CREATE TABLE a (id BIGINT, v STRING)")
    w.sql("INSERT INTO a VALUES (1, 'one')")
    s3.lose_next_answer("/a/snapshot/snapshot-2")
    w.sql("INSERT INTO a VALUES (2, 'two')")
    if os.path.exists(s3.lose_answer_path):
        raise Failure("the lost-answer fault was never reached (no conditional PUT of snapshot-2)")
    rows = sorted(r["id"] for r in w.query("SELECT id FROM a"))
    snaps = [r["snapshot_id"] for r in w.query("SELECT snapshot_id FROM a$snapshots")]
    if rows != [1, 2] or snaps != [1, 2]:
        raise Failure("after a commit whose snapshot PUT was stored but answered 503: rows %r "
                      "(expected [1, 2]) and snapshots %r (expected [1, 2])" % (rows, snaps))


# --- E. A streaming job's lease on object storage ------------------------------------------

JOB_PRELUDE = ("SET 'execution.runtime-mode' = 'streaming';\n"
               "SET 'execution.checkpointing.interval' = '200 ms';\n"
               "SET 'pipeline.name' = 'copier';\n")


def put_object(s3, key, body):
    """PUTs `body` at `key` straight to s3rver, as another process's write."""
    conn = http.client.HTTPConnection("127.0.0.1", s3.port, timeout=TIMEOUT_S)
    now = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    conn.request("PUT", "/tb/" + key, body=body, headers={
        "x-amz-date": now, "x-amz-content-sha256": hashlib.sha256(body).hexdigest(),
        "Authorization": "AWS4-HMAC-SHA256 Credential=S3RVER/%s/us-east-1/s3/aws4_request, "
                         "SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature=%s" %
                         (now[:8], "0" * 64)})
    r = conn.getresponse()
    r.read()
    if r.status != 200:
        raise Failure("PUT %s straight to s3rver: %d" % (key, r.status))


def part_e(binary, s3):
    """A streaming job on S3 holds a lease (a conditional PUT, renewed while it runs): a second
    process is refused while it runs and while a killed holder's lease has not run out, a
    clean stop releases it at once, and a job whose lease another process took stops."""
    w = Warehouse(binary, "s3://tb/tools-e", s3.env())
    w.sql("CREATE TABLE src (id BIGINT PRIMARY KEY NOT ENFORCED, v BIGINT)")
    w.sql("CREATE TABLE snk (id BIGINT PRIMARY KEY NOT ENFORCED, v BIGINT)")
    w.sql("INSERT INTO src VALUES (1, 10), (2, 20)")
    lease_key = "tools-e/default.db/snk/.job-copier.lock"
    lease_file = os.path.join(s3.data, "tb", lease_key) + "._S3rver_object"

    def start(idle_ms=None):
        cmd = [binary, "sql", "--warehouse", w.path]
        if idle_ms:
            cmd += ["--idle-timeout-ms", str(idle_ms)]
        return subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, env=w.env)

    def run(p, text):
        return p.communicate(JOB_PRELUDE + text, timeout=TIMEOUT_S)

    def sink():
        return sorted((r["id"], r["v"]) for r in w.query("SELECT * FROM snk"))

    def wait_for(what, cond, seconds=30):
        deadline = time.time() + seconds
        while not cond():
            if time.time() > deadline:
                raise Failure("part E: %s did not happen within %d s" % (what, seconds))
            time.sleep(0.2)

    statement = "INSERT INTO snk SELECT id, v * 2 FROM src;\n"
    first = start()
    first.stdin.write(JOB_PRELUDE + statement)
    first.stdin.close()
    first.stdin = None
    wait_for("the job's first commit", lambda: sink() == [(1, 20), (2, 40)])
    with open(lease_file) as f:
        lease = json.loads(f.read())
    if lease.get("job") != "copier" or lease.get("expires-millis", 0) <= time.time() * 1000:
        raise Failure("part E: the lease object does not name a live lease: %r" % lease)
    ok("a running job holds a lease: %s" % lease["holder"])
    out, err = run(start(500), statement)
    if "is already running in another process" not in err or "runs out in" not in err:
        raise Failure("part E: a second process was not refused: %r" % (out + err)[-600:])
    ok("a second process is refused while the job runs")
    first.kill()
    first.wait()
    out, err = run(start(500), statement)
    if "is already running in another process" not in err:
        raise Failure("part E: the lease of a killed job was taken before it ran out: %r" %
                      (out + err)[-600:])
    with open(lease_file) as f:
        expires = json.loads(f.read())["expires-millis"] / 1000.0
    ok("a killed holder's lease is kept until it runs out (%.1f s left)" % (expires - time.time()))
    time.sleep(max(0.0, expires - time.time()) + 0.3)
    w.sql("INSERT INTO src VALUES (3, 30)")
    out, err = run(start(1500), statement)
    if "Job 'copier' stopped" not in out + err:
        raise Failure("part E: the job did not take over a lease that ran out: %r" %
                      (out + err)[-600:])
    if sink() != [(1, 20), (2, 40), (3, 60)]:
        raise Failure("part E: the resumed job's sink is %r" % sink())
    ok("a lease that ran out is taken over; the job resumes where it committed")
    # A clean stop released the lease: the next run starts at once. Then another process takes
    # the lease over (as one would after a stall longer than the lease): the job stops.
    last = start()
    last.stdin.write(JOB_PRELUDE + statement)
    last.stdin.close()
    last.stdin = None
    wait_for("the next run's lease", lambda: json.loads(open(lease_file).read())[
        "expires-millis"] > time.time() * 1000 and last.poll() is None)
    put_object(s3, lease_key, json.dumps({"job": "copier", "holder": "another",
                                          "expires-millis": int(time.time() * 1000) + 60000})
               .encode())
    try:
        out, err = last.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        last.kill()
        raise Failure("part E: a job whose lease another process took kept running")
    if last.returncode == 0 or "lost its lease" not in err:
        raise Failure("part E: a job whose lease was taken did not stop with the reason: "
                      "exit %d %r" % (last.returncode, (out + err)[-600:]))
    ok("a job whose lease another process took stops: %s" % err.strip().splitlines()[-1][:120])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", default="build/tributary")
    ap.add_argument("--parts", default="BCDE", help="A (awscli and DuckDB), B, C, D, E")
    args = ap.parse_args()
    binary = os.path.abspath(args.binary)
    parts = {"A": part_a, "B": part_b, "C": part_c, "D": part_d, "E": part_e}
    failed = False
    with S3Server() as s3:
        for name in args.parts:
            start = time.time()
            try:
                parts[name](binary, s3)
                print("  part %s: %.1f s" % (name, time.time() - start), flush=True)
            except (Failure, subprocess.TimeoutExpired) as e:
                failed = True
                print("FAIL s3_tools_test part %s: %s" % (name, e), flush=True)
                said = s3.proxy_said()
                if said:
                    print("  the conditional proxy said: %s" % said)
    print("s3_tools_test: %s" % ("FAILED" if failed else "all checks passed"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
