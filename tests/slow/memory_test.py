#!/usr/bin/env python3
"""Memory of query results (issue 14 item 5): a SELECT without ORDER BY, GROUP BY or DISTINCT
streams its rows, so its peak RSS does not grow with the table; ORDER BY holds at most
'sql.sort.memory-limit' and says so. Memory of a writer over 2,000 active buckets (issue 38). Slow tier (`make test-slow`): it ingests millions of rows.
Python 3 standard library only."""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

MIB = 1024 * 1024


def peak_rss(cmd):
    pid = os.fork()
    if pid == 0:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        os.execv(cmd[0], cmd)
    _, status, usage = os.wait4(pid, 0)
    return os.waitstatus_to_exitcode(status), usage.ru_maxrss * 1024


def make_table(binary, warehouse, rows):
    subprocess.run([binary, "sql", "--warehouse", warehouse, "-e",
                    "CREATE TABLE t (id BIGINT, v STRING, d DOUBLE, PRIMARY KEY (id) NOT ENFORCED) "
                    "WITH ('bucket' = '4')"], check=True, capture_output=True)
    events = os.path.join(warehouse, "events.json")
    with open(events, "w") as f:
        for i in range(rows):
            f.write('{"op":"c","after":{"id":%d,"v":"value-%d-of-the-stream","d":%d.5}}\n' %
                    (i, i, i))
    subprocess.run([binary, "ingest", "--warehouse", warehouse, "--table", "t", "--format",
                    "debezium-json", events], check=True, capture_output=True)
    os.remove(events)


def many_buckets(binary, tmp):
    """Ingest into 2,000 active buckets (500 partitions x 4) in one commit: the writer holds a
    buffer per bucket (issue 38, docs/memory.md). Measured at 130 MiB for 600k rows (2026-12-06);
    the bound is 200 MiB. Returns whether it held."""
    wh = os.path.join(tmp, "buckets")
    subprocess.run([binary, "sql", "--warehouse", wh, "-e",
                    "CREATE TABLE t (pt INT, id BIGINT, v STRING, d DOUBLE, PRIMARY KEY (pt, id) "
                    "NOT ENFORCED) PARTITIONED BY (pt) WITH ('bucket' = '4')"],
                   check=True, capture_output=True)
    events = os.path.join(tmp, "buckets.json")
    rows = 600_000
    with open(events, "w") as f:
        for i in range(rows):
            f.write('{"op":"c","after":{"pt":%d,"id":%d,"v":"value-%d-of-the-stream-with-some-'
                    'padding-to-make-it-longer","d":%d.5}}\n' % (i % 500, i, i, i))
    code, rss = peak_rss([binary, "ingest", "--warehouse", wh, "--table", "t", "--format",
                          "debezium-json", events])
    os.remove(events)
    ok = code == 0 and rss < 200 * MIB
    print("  %s  ingest of %d rows into 500 x 4 buckets in one commit: exit %d, peak RSS %d MiB "
          "(bound 200 MiB)" % ("ok" if ok else "FAIL", rows, code, rss // MIB))
    return ok


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", default="build/tributary")
    args = ap.parse_args()
    binary = os.path.abspath(args.binary)
    tmp = tempfile.mkdtemp(prefix="tributary-memory-")
    failed = False
    try:
        rss = {}
        for rows in (500_000, 4_000_000):
            wh = os.path.join(tmp, "wh%d" % rows)
            make_table(binary, wh, rows)
            code, rss[rows] = peak_rss([binary, "sql", "--warehouse", wh, "--format", "json",
                                        "-e", "SELECT * FROM t"])
            if code != 0:
                print("FAIL SELECT * FROM t of %d rows: exit status %d" % (rows, code))
                failed = True
        growth = rss[4_000_000] - rss[500_000]
        # 3.5M more rows are ~250 MiB of output; streamed, the process grows by little more
        # than the data files it maps (~40 MiB).
        ok = growth < 96 * MIB
        print("  %s  SELECT * peak RSS: %d MiB at 0.5M rows, %d MiB at 4M rows" %
              ("ok" if ok else "FAIL", rss[500_000] // MIB, rss[4_000_000] // MIB))
        failed |= not ok
        wh = os.path.join(tmp, "wh4000000")
        p = subprocess.run([binary, "sql", "--warehouse", wh, "--format", "json", "-e",
                            "SET 'sql.sort.memory-limit' = '64 mb'; SELECT * FROM t ORDER BY v"],
                           capture_output=True, text=True)
        ok = p.returncode == 1 and "sql.sort.memory-limit" in p.stderr and not p.stdout
        print("  %s  ORDER BY over the limit: %s" % ("ok" if ok else "FAIL",
                                                     p.stderr.strip().splitlines()[-1:]))
        failed |= not ok
        code, top_rss = peak_rss([binary, "sql", "--warehouse", wh, "--format", "json", "-e",
                                  "SELECT * FROM t ORDER BY v DESC LIMIT 10"])
        ok = code == 0 and top_rss - rss[500_000] < 160 * MIB
        print("  %s  ORDER BY ... LIMIT 10 of 4M rows: peak RSS %d MiB" %
              ("ok" if ok else "FAIL", top_rss // MIB))
        failed |= not ok
        failed |= not many_buckets(binary, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("memory_test: %s" % ("FAILED" if failed else "all checks passed"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
