#!/usr/bin/env python3
"""Memory of query results (issue 14 item 5): a SELECT without ORDER BY, GROUP BY or DISTINCT
streams its rows, so its peak RSS does not grow with the table. Issue 38 (docs/memory.md): a
writer over 2,000 active buckets; a full compaction with every merge engine; an INSERT ... SELECT
of 10M rows, a scan of them, ORDER BY of
them, GROUP BY with 1M groups, SELECT DISTINCT, UNION, INTERSECT, EXCEPT, a window function and
a hash join over them and point lookups into them,
each within its documented bound (ORDER BY and GROUP BY spill
past their 128 MiB limits). Slow tier (`make test-slow`): it writes tens of millions of rows.
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


def run_checked(cmd, check_line, what, bound_mib, env=None):
    """Runs `cmd`, feeding each line of its stdout to `check_line` (False: a wrong line), and
    reports its peak RSS against `bound_mib`. Returns whether it held."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env)
    bad = 0
    lines = 0
    for line in proc.stdout:
        lines += 1
        if not check_line(line.rstrip("\n")):
            bad += 1
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    code = os.waitstatus_to_exitcode(status)
    rss = usage.ru_maxrss * 1024
    ok = code == 0 and bad == 0 and rss < bound_mib * MIB
    print("  %s  %s: exit %d, %d lines (%d wrong), peak RSS %d MiB (bound %d MiB)%s" %
          ("ok" if ok else "FAIL", what, code, lines, bad, rss // MIB, bound_mib,
           "" if code == 0 else ": " + err.strip()[-300:]))
    return ok


