#!/usr/bin/env python3
"""Hostile input, tried as an attacker and as a careless operator would (issue 14): names that
try to leave the warehouse, schema files that lie about the data files' types, statements nested
deep enough to exhaust the stack, and single flipped bytes in Parquet data files.

Every case must end in a clean error (exit status 1, a message naming the problem) or in the
right answer; never a crash, never wrong rows, never a change outside the warehouse.
Python 3 standard library only."""
import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

TIMEOUT_S = 120


class Failure(Exception):
    pass


class Runner:
    def __init__(self, binary, tmp):
        self.binary = binary
        self.tmp = tmp

    def sql(self, warehouse, text, expect=None, fmt="json"):
        """Runs a script (through a file: some are megabytes long). Returns the process."""
        path = os.path.join(self.tmp, "script.sql")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        p = subprocess.run([self.binary, "sql", "--warehouse", warehouse, "--format", fmt, "-f",
                            path], capture_output=True, text=True, timeout=TIMEOUT_S)
        if p.returncode not in (0, 1):
            raise Failure("%r...: exit status %d (a crash?)\n  stderr: %s" %
                          (text[:80], p.returncode, p.stderr.strip()[-500:]))
        if expect is not None and p.returncode != expect:
            raise Failure("%r...: expected exit status %d, got %d\n  stderr: %s" %
                          (text[:80], expect, p.returncode, p.stderr.strip()[-500:]))
        return p

    def error(self, warehouse, text, *needles):
        """The script must fail cleanly with every needle in its message."""
        p = self.sql(warehouse, text, expect=1)
        for n in needles:
            if n not in p.stderr:
                raise Failure("%r...: the error should mention %r, got: %s" %
                              (text[:80], n, p.stderr.strip()[-500:]))
        return p

    def rows(self, warehouse, text):
        p = self.sql(warehouse, text, expect=0)
        return [json.loads(line) for line in p.stdout.splitlines() if line.strip()]


def tree_digest(root):
    """Every file under root with its size and content: what must not change."""
    out = {}
    for dirpath, _, files in os.walk(root):
        for name in files:
            path = os.path.join(dirpath, name)
            with open(path, "rb") as f:
                out[os.path.relpath(path, root)] = f.read()
    return out


def check_path_traversal(r):
    """Item 1: no statement, no ingest, reaches a table outside the warehouse."""
    base = os.path.join(r.tmp, "traversal")
    wh, victim = os.path.join(base, "wh"), os.path.join(base, "victim")
    r.sql(victim, "CREATE TABLE v (id INT); INSERT INTO v VALUES (42)", expect=0)
    r.sql(wh, "CREATE TABLE t (id INT)", expect=0)
    before = tree_digest(victim)
    # wh/default.db/<name> with these names would be victim/default.db/v.
    names = ["`../../victim/default.db/v`", "`./../../victim/default.db/v`",
             "`..`.`v`", "`../../victim/default`.`v`", "`.`", "`..`"]
    for name in names:
        system = name[:-1] + "$snapshots`"
        r.error(wh, "SELECT * FROM " + system, "name")
        for stmt in ["SELECT * FROM %s", "INSERT INTO %s VALUES (1)", "DROP TABLE %s",
                     "DELETE FROM %s WHERE id = 42",
                     "ALTER TABLE %s SET ('bucket-key' = 'id')", "SHOW CREATE TABLE %s",
                     "DESCRIBE %s", "CALL sys.compact('%s')"]:
            r.error(wh, stmt % name, "name")
    for db in ["`..`", "`../../victim/default`", "`.hidden`"]:
        for stmt in ["CREATE DATABASE %s", "DROP DATABASE %s CASCADE", "USE %s", "SHOW TABLES FROM %s"]:
            r.error(wh, stmt % db, "name")
    events = os.path.join(base, "events.json")
    with open(events, "w") as f:
        f.write('{"before":null,"after":{"id":7},"op":"c"}\n')
    p = subprocess.run([r.binary, "ingest", "--warehouse", wh, "--table",
                        "default.`../../victim/default.db/v`", "--format", "debezium-json",
                        events], capture_output=True, text=True, timeout=TIMEOUT_S)
    if p.returncode != 1 or "name" not in p.stderr:
        raise Failure("ingest into a traversing table name: exit %d, stderr %s" %
                      (p.returncode, p.stderr.strip()))
    if tree_digest(victim) != before:
        raise Failure("a statement against wh changed files of the sibling warehouse 'victim'")
    if r.rows(victim, "SELECT * FROM v") != [{"id": 42}]:
        raise Failure("the victim table no longer reads as before")
    print("  ok  path traversal: %d names x statements, ingest: refused, nothing outside the "
          "warehouse touched" % len(names))


