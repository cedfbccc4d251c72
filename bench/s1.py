#!/usr/bin/env python3
"""S1 of `make bench` (issue 34): a warehouse on object storage against the same on local disk.

    python3 bench/s1.py BUILD/bench/tributary_bench BUILD/tributary DATA_DIR

Starts the test S3 server (s3rver behind the proxy that answers `If-None-Match: *` as S3 does
and logs every request: tests/crash/s3rver/s3server.py), then, in this order and with the same
parameters (the W1_ROWS, BENCH_BATCH, W5_REPEAT run.sh exports):
  1. `tributary_bench W1 DATA_DIR/s1-local fixed`, then the same on `s3://tb/s1`;
  2. `tributary_bench W5` on each (scans before and after a full compaction);
  3. on the server: a one-row table, then a streaming `tributary sql` SELECT of it with
     `--idle-timeout-ms` S1_IDLE_SHORT_MS and S1_IDLE_LONG_MS; the requests of the longer run
     less those of the shorter are the idle looks' (catalog open and the first read cancel out).
Also counted: W5's requests on the server, and those of one repeated query (each W5 query run
alone 1 and 5 times per phase on the compacted table: the difference over the 8 extra runs).
Prints JSON lines (bench_common.h's format, "w": "S1") that report.py turns into the S1 table:
ratios S3 ÷ local as speeds, requests per commit (W1's requests ÷ its commits), requests per
streaming look; and checks that W5's results on S3 equal the local ones.

S1_BATCH: rows per commit of both W1 runs (default BENCH_BATCH, made smaller when W1 would
have fewer than 10 commits, so that requests per commit are not one commit's).
"""
import json
import os
import subprocess
import sys
import time
from collections import Counter

import report  # bench/report.py: the JSON-lines format

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "crash", "s3rver"))
from s3server import S3Server  # noqa: E402

TIMEOUT_S = int(os.environ.get("BENCH_STEP_TIMEOUT", "1800"))
LOOK_MS = 50  # the streaming reader's default look interval ('continuous.discovery-interval')


def emit(case, **fields):
    print(json.dumps(dict({"sys": "tributary", "w": "S1", "case": case}, **fields)), flush=True)


class Failed(Exception):
    pass


def run_bench(prog, args, env):
    p = subprocess.run([prog] + args, capture_output=True, text=True, timeout=TIMEOUT_S, env=env)
    sys.stderr.write(p.stderr)
    recs = report.parse(p.stdout.splitlines())
    errors = [r["error"] for r in recs if "error" in r]
    if p.returncode != 0 or errors:
        raise Failed("tributary_bench %s: %s" % (" ".join(args),
                     "; ".join(errors) or "exit status %d" % p.returncode))
    return recs


