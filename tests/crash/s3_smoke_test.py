#!/usr/bin/env python3
"""A warehouse on S3-compatible object storage (issue 34), the short run of `make test`: the
test S3 server is s3rver (npm), started here on a loopback port.

- s3rver ignores `If-None-Match` on PUT, as some real stores do: a commit there is refused with
  an error saying why (the probe of docs/format/object-storage.md); a probe the store answers
  with 503 is the store's error, not that refusal;
- behind a proxy that answers conditional PUTs as S3 does (s3rver/conditional_proxy.js), four
  processes racing to commit to one table: every statement lands exactly once, the snapshot ids
  are contiguous (the lock-free commit of docs/format/object-storage.md);
- with `'s3.single-writer' = 'true'` the same statements as on a local warehouse (CREATE,
  INSERT, UPDATE, DELETE, CALL sys.compact, time travel, $snapshots, a streaming read, DROP)
  give the same rows, and the objects in the bucket are the table's files.
Python 3 standard library only; node and npm (Debian) and s3rver (npm) are installed on demand.
"""
import argparse
import http.client
import http.server
import json
import os
import random
import subprocess
import sys
import threading

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "s3rver"))
from s3server import S3Server  # noqa: E402

TIMEOUT_S = 120


class Failure(Exception):
    pass