def check_bad_metadata(r):
    """Item 2: a schema file that does not match the data files fails naming file and column."""
    wh = os.path.join(r.tmp, "badmeta")
    r.sql(wh, "CREATE TABLE s (id INT, v STRING); INSERT INTO s VALUES (1, 'a');"
              "CREATE TABLE p (id INT, v STRING, PRIMARY KEY (id) NOT ENFORCED) "
              "WITH ('bucket' = '1'); INSERT INTO p VALUES (1, 'a');"
              "CREATE TABLE b (id INT, v BIGINT); INSERT INTO b VALUES (1, 5000000000);"
              "CREATE TABLE a (id INT, v BIGINT) WITH ('file.format' = 'avro');"
              "INSERT INTO a VALUES (1, 5000000000)", expect=0)
    edits = {"s": ('"STRING"', '"DOUBLE"'), "p": ('"STRING"', '"DOUBLE"'),
             "b": ('"BIGINT"', '"INT"'), "a": ('"BIGINT"', '"INT"')}
    for table, (old, new) in edits.items():
        path = os.path.join(wh, "default.db", table, "schema", "schema-0")
        with open(path) as f:
            text = f.read()
        assert old in text, (table, text)
        with open(path, "w") as f:
            f.write(text.replace(old, new))
        for q in ["SELECT * FROM %s", "SELECT SUM(v) FROM %s", "SELECT v FROM %s WHERE id = 1",
                  "SELECT COUNT(*) FROM %s WHERE v IS NOT NULL"]:
            r.error(wh, q % table, "data file", "column 'v'")
    print("  ok  bad metadata: STRING edited to DOUBLE (append and primary-key), BIGINT data "
          "under INT (Parquet and Avro): errors naming the file and column")


def check_utf8(r):
    """SQL text must be UTF-8 (as ingest's JSON must); --format json output stays valid JSON."""
    wh = os.path.join(r.tmp, "utf8")
    r.sql(wh, "CREATE TABLE t (id BIGINT, v STRING)", expect=0)
    path = os.path.join(r.tmp, "bad.sql")
    with open(path, "wb") as f:
        f.write(b"INSERT INTO t VALUES\n  (1, 'ok'), (2, 'b\xff')")
    p = subprocess.run([r.binary, "sql", "--warehouse", wh, "-f", path], capture_output=True,
                       text=True, errors="replace", timeout=TIMEOUT_S)
    if p.returncode != 1 or "line 2, column 20" not in p.stderr or "UTF-8" not in p.stderr:
        raise Failure("invalid UTF-8 in a literal: exit %d, %s" % (p.returncode, p.stderr))
    if r.rows(wh, "SELECT COUNT(*) AS n FROM t") != [{"n": 0}]:
        raise Failure("the refused INSERT committed rows")
    print("  ok  UTF-8: invalid bytes in SQL text refused at their line and column")