def by_method(reqs):
    """Requests counted by kind: GET (range reads included), PUT, HEAD, LIST, DELETE, POST."""
    c = Counter()
    for method, _, query, _ in reqs:
        if method == "GET" and ("list-type" in query or "prefix=" in query or
                                "delimiter" in query):
            c["LIST"] += 1
        else:
            c[method] += 1
    return dict(sorted(c.items()))


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    bench, cli, data = sys.argv[1:]
    w1_rows = int(os.environ.get("W1_ROWS", "1000000"))
    batch = int(os.environ.get("BENCH_BATCH", "100000"))
    batch = int(os.environ.get("S1_BATCH", "0")) or min(batch, max(1, w1_rows // 10))
    idle_short = int(os.environ.get("S1_IDLE_SHORT_MS", "1000"))
    idle_long = int(os.environ.get("S1_IDLE_LONG_MS", "5000"))
    local = os.path.join(data, "s1-local")
    os.makedirs(local, exist_ok=True)
    remote = "s3://tb/s1"
    load_start = open("/proc/loadavg").read().split()[:3]
    with S3Server() as s3:
        base = dict(os.environ, BENCH_BATCH=str(batch))
        s3env = s3.env(base=base)
        params = {"w1_rows": w1_rows, "batch": batch,
                  "w5_repeat": int(os.environ.get("W5_REPEAT", "9"))}

        # 1. W1: the same upserts, the same commits, local then S3.
        l1 = run_bench(bench, ["W1", local, "fixed"], base)[0]
        s3.clear_requests()
        r1 = run_bench(bench, ["W1", remote, "fixed"], s3env)[0]
        reqs = s3.requests()
        commits = r1.get("commits") or 1
        emit("W1 4 buckets", rows=r1["rows"], commits=r1["commits"],
             local_commits=l1["commits"], local_rate=l1["rate"], s3_rate=r1["rate"],
             ratio=r1["rate"] / l1["rate"], requests=len(reqs),
             requests_per_commit=len(reqs) / commits, methods=by_method(reqs),
             live_bytes=r1.get("live_bytes"), local_live_bytes=l1.get("live_bytes"), **params)

        # 2. W5 on the table W1 wrote, each in its own process (cold caches at the start).
        l5 = {r["case"]: r for r in run_bench(bench, ["W5", local], base)}
        s3.clear_requests()
        r5 = {r["case"]: r for r in run_bench(bench, ["W5", remote], s3env)}
        w5_requests = len(s3.requests())
        for case, lr in l5.items():
            rr = r5.get(case)
            if rr is None or "secs" not in lr or "secs" not in rr:
                continue
            rec = {"local_secs": lr["secs"], "s3_secs": rr["secs"],
                   "ratio": lr["secs"] / rr["secs"] if rr["secs"] > 0 else None}
            if "first_secs" in lr and "first_secs" in rr:
                rec.update(local_first_secs=lr["first_secs"], s3_first_secs=rr["first_secs"],
                           first_ratio=lr["first_secs"] / rr["first_secs"]
                           if rr["first_secs"] > 0 else None)
            if "result" in lr:
                rec.update(local_result=lr["result"], s3_result=rr.get("result"),
                           same=lr["result"] == rr.get("result"))
            if case == "compact":
                rec.update(local_bytes_after=lr.get("bytes_after"),
                           s3_bytes_after=rr.get("bytes_after"))
            emit("W5 " + case, **rec)
        # Requests of one repeated (warm) query: W5's query alone with 1 and 1 + k runs per
        # phase on the compacted table; the difference over the 2 k extra runs.
        k = 4
        per_query = {}
        for q in ("count", "sum", "filter"):
            counts = []
            for rep in (1, 1 + k):
                s3.clear_requests()
                run_bench(bench, ["W5", remote], dict(s3env, W5_REPEAT=str(rep), W5_QUERIES=q))
                counts.append(len(s3.requests()))
            per_query[q] = (counts[1] - counts[0]) / (2 * k)
        emit("W5 requests", requests=w5_requests, queries=3 * 2 * params["w5_repeat"],
             requests_per_repeated_query=per_query)

        # 3. Streaming looks with nothing new, on a one-row table.
        def sql(script, idle=None):
            cmd = [cli, "sql", "--warehouse", remote, "--format", "csv"]
            if idle is not None:
                cmd += ["--idle-timeout-ms", str(idle)]
            p = subprocess.run(cmd + ["-e", script], capture_output=True, text=True,
                               timeout=TIMEOUT_S, env=s3env)
            if p.returncode != 0:
                raise Failed("tributary sql %r: %s" % (script, p.stderr.strip()[-400:]))
            return p.stdout

        sql("CREATE TABLE s1_poll (id BIGINT, v BIGINT, PRIMARY KEY (id) NOT ENFORCED) "
            "WITH ('bucket' = '1'); INSERT INTO s1_poll VALUES (1, 10)")
        runs = {}
        for idle in (idle_short, idle_long):
            s3.clear_requests()
            t = time.monotonic()
            out = sql("SET 'execution.runtime-mode' = 'streaming'; SELECT * FROM s1_poll", idle)
            secs = time.monotonic() - t
            if "10" not in out:
                raise Failed("the streaming SELECT did not return the row: %r" % out)
            reqs = s3.requests()
            looks = sum(1 for m, path, _, _ in reqs
                        if m == "HEAD" and "/snapshot/snapshot-" in path)
            runs[idle] = (len(reqs), looks, secs, by_method(reqs))
        n_s, looks_s, secs_s, _ = runs[idle_short]
        n_l, looks_l, secs_l, methods_l = runs[idle_long]
        nominal = (idle_long - idle_short) / LOOK_MS
        observed = looks_l - looks_s
        looks = observed if observed > 0 else nominal
        emit("poll", idle_ms=[idle_short, idle_long], requests=[n_s, n_l],
             secs=[round(secs_s, 3), round(secs_l, 3)], snapshot_heads=[looks_s, looks_l],
             nominal_looks=nominal, looks=looks,
             requests_per_look=(n_l - n_s) / looks if looks else None,
             methods_long=methods_l)
    load_end = open("/proc/loadavg").read().split()[:3]
    emit("load", start=" ".join(load_start), end=" ".join(load_end))


if __name__ == "__main__":
    try:
        main()
    except (Failed, subprocess.TimeoutExpired, RuntimeError, OSError, KeyError) as e:
        emit("", error="S1: %s" % e)