class ProbeFailing:
    """`with ProbeFailing(port) as endpoint:` a store in front of the one at `port` that answers
    503 SlowDown to the second conditional PUT of each probe object (the catalog's check that the
    store honours If-None-Match), as a throttled S3 may; everything else passes through."""

    def __init__(self, upstream_port):
        self.upstream_port = upstream_port
        self.probes = set()
        self.lock = threading.Lock()

    def __enter__(self):
        front = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def handle_one(self):
                n = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(n) if n else b""
                key = self.path.split("?")[0]
                if (self.command == "PUT" and self.headers.get("If-None-Match") == "*" and
                        ".tributary-probe-" in key):
                    with front.lock:
                        second = key in front.probes
                        front.probes.add(key)
                    if second:
                        err = (b"<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>SlowDown"
                               b"</Code><Message>Please reduce your request rate.</Message></Error>")
                        self.send_response(503)
                        self.send_header("Content-Length", str(len(err)))
                        self.end_headers()
                        self.wfile.write(err)
                        return
                up = http.client.HTTPConnection("127.0.0.1", front.upstream_port, timeout=60)
                up.putrequest(self.command, self.path, skip_host=True, skip_accept_encoding=True)
                for k, v in self.headers.items():  # the Host header too: requests are signed
                    up.putheader(k, v)
                up.endheaders(body)
                r = up.getresponse()
                data = r.read()
                self.send_response(r.status)
                for k, v in r.getheaders():
                    if k.lower() not in ("connection", "transfer-encoding", "content-length",
                                         "date", "server"):
                        self.send_header(k, v)
                # (A HEAD's Content-Length is the object's size.)
                self.send_header("Content-Length", r.getheader("Content-Length", "0")
                                 if self.command == "HEAD" else str(len(data)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(data)
                up.close()

            do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = handle_one

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return "http://127.0.0.1:%d" % self.server.server_address[1]

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()
        return False


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", default="build/tributary")
    args = ap.parse_args()
    binary = os.path.abspath(args.binary)
    with S3Server() as s3:
        failed = False
        try:
            run(binary, s3)
        except Failure as e:
            failed = True
            print("FAIL s3_smoke_test: %s" % e)
            said = s3.proxy_said()
            if said:
                print("  the conditional proxy said: %s" % said)
    print("s3_smoke_test: %s" % ("FAILED" if failed else "all checks passed"))
    return 1 if failed else 0


def run(binary, s3):
    env = s3.env(direct=True)
    tmp = s3.tmp

    def sql(wh, text, expect=0):
        p = subprocess.run([binary, "sql", "--warehouse", wh, "--format", "json", "-e", text],
                           capture_output=True, text=True, timeout=TIMEOUT_S, env=env)
        if p.returncode != expect:
            raise Failure("%r...: exit %d (expected %d): %s" % (text[:90], p.returncode, expect,
                                                                 p.stderr.strip()[-400:]))
        return p

    local = os.path.join(tmp, "local")
    # 1. A store that ignores If-None-Match: commits refused, saying why.
    p = sql("s3://tb/refused", "CREATE TABLE t (id INT)", expect=1)
    if "ignores conditional writes" not in p.stderr:
        raise Failure("the refusal does not say why: " + p.stderr)
    print("  ok  a store that ignores If-None-Match: commits refused, saying why")
    # 1a. A probe whose second write fails otherwise (503 past the retries) is the store's
    #     error, no verdict on the store: the next process commits there.
    with ProbeFailing(s3.proxy_port) as endpoint:
        p = subprocess.run([binary, "sql", "--warehouse", "s3://tb/probe", "-e",
                            "CREATE TABLE t (id INT)"], capture_output=True, text=True,
                           env=dict(s3.env(), AWS_ENDPOINT_URL=endpoint), timeout=TIMEOUT_S)
    if p.returncode != 1 or "ignores conditional writes" in p.stderr or \
            "SlowDown" not in p.stderr or "probe" not in p.stderr:
        raise Failure("a probe answered 503 (expected exit 1 with the store's error, SlowDown, "
                      "not a refusal): exit %d, stderr: %s" % (p.returncode, p.stderr.strip()[-400:]))
    p = subprocess.run([binary, "sql", "--warehouse", "s3://tb/probe", "--format", "json", "-e",
                        "CREATE TABLE t (id INT); INSERT INTO t VALUES (7); SELECT * FROM t"],
                       capture_output=True, text=True, env=s3.env(), timeout=TIMEOUT_S)
    if p.returncode != 0 or '"id":7' not in p.stdout.replace(" ", ""):
        raise Failure("after a failed probe: %s %s" % (p.stdout[-200:], p.stderr[-400:]))
    print("  ok  a probe answered 503: the store's error (SlowDown), not a refusal; then commits")
    # 1b. Through the proxy (S3's conditional PUT): writers race, each commit lands once.
    race_env = s3.env()
    made = subprocess.run([binary, "sql", "--warehouse", "s3://tb/race", "-e",
                           "CREATE TABLE r (id INT, w INT, PRIMARY KEY (id) NOT ENFORCED) "
                           "WITH ('bucket' = '1')"], capture_output=True, text=True,
                          env=race_env, timeout=TIMEOUT_S)
    if made.returncode != 0:
        raise Failure("CREATE TABLE through the conditional proxy: " + made.stderr.strip())
    writers, per = 4, 8
    procs = []
    for w in range(writers):
        stmts = ";".join("INSERT INTO r VALUES (%d, %d)" % (w * 100 + i, w) for i in range(per))
        procs.append(subprocess.Popen([binary, "sql", "--warehouse", "s3://tb/race", "-e",
                                       stmts], stdout=subprocess.DEVNULL,
                                      stderr=subprocess.PIPE, text=True, env=race_env))
    for pr in procs:
        _, err = pr.communicate(timeout=TIMEOUT_S)
        if pr.returncode != 0:
            raise Failure("a racing writer failed: " + err.strip()[-400:])
    q = subprocess.run([binary, "sql", "--warehouse", "s3://tb/race", "--format", "json", "-e",
                        "SELECT COUNT(*) AS c FROM r; SELECT snapshot_id, commit_kind FROM "
                        "r$snapshots"], capture_output=True, text=True, env=race_env,
                       timeout=TIMEOUT_S)
    rows = [json.loads(l) for l in q.stdout.splitlines() if l.strip()]
    if not rows or rows[0].get("c") != writers * per:
        raise Failure("after the race the table holds %s rows, not %d" % (rows[:1], writers * per))
    snaps = rows[1:]
    ids = [r["snapshot_id"] for r in snaps]
    appends = sum(1 for r in snaps if r["commit_kind"] == "APPEND")
    if ids != list(range(1, len(ids) + 1)) or appends != writers * per:
        raise Failure("snapshots after the race: ids %s, %d APPEND (want %d)" %
                      (ids, appends, writers * per))
    print("  ok  %d writers racing on S3 (conditional PUT): %d commits, each exactly once, "
          "snapshot ids contiguous" % (writers, writers * per))
    # 2. The same statements on S3 (one writer promised) and on a local disk.
    catalog = ("CREATE CATALOG s WITH ('type' = 'paimon', 'warehouse' = 's3://tb/wh', "
               "'s3.single-writer' = 'true'); USE CATALOG s; ")
    script = [
        "CREATE TABLE t (id INT, v STRING, n BIGINT, PRIMARY KEY (id) NOT ENFORCED) WITH "
        "('bucket' = '2', 'changelog-producer' = 'input')",
        "INSERT INTO t VALUES (1, 'a', 10), (2, 'b', 20), (3, 'c', 30)",
        "INSERT INTO t VALUES (2, 'bb', 21), (4, 'd', 40)",
        "UPDATE t SET n = n + 100 WHERE id = 1",
        "DELETE FROM t WHERE id = 3",
        "CALL sys.compact('default.t')",
        "INSERT INTO t VALUES (5, 'e', 50)",
    ]
    queries = [
        "SELECT * FROM t ORDER BY id",
        "SELECT id, v FROM t /*+ OPTIONS('scan.snapshot-id' = '2') */ ORDER BY id",
        "SELECT snapshot_id, commit_kind FROM t$snapshots ORDER BY snapshot_id",
        "SELECT SUM(n) AS s, COUNT(*) AS c FROM t",
    ]
    for stmt in script:
        sql(local, stmt)
        sql(local, catalog + stmt)
    for q in queries:
        want = sql(local, q).stdout
        got = sql(local, catalog + q).stdout
        if got != want:
            raise Failure("%s: on S3 %r, locally %r" % (q, got, want))
    stream = "SET 'execution.runtime-mode' = 'streaming'; SELECT * FROM t LIMIT 4"
    if sql(local, catalog + stream).stdout != sql(local, stream).stdout:
        raise Failure("a streaming read differs between S3 and a local disk")
    data = os.path.join(s3.data, "tb", "wh", "default.db", "t")
    parquet = [f for _, _, files in os.walk(data) for f in files
               if f.endswith(".parquet._S3rver_object")]
    if not parquet:
        raise Failure("no data file in the bucket")
    p = sql(local, catalog + "ALTER TABLE t RENAME TO t2", expect=1)
    if "not supported yet" not in p.stderr or "object storage" not in p.stderr:
        raise Failure("RENAME on S3 is not refused as not supported: " + p.stderr)
    sql(local, catalog + "DROP TABLE t")
    if sql(local, catalog + "SHOW TABLES").stdout.strip():
        raise Failure("the dropped table is still listed")
    left = [f for _, _, files in os.walk(data) for f in files] if os.path.isdir(data) else []
    if left:
        raise Failure("DROP TABLE left %d objects" % len(left))
    print("  ok  statements, time travel, $snapshots and a streaming read on S3 give the "
          "local rows; DROP TABLE leaves no object")
    # 3. A data file over 's3.multipart.threshold' goes up in parts (S3's multipart upload) and
    #    reads back whole; read by range, a one-column query fetches a part of it.
    rng = random.Random(3)
    values = ",".join("(%d, '%064x')" % (i, rng.getrandbits(256)) for i in range(120000))
    script = os.path.join(tmp, "multipart.sql")
    with open(script, "w") as f:
        f.write("CREATE TABLE big (id INT, v STRING) WITH ('bucket' = '-1', "
                "'file.compression' = 'none');\nINSERT INTO big VALUES " + values + ";\n")
    mp_catalog = ("CREATE CATALOG m WITH ('type' = 'paimon', 'warehouse' = 's3://tb/mp', "
                  "'s3.multipart.threshold' = '6 mb', 's3.multipart.size' = '5 mb'); "
                  "USE CATALOG m; ")
    s3.clear_requests()
    p = subprocess.run([binary, "sql", "--warehouse", local, "-e", mp_catalog, "-f", script],
                       capture_output=True, text=True, timeout=TIMEOUT_S, env=s3.env())
    if p.returncode != 0:
        raise Failure("the multipart INSERT failed: " + p.stderr.strip()[-400:])
    sent = [(m, q.split("&")[0].split("=")[0]) for m, _, q, _ in s3.requests()
            if "upload" in q]
    if sent[:1] != [("POST", "uploads")] or sent.count(("PUT", "partNumber")) != 2 or \
            sent[-1:] != [("POST", "uploadId")]:
        raise Failure("the 8 MB data file did not go up in 2 parts: %s" % sent)
    s3.clear_requests()
    q = "SELECT COUNT(*) AS c, SUM(id) AS s, MAX(v) AS m FROM big"
    got = subprocess.run([binary, "sql", "--warehouse", local, "--format", "json", "-e",
                          mp_catalog + q], capture_output=True, text=True, timeout=TIMEOUT_S,
                         env=s3.env())
    rng = random.Random(3)
    want = {"c": 120000, "s": sum(range(120000)),
            "m": max("%064x" % rng.getrandbits(256) for _ in range(120000))}
    rows = [json.loads(l) for l in got.stdout.splitlines() if l.strip()]
    if rows != [want]:
        raise Failure("the multipart file reads back as %s, not %s" % (rows, want))
    ranged = [r for r in s3.requests() if r[1].endswith(".parquet")]
    if not ranged or any(status != 206 for _, _, _, status in ranged):
        raise Failure("the data file was not read by range: %s" % ranged)
    print("  ok  an 8 MB data file goes up in 2 parts and reads back whole, by range")
    # 4. The secret key never shows: not in listings, options, plans, nor in errors (a typo of
    #    its key, a store that cannot be reached).
    #    (s3rver checks the access key, not the signature: any secret does.)
    secret_env = s3.env()
    secret_env.pop("AWS_SECRET_ACCESS_KEY")
    secret_env.pop("AWS_ACCESS_KEY_ID")
    secret = "tributary-secret-4711"
    keyed = ("CREATE CATALOG k WITH ('type' = 'paimon', 'warehouse' = 's3://tb/keyed', "
             "'s3.access-key' = 'S3RVER', 's3.secret-key' = '%s'); USE CATALOG k; " % secret)
    shown = []
    for stmt in ("CREATE TABLE k1 (id INT) WITH ('bucket' = '1')", "SHOW CATALOGS",
                 "SELECT * FROM k1$options", "SHOW CREATE TABLE k1", "EXPLAIN SELECT * FROM k1",
                 "SELECT * FROM nope"):
        p = subprocess.run([binary, "sql", "--warehouse", local, "-e", keyed + stmt],
                           capture_output=True, text=True, timeout=TIMEOUT_S, env=secret_env)
        shown.append(p.stdout + p.stderr)
    for text in (keyed.replace("'s3.secret-key'", "'s3.secret-kye'"),
                 keyed.replace("'s3.access-key'", "'s3.endpoint' = 'http://127.0.0.1:9', "
                               "'s3.access-key'")):
        p = subprocess.run([binary, "sql", "--warehouse", local, "-e", text + "SHOW TABLES"],
                           capture_output=True, text=True, timeout=TIMEOUT_S, env=secret_env)
        if p.returncode == 0:
            raise Failure("a catalog with a bad option or endpoint opened: " + text)
        shown.append(p.stdout + p.stderr)
    leaks = [t for t in shown if secret in t]
    if leaks:
        raise Failure("the secret key shows in: %r" % leaks[0][-300:])
    print("  ok  the secret key shows nowhere (listings, options, plans, errors)")
    # 5. Two warehouses on two stores (two endpoints, two buckets) in one process: a table copied
    #    from one to the other.
    two = ("CREATE CATALOG a WITH ('type' = 'paimon', 'warehouse' = 's3://tb/two-a', "
           "'s3.endpoint' = '%s'); "
           "CREATE CATALOG b WITH ('type' = 'paimon', 'warehouse' = 's3a://tb2/two-b', "
           "'s3.endpoint' = '%s', 's3.single-writer' = 'true'); "
           "CREATE TABLE a.`default`.src (id INT, v STRING); "
           "INSERT INTO a.`default`.src VALUES (1, 'x'), (2, 'y'); "
           "CREATE TABLE b.`default`.dst (id INT, v STRING); "
           "INSERT INTO b.`default`.dst SELECT * FROM a.`default`.src; "
           "SELECT * FROM b.`default`.dst ORDER BY id" % (s3.endpoint(), s3.endpoint(direct=True)))
    p = sql(local, two)
    rows = [json.loads(l) for l in p.stdout.splitlines() if l.strip().startswith("{")]
    if rows != [{"id": 1, "v": "x"}, {"id": 2, "v": "y"}]:
        raise Failure("a copy between two stores gave %s" % rows)
    if not s3.object_keys("two-a/") or \
            not any(k.startswith("two-b/") for k in s3.object_keys_in("tb2")):
        raise Failure("the two warehouses are not in their two buckets")
    print("  ok  two warehouses on two stores in one process (a table copied between them)")
    # 6. Files a process just wrote are read back from its memory: eight commits and a
    #    compaction in one session fetch no data file.
    script = os.path.join(tmp, "fresh.sql")
    with open(script, "w") as f:
        f.write("CREATE TABLE f (id INT, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH "
                "('bucket' = '1');\n" +
                "".join("INSERT INTO f VALUES (%d, 'a'), (%d, 'b');\n" % (i, i + 100)
                        for i in range(8)) +
                "CALL sys.compact('default.f');\nSELECT COUNT(*) AS c FROM f;\n")
    s3.clear_requests()
    p = subprocess.run([binary, "sql", "--warehouse", "s3://tb/fresh", "--format", "json", "-f",
                        script], capture_output=True, text=True, timeout=TIMEOUT_S,
                       env=s3.env())
    if p.returncode != 0 or '{"c":16}' not in p.stdout.replace(" ", ""):
        raise Failure("eight commits and a compaction: %s %s" % (p.stdout[-200:], p.stderr[-300:]))
    fetched = [r for r in s3.requests() if r[0] == "GET" and r[1].endswith(".parquet")]
    if fetched:
        raise Failure("the compaction fetched %d data files the same process had just written"
                      % len(fetched))
    print("  ok  a compaction reads the files its process just wrote from memory (no GET)")


if __name__ == "__main__":
    sys.exit(main())