def check_deep_nesting(r):
    """Item 3: every recursive path has a limit and a clear error."""
    wh = os.path.join(r.tmp, "deep")
    r.sql(wh, "CREATE TABLE t (id INT)", expect=0)
    cases = [
        ("2000 nested subqueries", "SELECT * FROM (" * 2000 + "VALUES (1)" + ")" * 2000,
         "nested too deeply"),
        ("20000 nested parentheses in VALUES", "VALUES " + "(" * 20000 + "1" + ")" * 20000,
         "nested too deeply"),
        ("10000 nested parentheses", "SELECT " + "(" * 10000 + "1" + ")" * 10000,
         "nested too deeply"),
        ("IS NULL chain", "SELECT 1" + " IS NULL" * 20000, "nested too deeply"),
        ("subscript chain", "SELECT 1" + "[1]" * 150000 + " FROM t", "nested too deeply"),
        ("NOT chain", "SELECT " + "NOT " * 50000 + "TRUE", "nested too deeply"),
        ("nested function calls", "SELECT " + "ABS(" * 20000 + "1" + ")" * 20000,
         "nested too deeply"),
        ("nested ROW constructors", "SELECT " + "ROW(" * 20000 + "1" + ")" * 20000,
         "nested too deeply"),
        ("EXPLAIN chain", "EXPLAIN " * 40000 + "SELECT 1", "EXPLAIN"),
        ("nested BETWEEN (binds its operand twice)",
         "SELECT 1 BETWEEN 0 AND 2" + " BETWEEN FALSE AND TRUE" * 40, "too large"),
        ("deep type", "CREATE TABLE d (a " + "ARRAY<" * 20000 + "INT" + ">" * 20000 + ")",
         "nested too deeply"),
        ("deep CTAS type", "CREATE TABLE d AS SELECT " + "ARRAY[" * 100 + "1" + "]" * 100 +
         " AS a", "nested more than 64 levels"),
        ("subqueries in INSERT", "INSERT INTO t " + "SELECT * FROM (" * 2000 + "VALUES (1)" +
         ")" * 2000, "nested too deeply"),
    ]
    for what, text, needle in cases:
        try:
            r.error(wh, text, needle)
        except Failure as e:
            raise Failure("%s: %s" % (what, e))
    # Parentheses around a query nest nothing: any number of them reads.
    if len(r.rows(wh, "(" * 20000 + "VALUES (1)" + ")" * 20000)) != 1:
        raise Failure("20000 parentheses around VALUES (1) should read one row")
    # Within the limits, nesting works.
    ok = r.rows(wh, "SELECT * FROM (" * 50 + "VALUES (7)" + ")" * 50)
    if len(ok) != 1 or list(ok[0].values()) != [7]:
        raise Failure("50 nested subqueries: %r" % ok)
    # A debezium line nested 100000 levels deep.
    events = os.path.join(r.tmp, "deep.json")
    with open(events, "w") as f:
        f.write('{"op":"c","after":{"id":' + "[" * 100000 + "]" * 100000 + "}}\n")
    p = subprocess.run([r.binary, "ingest", "--warehouse", wh, "--table", "t", "--format",
                        "debezium-json", events], capture_output=True, text=True,
                       timeout=TIMEOUT_S)
    if p.returncode != 1 or "line 1" not in p.stderr:
        raise Failure("deeply nested Debezium line: exit %d, %s" % (p.returncode, p.stderr[-300:]))
    # A schema file whose option value is JSON nested 100000 deep.
    path = os.path.join(wh, "default.db", "t", "schema", "schema-0")
    with open(path) as f:
        schema = json.load(f)
    with open(path, "w") as f:
        text = json.dumps(schema)
        f.write(text.replace('"options": {}', '"options": {"x": ' + "[" * 100000 +
                             "]" * 100000 + "}"))
    r.error(wh, "SELECT * FROM t", "schema-0")
    print("  ok  deep nesting: %d statements, a Debezium line and a schema file refused with "
          "clear errors" % len(cases))


