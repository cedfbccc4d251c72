#!/usr/bin/env python3
"""Hostile input and faults, second round (issue 32): options that become parts of paths, a
writer or a streaming reader whose table was dropped, huge numbers and huge lines in CDC input,
damaged index files, names too long to drop.

As in hostile_input_test.py: every case ends in a clean error (exit status 1, a message naming
the problem) or in the right answer; never a crash, never wrong rows, never a change outside the
warehouse. Python 3 standard library only."""
import argparse
import glob
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hostile_input_test import Failure, Runner, tree_digest  # noqa: E402

TIMEOUT_S = 120


def files_under(root):
    return sorted(os.path.relpath(p, root) for p in glob.glob(os.path.join(root, "**"),
                                                              recursive=True)
                  if os.path.isfile(p))


def check_path_forming_options(r):
    """Items 1 and 2: every option and name that becomes part of a path is refused where it is
    accepted (CREATE, ALTER, hints, procedures) and where the path is made (a schema file edited
    by hand, as another engine's could say anything); nothing is written outside the warehouse."""
    base = os.path.join(r.tmp, "paths")
    wh = os.path.join(base, "wh")
    os.makedirs(base)
    r.sql(wh, "CREATE TABLE t (id BIGINT, k STRING, PRIMARY KEY (id) NOT ENFORCED) "
              "WITH ('bucket' = '1', 'changelog-producer' = 'input');"
              "INSERT INTO t VALUES (1, 'a')", expect=0)
    evil = "../../../../outside"
    refused = [
        # (statement, what the error names)
        ("CREATE TABLE c1 (id BIGINT, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH "
         "('changelog-producer' = 'input', 'changelog-file.prefix' = '%s-')" % evil,
         "changelog-file.prefix"),
        ("CREATE TABLE c2 (id BIGINT) WITH ('data-file.prefix' = '%s-')" % evil,
         "data-file.prefix"),
        ("CREATE TABLE c3 (id BIGINT) WITH ('changelog-file.prefix' = '.hidden-')",
         "changelog-file.prefix"),
        ("CREATE TABLE c4 (id BIGINT, k STRING) PARTITIONED BY (k) WITH "
         "('partition.default-name' = '')", "partition.default-name"),
        ("ALTER TABLE t SET ('changelog-file.prefix' = '%s-')" % evil, "changelog-file.prefix"),
        ("SELECT * FROM t /*+ OPTIONS('scan.tag-name' = '%s') */" % evil, "scan.tag-name"),
        ("SELECT * FROM t /*+ OPTIONS('branch' = '%s') */" % evil, "branch"),
        ("SELECT * FROM t /*+ OPTIONS('consumer-id' = '%s') */" % evil, "consumer-id"),
        ("CALL sys.create_tag('default.t', '%s', 1)" % evil, "tag name"),
        ("CALL sys.create_branch('default.t', '%s')" % evil, "branch name"),
        ("SELECT * FROM `t$branch_..`", "branch name"),
        ("CREATE TABLE `%s` (id INT)" % ("x" * 201), "at most 200"),
        ("CREATE DATABASE `%s`" % ("d" * 201), "at most 200"),
    ]
    before = files_under(base)
    for sql, needle in refused:
        r.error(wh, sql, needle)
    if files_under(base) != before:
        raise Failure("a refused statement changed files: %s" %
                      sorted(set(files_under(base)) ^ set(before)))
    # The default partition's name is escaped into one directory name, as Paimon's.
    r.sql(wh, "CREATE TABLE p (id BIGINT, k STRING) PARTITIONED BY (k) WITH "
              "('partition.default-name' = '%s'); INSERT INTO p VALUES (1, NULL)" % evil,
          expect=0)
    outside = [f for f in files_under(base) if not f.startswith("wh" + os.sep)]
    if outside:
        raise Failure("files written outside the warehouse: %s" % outside)
    rows = r.rows(wh, "SELECT id, k FROM p")
    if rows != [{"id": 1, "k": None}]:
        raise Failure("the default partition reads back as %s" % rows)
    # Options in a schema file written elsewhere are checked where the path is made.
    schema = os.path.join(wh, "default.db", "t", "schema", "schema-0")
    with open(schema) as f:
        text = f.read()
    for key, value, needle in [("changelog-file.prefix", evil + "-", "changelog-file.prefix"),
                               ("scan.fallback-branch", evil, "scan.fallback-branch")]:
        with open(schema, "w") as f:
            f.write(text.replace('"options" : {', '"options" : {\n    "%s" : "%s",' %
                                 (key, value), 1))
        before = files_under(base)
        stmt = ("INSERT INTO t VALUES (2, 'b')" if key == "changelog-file.prefix"
                else "SELECT * FROM t")
        r.error(wh, stmt, needle)
        if files_under(base) != before:
            raise Failure("%s in a schema file: files changed" % key)
    with open(schema, "w") as f:
        f.write(text)
    # A name of 200 bytes is created, written and dropped.
    name = "n" * 200
    r.sql(wh, "CREATE TABLE `%s` (id INT); INSERT INTO `%s` VALUES (1); DROP TABLE `%s`" %
          (name, name, name), expect=0)
    print("  ok  path-forming options and names: %d refused, the default partition escaped, "
          "schema files checked, a 200-byte name dropped" % len(refused))