def merges(binary, tmp):
    """A full compaction (CALL sys.compact) of 1M keys written twice (two sorted runs a bucket,
    2 buckets), for every merge engine, its answer checked. Measured 2026-12-06: deduplicate
    107-112 MiB, first-row 117-122 MiB, partial-update 81 MiB and aggregation 81 MiB (205 and
    192-221 MiB before their large merges read a slice of each input at a time: docs/memory.md)."""
    wh = os.path.join(tmp, "merges")
    ids = "a.x + 10 * b.x + 100 * c.x + 1000 * e.x + 10000 * f.x + 100000 * g.x"
    rows = "WITH d(x) AS (VALUES 0, 1, 2, 3, 4, 5, 6, 7, 8, 9) SELECT %s AS id, %%s AS v, %%s " \
           "AS s FROM d a, d b, d c, d e, d f, d g" % ids
    n = 1_000_000
    cases = [  # engine, options, bound MiB, (COUNT(*), SUM(v), COUNT(s)) after the merge
        ("deduplicate", "", 192, (n, n * (n - 1), 0)),
        ("first-row", "", 192, (n, n * (n - 1) // 2, n)),
        ("partial-update", "", 192, (n, n * (n - 1), n)),
        ("aggregation", ", 'fields.v.aggregate-function' = 'sum', "
         "'fields.s.aggregate-function' = 'last_non_null_value'", 192, (n, 3 * n * (n - 1) // 2, n)),
    ]
    ok = True
    for engine, options, bound, want in cases:
        table = "m_" + engine.replace("-", "_")
        sql = ("CREATE TABLE %s (id BIGINT, v BIGINT, s STRING, PRIMARY KEY (id) NOT ENFORCED) "
               "WITH ('bucket' = '2', 'merge-engine' = '%s', "
               "'num-sorted-run.compaction-trigger' = '100'%s); "
               "INSERT INTO %s %s; INSERT INTO %s %s" %
               (table, engine, options, table,
                rows % (ids, "CONCAT('s-', CAST(%s AS STRING), '-of-the-stream')" % ids),
                table, rows % ("2 * (%s)" % ids, "CAST(NULL AS STRING)")))
        subprocess.run([binary, "sql", "--warehouse", wh, "-e", sql], check=True,
                       capture_output=True)
        # A streamed scan of the two runs a bucket, before the compaction: each bucket merged
        # and handed out a chunk of keys at a time (SplitRead::OpenMergedSlices). Measured
        # 2026-12-07: deduplicate 62, first-row 71, partial-update 71, aggregation 73 MiB (130,
        # 90, 94 and 99 MiB when each bucket's merged output was built whole first).
        state = {"rows": 0}

        def scanned(line, state=state):
            if line == "id,v,s":
                return True
            i, v = (int(x) for x in line.split(",")[:2])
            state["rows"] += 1
            return 0 <= i < n and v >= 0
        ok &= run_checked([binary, "sql", "--warehouse", wh, "--format", "csv", "-e",
                           "SELECT id, v, s FROM %s WHERE v >= 0" % table], scanned,
                          "streamed scan of 2 x 1M rows before their compaction, %s" % engine,
                          88)
        ok &= state["rows"] == n
        # An aggregate over them (scans without a bound on their batches): a bucket of more
        # than 512Ki records merged a chunk of keys at a time too, not read whole on every core.
        # Measured 2026-12-07: deduplicate 60, first-row 56, partial-update 55, aggregation 69 MiB
        # (126, 97, 100 and 123 MiB read whole, two buckets at once, in two thirds of the time).
        want_sum = "%d,%d" % (want[0], want[1])
        ok &= run_checked([binary, "sql", "--warehouse", wh, "--format", "csv", "-e",
                           "SELECT COUNT(*), SUM(v) FROM %s WHERE v >= 0" % table],
                          lambda line: line in ("EXPR$0,EXPR$1", want_sum),
                          "COUNT and SUM of 2 x 1M rows before their compaction, %s" % engine, 88)
        code, rss = peak_rss([binary, "sql", "--warehouse", wh, "-e",
                              "CALL sys.compact('default.%s')" % table])
        got = subprocess.run([binary, "sql", "--warehouse", wh, "--format", "csv", "-e",
                              "SELECT COUNT(*), SUM(v), COUNT(s) FROM %s" % table],
                             capture_output=True, text=True).stdout.split()
        answer = tuple(int(x) for x in got[-1].split(",")) if got else None
        good = code == 0 and rss < bound * MIB and answer == want
        print("  %s  full compaction of 2 x 1M rows, %s: exit %d, peak RSS %d MiB (bound %d MiB), "
              "answer %s%s" % ("ok" if good else "FAIL", engine, code, rss // MIB, bound, answer,
                               "" if answer == want else " (want %s)" % (want,)))
        ok &= good
    shutil.rmtree(wh, ignore_errors=True)
    return ok


def many_runs(binary, tmp):
    """A read of one bucket holding 40 sorted runs of the same 100,000 keys (a 'write-only'
    table: nothing compacted), its answer checked: past 'sort-spill-threshold' (unset: 9 runs,
    for merges of more than 524,288 rows) the smallest runs are merged through a spill file first
    (docs/memory.md). Measured 2026-12-06: 84-86 MiB and about 2 s; 137 MiB and 0.2 s merged in
    memory by key columns (the hint raising the threshold, also run here). The bound is 112 MiB."""
    wh = os.path.join(tmp, "runs")
    ids = "a.x + 10 * b.x + 100 * c.x + 1000 * e.x + 10000 * f.x"
    rows = ("WITH d(x) AS (VALUES 0, 1, 2, 3, 4, 5, 6, 7, 8, 9) SELECT %s AS id, (%s) * %%d AS v, "
            "CONCAT('s-', CAST(%s AS STRING), '-of-the-stream') AS s FROM d a, d b, d c, d e, "
            "d f" % (ids, ids, ids))
    sql = ("CREATE TABLE t (id BIGINT, v BIGINT, s STRING, PRIMARY KEY (id) NOT ENFORCED) "
           "WITH ('bucket' = '1', 'write-only' = 'true'); " +
           " ".join("INSERT INTO t %s;" % (rows % k) for k in range(1, 41)))
    subprocess.run([binary, "sql", "--warehouse", wh, "-e", sql], check=True, capture_output=True)
    n = 100_000
    want = "%d,%d" % (n, 40 * n * (n - 1) // 2)
    ok = True
    for hint, bound, what in [("", 112, "spilled"),
                              ("/*+ OPTIONS('sort-spill-threshold' = '1000') */", 192,
                               "in memory")]:
        answers = []

        def line_ok(line):
            if line == want:
                answers.append(line)
            return line in ("EXPR$0,EXPR$1", want)
        good = run_checked([binary, "sql", "--warehouse", wh, "--format", "csv", "-e",
                            "SELECT COUNT(*), SUM(v) FROM t %s" % hint], line_ok,
                           "a read of 40 runs of 100k keys (one bucket), %s" % what, bound)
        if len(answers) != 1:
            print("  FAIL  the read %s answered %d times %s" % (what, len(answers), want))
            good = False
        ok &= good
    shutil.rmtree(wh, ignore_errors=True)
    return ok


def ten_million(binary, tmp):
    """10M rows (k a permutation of the ids, v a string of each): written by one INSERT ...
    SELECT, which streams the query into the writer; scanned; sorted by k (ORDER BY spills past
    'sql.sort.memory-limit', 128 MiB); grouped into 1M groups (GROUP BY spills past
    'sql.aggregate.memory-limit', 128 MiB). Measured 2026-12-06 on a 2-core machine: INSERT 481
    MiB (its write buffer and the file being flushed: docs/memory.md), scan 55 MiB, ORDER BY
    211 MiB, GROUP BY 188 MiB. Before these changes: INSERT 4.3 GiB, scan 542 MiB, GROUP BY
    752 MiB."""
    wh = os.path.join(tmp, "ten")
    n = 10_000_000
    ids = "a.x + 10 * b.x + 100 * c.x + 1000 * e.x + 10000 * f.x + 100000 * g.x + 1000000 * h.x"
    sql = ("CREATE TABLE s (id BIGINT, k BIGINT, v STRING); "
           "INSERT INTO s WITH d(x) AS (VALUES 0, 1, 2, 3, 4, 5, 6, 7, 8, 9) SELECT %s AS id, "
           "MOD((%s) * CAST(7919 AS BIGINT), %d) AS k, CONCAT('value-', CAST(%s AS STRING), "
           "'-of-the-stream') AS v FROM d a, d b, d c, d e, d f, d g, d h" % (ids, ids, n, ids))
    code, rss = peak_rss([binary, "sql", "--warehouse", wh, "-e", sql])
    ok = code == 0 and rss < 1024 * MIB
    print("  %s  INSERT ... SELECT of 10M rows: exit %d, peak RSS %d MiB (bound 1024 MiB)" %
          ("ok" if ok else "FAIL", code, rss // MIB))
    if code != 0:
        return False
    base = [binary, "sql", "--warehouse", wh, "--format", "csv", "-e"]
    ok &= run_checked(base + ["SELECT COUNT(*) FROM s WHERE v <> 'x'"],
                      lambda l: l in ("EXPR$0", str(n)), "scan of 10M rows", 96)
    state = {"next": 0}

    def sorted_line(line):
        if line == "k,id":
            return True
        k, i = (int(x) for x in line.split(","))
        good = k == state["next"] and i * 7919 % n == k
        state["next"] += 1
        return good
    ok &= run_checked(base + ["SELECT k, id FROM s ORDER BY k"], sorted_line,
                      "ORDER BY of 10M rows (spilled)", 320)
    ok &= state["next"] == n
    # A smaller process budget: the limits left unset take a quarter of it (32 MiB here).
    state["next"] = 0
    small = dict(os.environ, TRIBUTARY_MEMORY_MB="128")
    ok &= run_checked(base + ["SELECT k, id FROM s ORDER BY k"], sorted_line,
                      "ORDER BY of 10M rows, TRIBUTARY_MEMORY_MB=128 (measured 129 MiB)", 192,
                      env=small)
    ok &= state["next"] == n
    groups = set()

    def group_line(line):
        if line == "g,c":
            return True
        g, c = (int(x) for x in line.split(","))
        groups.add(g)
        return c == 10
    ok &= run_checked(base + ["SELECT MOD(k, 1000000) AS g, COUNT(*) AS c FROM s "
                              "GROUP BY MOD(k, 1000000)"], group_line,
                      "GROUP BY with 1M groups (spilled)", 288)
    ok &= len(groups) == 1_000_000
    # SELECT DISTINCT and UNION spill the rows they have not seen past 'sql.aggregate.memory-limit'
    # (measured 2026-12-06: 246 and 254 MiB; the DISTINCT held in memory: 1.2 GiB).
    ok &= run_checked(base + ["SELECT COUNT(*) FROM (SELECT DISTINCT v FROM s)"],
                      lambda l: l in ("EXPR$0", str(n)), "SELECT DISTINCT of 10M strings (spilled)",
                      352)
    ok &= run_checked(base + ["SELECT COUNT(*) FROM (SELECT k FROM s UNION SELECT id FROM s)"],
                      lambda l: l in ("EXPR$0", str(n)), "UNION of 2 x 10M rows (spilled)", 352)
    # INTERSECT and EXCEPT spill past the same limit: the right rows of the values not counted
    # and the left rows of those values in pairs of partitions, and the distinct rows returned
    # past the limit (measured 2026-12-06: INTERSECT 234 MiB, EXCEPT 171 MiB).
    ok &= run_checked(base + ["SELECT COUNT(*) FROM (SELECT k FROM s INTERSECT SELECT id + 1 "
                              "FROM s)"],
                      lambda l: l in ("EXPR$0", str(n - 1)), "INTERSECT of 2 x 10M rows (spilled)",
                      352)
    ok &= run_checked(base + ["SELECT COUNT(*) FROM (SELECT v FROM s EXCEPT SELECT v FROM s "
                              "WHERE id < 5)"],
                      lambda l: l in ("EXPR$0", str(n - 5)),
                      "EXCEPT of 10M strings minus 5 (spilled)", 352)
    # A window function past 'sql.sort.memory-limit': the rows sorted by the partition key (the
    # sort spilling) and computed a group of whole partitions at a time (measured 2026-12-06:
    # 228 MiB).
    ok &= run_checked(base + ["SELECT COUNT(*), SUM(rn) FROM (SELECT ROW_NUMBER() OVER "
                              "(PARTITION BY MOD(k, 1000000) ORDER BY id) AS rn FROM s)"],
                      lambda l: l in ("EXPR$0,EXPR$1", "%d,%d" % (n, 55 * (n // 10))),
                      "ROW_NUMBER over 1M partitions of 10M rows (spilled)", 352)
    # A hash join of 10M x 10M rows at a 128 MiB build limit (its default is 1 GiB): both sides
    # partitioned by key to disk, each pair joined on its own (measured 2026-12-06:
    # 137 MiB).
    ok &= run_checked(base + ["SET 'sql.join.memory-limit' = '128 mb'; SELECT COUNT(*), "
                              "SUM(a.id - b.k) FROM s a JOIN s b ON a.id = b.k"],
                      lambda l: l in ("EXPR$0,EXPR$1", "%d,0" % n),
                      "hash join of 10M x 10M rows (spilled)", 352)
    ok &= lookups(binary, wh, n)
    return ok


def lookups(binary, wh, n):
    """A lookup service over 10M rows: a primary-key table of them (4 buckets: files of up to
    2.3M rows, each far more than an eighth of the file cache), then 2,000 point SELECTs by key
    in one session. Lookups in such files read the pages the key column's page index points at
    (datafile/paged_lookup.cc) instead of decoding each file whole or holding its key column.
    Measured 2026-12-06: 214 MiB, 3.9 s (before: 486 MiB, 189 s with the key columns held; 762
    MiB, 417 s decoding whole files)."""
    ids = "a.x + 10 * b.x + 100 * c.x + 1000 * e.x + 10000 * f.x + 100000 * g.x + 1000000 * h.x"
    sql = ("CREATE TABLE p (id BIGINT, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH "
           "('bucket' = '4'); INSERT INTO p WITH d(x) AS (VALUES 0, 1, 2, 3, 4, 5, 6, 7, 8, 9) "
           "SELECT MOD((%s) * CAST(7919 AS BIGINT), %d) AS id, CONCAT('value-', CAST(%s AS "
           "STRING), '-of-the-stream') AS v FROM d a, d b, d c, d e, d f, d g, d h" % (ids, n, ids))
    code, rss = peak_rss([binary, "sql", "--warehouse", wh, "-e", sql])
    if code != 0:
        print("  FAIL  INSERT of 10M rows into a primary-key table: exit %d" % code)
        return False
    keys = [(i * 7_654_321 + 12_345) % n for i in range(2000)]
    script = os.path.join(wh, "lookups.sql")
    with open(script, "w") as f:
        for k in keys:
            f.write("SELECT v FROM p WHERE id = %d;\n" % k)
    # id = x * 7919 mod n for the row of value-x: the value names the row, checked for each key.
    inverse = pow(7919, -1, n)
    want = iter(["value-%d-of-the-stream" % (k * inverse % n) for k in keys])
    state = {"found": 0}

    def lookup_line(line):
        if line == "v":
            return True
        state["found"] += 1
        return line == next(want, None)
    ok = run_checked([binary, "sql", "--warehouse", wh, "--format", "csv", "-f", script],
                     lookup_line, "2,000 point lookups into 10M rows (measured 214 MiB)", 320)
    return ok and state["found"] == len(keys)


def server_copy(binary, tmp):
    """One COPY of 3M rows (about 1 GiB held as rows) through `tributary serve`: past 64 MiB a
    statement's rows go through the table's writer as they come instead of being held until
    CopyDone (issue 39, docs/server.md "Large statements"), so the server's peak RSS stays
    within the writer's bounds. Returns whether it held."""
    import socket
    import time
    wh = os.path.join(tmp, "served")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen([binary, "serve", "--warehouse", wh, "--listen",
                               "127.0.0.1:%d" % port], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    psql = ["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", str(port),
            "-U", "tributary", "-d", "default"]
    try:
        for _ in range(100):
            if subprocess.run(psql + ["-c", "SELECT 1"], capture_output=True).returncode == 0:
                break
            time.sleep(0.1)
        subprocess.run(psql + ["-c", "CREATE TABLE t (id BIGINT, v STRING, d DOUBLE, PRIMARY KEY "
                               "(id) NOT ENFORCED) WITH ('bucket' = '4')"], check=True,
                       capture_output=True)
        rows = 3_000_000
        data = os.path.join(tmp, "copy.tsv")
        with open(data, "w") as f:
            for i in range(rows):
                f.write("%d\tvalue-%d-of-the-stream-with-some-padding-to-make-it-longer\t%d.5\n" %
                        (i, i, i))
        with open(data) as f:
            r = subprocess.run(psql + ["-c", "COPY t FROM STDIN"], stdin=f, capture_output=True,
                               text=True)
        os.remove(data)
        with open("/proc/%d/status" % server.pid) as f:
            hwm = [int(l.split()[1]) * 1024 for l in f if l.startswith("VmHWM:")][0]
        count = subprocess.run(psql + ["-A", "-t", "-c", "SELECT COUNT(*) FROM t"],
                               capture_output=True, text=True).stdout.strip()
    finally:
        server.terminate()
        server.wait(timeout=120)
    ok = r.returncode == 0 and count == str(rows) and hwm < 512 * MIB
    print("  %s  COPY of %d rows through tributary serve: %s rows, server peak RSS %d MiB "
          "(bound 512 MiB)%s" % ("ok" if ok else "FAIL", rows, count, hwm // MIB,
                                 "" if r.returncode == 0 else ": " + r.stderr.strip()))
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
        code, top_rss = peak_rss([binary, "sql", "--warehouse", wh, "--format", "json", "-e",
                                  "SELECT * FROM t ORDER BY v DESC LIMIT 10"])
        ok = code == 0 and top_rss - rss[500_000] < 160 * MIB
        print("  %s  ORDER BY ... LIMIT 10 of 4M rows: peak RSS %d MiB" %
              ("ok" if ok else "FAIL", top_rss // MIB))
        failed |= not ok
        failed |= not many_buckets(binary, tmp)
        failed |= not merges(binary, tmp)
        failed |= not many_runs(binary, tmp)
        failed |= not ten_million(binary, tmp)
        failed |= not server_copy(binary, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("memory_test: %s" % ("FAILED" if failed else "all checks passed"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