def flip_bytes(r, label, create, query, stride=1):
    """Flips each byte of the table's largest Parquet data file in turn: every read must either
    fail naming the file or return exactly the right rows."""
    wh = os.path.join(r.tmp, "flip-" + label)
    r.sql(wh, create, expect=0)
    good = r.sql(wh, query, expect=0).stdout
    files = glob.glob(os.path.join(wh, "default.db", "t", "**", "*.parquet"), recursive=True)
    if not files:
        raise Failure("%s: no data file" % label)
    path = max(files, key=os.path.getsize)
    with open(path, "rb") as f:
        data = bytearray(f.read())
    errors = same = 0
    for off in range(0, len(data), stride):
        orig = data[off]
        data[off] = orig ^ 0xFF
        with open(path, "wb") as f:
            f.write(data)
        p = r.sql(wh, query)
        data[off] = orig
        if p.returncode == 0:
            if p.stdout != good:
                raise Failure("%s: byte %d of %s flipped: wrong rows with exit status 0" %
                              (label, off, os.path.basename(path)))
            same += 1
        else:
            errors += 1
            if os.path.basename(path) not in p.stderr:
                raise Failure("%s: byte %d flipped: the error does not name the file: %s" %
                              (label, off, p.stderr.strip()[-300:]))
    with open(path, "wb") as f:
        f.write(data)
    print("  ok  %s: %d single-byte flips of a %d-byte file: %d errors naming it, %d reads "
          "unchanged (bytes that do not affect the rows)" %
          (label, (len(data) + stride - 1) // stride, len(data), errors, same))


def check_silent_corruption(r):
    """Item 4: page checksums and count checks catch flipped bytes."""
    values = ",".join("(%d, 's%d', %d.5)" % (i, i % 7, i) for i in range(60))
    flip_bytes(r, "append, uncompressed",
               "CREATE TABLE t (id BIGINT, v STRING, d DOUBLE) WITH ('bucket' = '-1', "
               "'file.compression' = 'none'); INSERT INTO t VALUES " + values,
               "SELECT * FROM t")
    flip_bytes(r, "primary key, zstd",
               "CREATE TABLE t (id BIGINT, v STRING, d DOUBLE, PRIMARY KEY (id) NOT ENFORCED) "
               "WITH ('bucket' = '1'); INSERT INTO t VALUES " + values,
               "SELECT * FROM t", stride=2)
    # Filters skip row groups and pages by statistics: flipped statistics must not skip rows.
    flip_bytes(r, "filtered read",
               "CREATE TABLE t (id BIGINT, v STRING, d DOUBLE) WITH ('bucket' = '-1', "
               "'file.compression' = 'none'); INSERT INTO t VALUES " + values,
               "SELECT * FROM t WHERE id > 10 AND v <> 's3'")
    # Two files of one bucket merged column by column: errors name the file too.
    flip_bytes(r, "merged primary-key read",
               "CREATE TABLE t (id BIGINT, v STRING, d DOUBLE, PRIMARY KEY (id) NOT ENFORCED) "
               "WITH ('bucket' = '1', 'file.compression' = 'none', "
               "'num-sorted-run.compaction-trigger' = '10'); INSERT INTO t VALUES " + values +
               "; INSERT INTO t VALUES (3, 'x', 1.0), (70, 'y', 2.0)",
               "SELECT * FROM t", stride=2)
    # A data file swapped for another valid one (of another row count) is caught by the count
    # its manifest entry records.
    wh = os.path.join(r.tmp, "swap")
    r.sql(wh, "CREATE TABLE t (id BIGINT) WITH ('bucket' = '-1'); INSERT INTO t VALUES (1), (2);"
              "INSERT INTO t VALUES (3)", expect=0)
    files = sorted(glob.glob(os.path.join(wh, "default.db", "t", "bucket-0", "*.parquet")),
                   key=os.path.getsize)
    if len(files) != 2:
        raise Failure("swap: expected two data files, found %d" % len(files))
    shutil.copy(files[0], files[1] + ".tmp")
    shutil.copy(files[1], files[0])
    os.replace(files[1] + ".tmp", files[1])
    for q in ["SELECT * FROM t", "SELECT SUM(id) FROM t", "SELECT * FROM t WHERE id > 0"]:
        r.error(wh, q, "manifest entry records")
    print("  ok  two data files swapped: reads fail naming the row counts")


def check_memory_limits(r):
    """Issue 32 item 8: a query that needs more memory than the process may have ends in a clear
    error (exit status 1), never in an abort: the operator's memory limit stops it when set below
    the process's memory, and an allocation that fails anyway becomes an error too."""
    wh = os.path.join(r.tmp, "memory")
    # 2,000,000 distinct keys (the GROUP BY used 1.5 GB).
    r.sql(wh, "CREATE TABLE ap (id BIGINT, v BIGINT);"
              "INSERT INTO ap WITH d(x) AS (VALUES 0, 1, 2, 3, 4, 5, 6, 7, 8, 9), h(y) AS "
              "(VALUES 0, 1) SELECT a.x + 10 * b.x + 100 * c.x + 1000 * e.x + 10000 * f.x + "
              "100000 * g.x + 1000000 * h.y, a.x FROM d a, d b, d c, d e, d f, d g, h", expect=0)
    query = ("SELECT COUNT(*) FROM (SELECT id, COUNT(*), MIN(v), MAX(v), SUM(v) FROM ap "
             "GROUP BY id)")
    address_space = 800 * 1000 * 1024  # as `ulimit -v 800000`

    def limited(text, expect=1):
        import resource

        def limit():
            resource.setrlimit(resource.RLIMIT_AS, (address_space, address_space))
        path = os.path.join(r.tmp, "memory.sql")
        with open(path, "w") as f:
            f.write(text)
        p = subprocess.run([r.binary, "sql", "--warehouse", wh, "--format", "csv", "-f", path],
                           capture_output=True, text=True, timeout=TIMEOUT_S, preexec_fn=limit)
        if p.returncode != expect:
            raise Failure("%s under a %d MB address space: exit status %d (%d expected; 134 is "
                          "an abort)\n  stderr: %s" % (text[:100], address_space >> 20,
                                                       p.returncode, expect,
                                                       p.stderr.strip()[-500:]))
        return p

    # The aggregation's limit below the process's memory: past it the GROUP BY spills to disk
    # and answers (issue 38).
    p = limited("SET 'sql.aggregate.memory-limit' = '100 mb'; " + query, expect=0)
    if p.stdout.split() != ["EXPR$0", "2000000"]:
        raise Failure("GROUP BY past 'sql.aggregate.memory-limit': %s" % p.stdout[-300:])
    # The limit above it: the allocation that fails is an error, not an abort.
    err = limited("SET 'sql.aggregate.memory-limit' = '64 gb'; " + query).stderr
    if "out of memory" not in err or "sql.aggregate.memory-limit" not in err:
        raise Failure("GROUP BY out of memory: %s" % err.strip()[-500:])
    print("  ok  memory: a GROUP BY over 2,000,000 keys under ulimit -v %d spills past "
          "'sql.aggregate.memory-limit' and answers, or ends with an out-of-memory error "
          "above it (exit 1)" % (address_space // 1024))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", default="build/tributary")
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="tributary-hostile-",
                           dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
    r = Runner(os.path.abspath(args.binary), tmp)
    failed = False
    try:
        for check in [check_path_traversal, check_bad_metadata, check_utf8, check_deep_nesting,
                      check_silent_corruption, check_memory_limits]:
            try:
                check(r)
            except Failure as e:
                failed = True
                print("FAIL %s: %s" % (check.__name__, e))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("hostile_input_test: %s" % ("FAILED" if failed else "all checks passed"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