def start_ingest(r, wh, fifo):
    return subprocess.Popen([r.binary, "ingest", "--warehouse", wh, "--table", "default.t",
                             "--format", "debezium-json", "--commit-every", "1", fifo],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def check_writer_after_drop(r):
    """Item 3: an ingest whose table is dropped (or dropped and created again) fails its next
    commit, says why, and leaves nothing behind; a new table of the name never sees its rows."""
    for recreate in (False, True):
        wh = os.path.join(r.tmp, "drop-%s" % recreate)
        r.sql(wh, "CREATE TABLE t (id BIGINT, v STRING, PRIMARY KEY (id) NOT ENFORCED) "
                  "WITH ('bucket' = '1')", expect=0)
        fifo = os.path.join(r.tmp, "fifo-%s" % recreate)
        os.mkfifo(fifo)
        p = start_ingest(r, wh, fifo)
        with open(fifo, "w") as f:
            f.write('{"op":"c","before":null,"after":{"id":1,"v":"a"}}\n')
            f.flush()
            deadline = time.time() + 30
            while not glob.glob(os.path.join(wh, "default.db", "t", "snapshot", "snapshot-1")):
                if time.time() > deadline:
                    raise Failure("the first line was never committed")
                time.sleep(0.05)
            again = "; CREATE TABLE t (id BIGINT, v INT, PRIMARY KEY (id) NOT ENFORCED)" \
                if recreate else ""
            r.sql(wh, "DROP TABLE t" + again, expect=0)
            f.write('{"op":"c","before":null,"after":{"id":2,"v":"b"}}\n')
        out, err = p.communicate(timeout=TIMEOUT_S)
        if p.returncode != 1 or "dropped" not in err:
            raise Failure("ingest after DROP%s: exit %d, %s" %
                          (" and CREATE" if recreate else "", p.returncode, err.strip()))
        if recreate:
            if r.rows(wh, "SELECT * FROM t") != []:
                raise Failure("the new table shows the old writer's rows")
            if glob.glob(os.path.join(wh, "default.db", "t", "**", "*.parquet"), recursive=True):
                raise Failure("the old writer's data files are left in the new table")
        elif os.path.exists(os.path.join(wh, "default.db", "t")):
            raise Failure("the dropped table's directory is back: %s" %
                          files_under(os.path.join(wh, "default.db", "t")))
    print("  ok  ingest after DROP and after DROP + CREATE: the commit fails, nothing left")


def check_reader_after_drop(r):
    """Item 11: a streaming reader of a dropped table fails saying so (not exit 0 at idle)."""
    wh = os.path.join(r.tmp, "stream-drop")
    r.sql(wh, "CREATE TABLE t (id BIGINT, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH "
              "('bucket' = '1', 'changelog-producer' = 'input'); INSERT INTO t VALUES (1, 'a')",
          expect=0)
    p = subprocess.Popen([r.binary, "sql", "--warehouse", wh, "--format", "json",
                          "--idle-timeout-ms", "20000", "-e",
                          "SET 'execution.runtime-mode' = 'streaming'; SELECT * FROM t"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 30
    first = p.stdout.readline()
    if '"id": 1' not in first and '"id":1' not in first:
        p.kill()
        raise Failure("the streaming reader printed %r" % first)
    r.sql(wh, "DROP TABLE t", expect=0)
    try:
        _, err = p.communicate(timeout=max(1, deadline - time.time()))
    except subprocess.TimeoutExpired:
        p.kill()
        raise Failure("the streaming reader of a dropped table kept waiting")
    if p.returncode != 1 or "dropped" not in err:
        raise Failure("streaming reader after DROP: exit %d, %s" % (p.returncode, err.strip()))
    print("  ok  a streaming reader of a dropped table fails saying so")


def ingest(r, wh, data, *flags):
    path = os.path.join(r.tmp, "input.json")
    with open(path, "wb") as f:
        f.write(data)
    return subprocess.run([r.binary, "ingest", "--warehouse", wh, "--table", "default.t",
                           "--format", "debezium-json", *flags, path],
                          capture_output=True, timeout=TIMEOUT_S)


def check_cdc_numbers_and_lines(r):
    """Items 4 and 10: numbers no double holds, and huge lines, are clean errors naming the line
    (and the field), skipped with --ignore-parse-errors; errors quote only an excerpt."""
    wh = os.path.join(r.tmp, "cdc")
    r.sql(wh, "CREATE TABLE t (id BIGINT, v STRING, PRIMARY KEY (id) NOT ENFORCED)", expect=0)
    good = b'{"op":"c","before":null,"after":{"id":7,"v":"ok"}}\n'
    for number in [b"1e400", b"1e999", b"-1e400", b"9" * 100000, b"1" + b"0" * 400 + b".5"]:
        line = b'{"op":"c","before":null,"after":{"id":' + number + b',"v":"x"}}\n'
        p = ingest(r, wh, good + line)
        err = p.stderr.decode(errors="replace")
        if p.returncode != 1 or "line 2" not in err or "after.id" not in err:
            raise Failure("number %r...: exit %d, %s" % (number[:20], p.returncode, err[-300:]))
        if len(err) > 2000:
            raise Failure("number %r...: %d bytes of error" % (number[:20], len(err)))
        p = ingest(r, wh, line + good, "--ignore-parse-errors")
        err = p.stderr.decode(errors="replace")
        if p.returncode != 0 or "skipped 1" not in err:
            raise Failure("number %r... skipped: exit %d, %s" % (number[:20], p.returncode,
                                                                 err[-300:]))
    # A malformed line of 10 MB: an excerpt in the error, not the line.
    big = b'{"op":"c","after":{"id":1,"v":"' + b"x" * (10 << 20) + b'"}\n'
    p = ingest(r, wh, big)
    if p.returncode != 1 or len(p.stderr) > 2000 or b"line 1" not in p.stderr:
        raise Failure("a malformed 10 MB line: exit %d, %d bytes on stderr" %
                      (p.returncode, len(p.stderr)))
    # A line over --max-line-bytes is refused as such without being held whole.
    long_line = b'{"op":"c","after":{"id":2,"v":"' + b"y" * (3 << 20) + b'"}}\n'
    p = ingest(r, wh, long_line + good, "--max-line-bytes", str(1 << 20))
    if p.returncode != 1 or b"--max-line-bytes" not in p.stderr or len(p.stderr) > 2000:
        raise Failure("a 3 MB line over a 1 MB maximum: exit %d, %r" %
                      (p.returncode, p.stderr[-300:]))
    p = ingest(r, wh, long_line + good, "--max-line-bytes", str(1 << 20), "--ignore-parse-errors")
    if p.returncode != 0 or b"skipped 1" not in p.stderr:
        raise Failure("a long line skipped: exit %d, %r" % (p.returncode, p.stderr[-300:]))
    rows = r.rows(wh, "SELECT id, v FROM t")
    if rows != [{"id": 7, "v": "ok"}]:
        raise Failure("after the skipped lines the table holds %s" % rows)
    print("  ok  CDC input: numbers out of range and long lines are errors naming the line")


def flip_each_byte(r, label, wh, path, trial, stride=1):
    """Flips each byte of `path` in a copy of the warehouse; trial(copy) must return 'error' or
    'right' (and raise Failure on a wrong answer)."""
    rel = os.path.relpath(path, wh)
    with open(path, "rb") as f:
        data = bytearray(f.read())
    counts = {"error": 0, "right": 0}
    copy = wh + "-copy"
    for off in range(0, len(data), stride):
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(wh, copy)
        flipped = bytearray(data)
        flipped[off] ^= 0xFF
        with open(os.path.join(copy, rel), "wb") as f:
            f.write(flipped)
        try:
            counts[trial(copy)] += 1
        except Failure as e:
            raise Failure("%s: byte %d of %s flipped: %s" % (label, off, os.path.basename(path), e))
    shutil.rmtree(copy, ignore_errors=True)
    print("  ok  %s: %d single-byte flips of a %d-byte file: %d errors, %d right answers" %
          (label, (len(data) + stride - 1) // stride, len(data), counts["error"], counts["right"]))


def check_damaged_indexes(r):
    """Item 5: a flipped byte in a dynamic-bucket HASH index or a bloom-filter index file is an
    error or is ignored in favour of the data; never a key written twice or a row not found."""
    keys = 40
    values = ",".join("(%d, %d)" % (i, i) for i in range(keys))
    wh = os.path.join(r.tmp, "hash-index")
    r.sql(wh, "CREATE TABLE t (id BIGINT, n BIGINT, PRIMARY KEY (id) NOT ENFORCED) WITH "
              "('bucket' = '-1', 'dynamic-bucket.initial-buckets' = '1', "
              "'dynamic-bucket.target-row-num' = '10'); "
              "INSERT INTO t VALUES " + values, expect=0)
    # Four full buckets: a key whose hash a flip changed looks new and would go to a fifth.
    index = sorted(glob.glob(os.path.join(wh, "default.db", "t", "index", "index-*")))
    if len(index) != keys // 10:
        raise Failure("expected %d HASH index files, found %d" % (keys // 10, len(index)))

    def hash_trial(copy):
        p = r.sql(copy, "UPDATE t SET n = n + 1000")
        if p.returncode != 0:
            if "index" not in p.stderr:
                raise Failure("the error does not name the index: %s" % p.stderr[-300:])
            return "error"
        got = r.rows(copy, "SELECT COUNT(*) AS c, COUNT(DISTINCT id) AS d, SUM(n) AS s FROM t")
        want = [{"c": keys, "d": keys, "s": sum(range(keys)) + 1000 * keys}]
        if got != want:
            raise Failure("UPDATE succeeded but the table reads %s, not %s" % (got, want))
        return "right"

    flip_each_byte(r, "dynamic-bucket HASH index", wh, index[1], hash_trial)

    wh = os.path.join(r.tmp, "bloom-index")
    values = ",".join("(%d, 'v%d')" % (i, i) for i in range(300))
    # Point lookups of a primary-key table consult the data file's bloom filters.
    r.sql(wh, "CREATE TABLE t (id BIGINT, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH "
              "('bucket' = '1', "
              "'file-index.bloom-filter.columns' = 'id', 'file-index.in-manifest-threshold' = "
              "'1 b', 'file-index.bloom-filter.id.items' = '300'); INSERT INTO t VALUES " + values,
          expect=0)
    index = glob.glob(os.path.join(wh, "default.db", "t", "bucket-0", "*.index"))
    if len(index) != 1:
        raise Failure("expected one bloom-filter index file, found %d" % len(index))
    probes = [0, 17, 123, 249, 299]

    def bloom_trial(copy):
        for k in probes:
            got = r.rows(copy, "SELECT v FROM t WHERE id = %d" % k)
            if got != [{"v": "v%d" % k}]:
                raise Failure("WHERE id = %d returned %s" % (k, got))
        return "right"

    flip_each_byte(r, "bloom-filter index file", wh, index[0], bloom_trial,
                   stride=max(1, os.path.getsize(index[0]) // 150))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", default="build/tributary")
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="tributary-hostile2-",
                           dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
    r = Runner(os.path.abspath(args.binary), tmp)
    failed = False
    try:
        for check in [check_path_forming_options, check_writer_after_drop,
                      check_reader_after_drop, check_cdc_numbers_and_lines,
                      check_damaged_indexes]:
            try:
                check(r)
            except Failure as e:
                failed = True
                print("FAIL %s: %s" % (check.__name__, e))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("hostile_input_round2_test: %s" % ("FAILED" if failed else "all checks passed"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
