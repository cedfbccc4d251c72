#!/usr/bin/env python3
"""Writes the seed corpus of one fuzz target into a directory, from files already in the
repository and the golden tables (nothing is downloaded):

  sql_parser_fuzzer   every SQL statement of tests/sql/**/*.test
  avro_fuzzer         the golden tables' Avro data files, manifests, manifest lists and index
                      manifests
  metadata_fuzzer     the golden tables' snapshots, schemas, manifests, manifest lists and index
                      manifests, each prefixed with the selector byte metadata_fuzzer.cc reads
  parquet_fuzzer      the golden tables' Parquet files
  debezium_fuzzer     Debezium change events of every op, envelope and column type
  index_fuzzer        the golden tables' file-index containers (`*.parquet.index`, selector 0)
                      and deletion-vector index files (`index/index-*`, selector 1)
  pg_wire_fuzzer      PostgreSQL client messages (startup, Parse, Bind, Execute, Describe,
                      SASL) and queries with $n parameters, each behind its decoder's
                      selector byte
  arrow_fuzzer        the Arrow IPC streams of tests/fuzz/seeds/arrow/ (written by
                      format_test's ArrowIpc.DISABLED_WriteFuzzSeeds: every type, plain, LZ4
                      and ZSTD bodies, no rows) and one written by arrow-js

Usage: make_seeds.py TARGET OUTDIR
"""

import json
import os
import struct
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
GOLDEN = os.path.join(ROOT, "..", "shared", "golden")
MAX_FILE = 100 * 1024


def golden_files(pred):
    out = []
    for d, _, files in os.walk(GOLDEN):
        for f in files:
            p = os.path.join(d, f)
            if pred(d, f) and os.path.getsize(p) <= MAX_FILE:
                out.append(p)
    return sorted(out)


def sql_statements():
    stmts = []
    for d, _, files in os.walk(os.path.join(ROOT, "tests", "sql")):
        for f in sorted(files):
            if not f.endswith(".test"):
                continue
            lines = open(os.path.join(d, f), encoding="utf-8").read().split("\n")
            i = 0
            while i < len(lines):
                head = lines[i].strip()
                if head.startswith("statement") or head.startswith("query"):
                    body = []
                    i += 1
                    while i < len(lines) and lines[i].strip() and lines[i].strip() != "----":
                        body.append(lines[i])
                        i += 1
                    if body:
                        stmts.append("\n".join(body))
                i += 1
    return sorted(set(stmts))


def metadata_kind(d, f):
    base = os.path.basename(d)
    if base == "snapshot" and f.startswith("snapshot-"):
        return 0
    if base == "schema" and f.startswith("schema-"):
        return 1
    if base == "manifest":
        if f.startswith("manifest-list-"):
            return 3
        if f.startswith("index-manifest-"):
            return 4
        if f.startswith("manifest-"):
            return 2
    return None


def pg_wire_messages():
    """What a PostgreSQL client sends, each behind the byte that picks its decoder
    (src/server/pg_wire_fuzzer.cc)."""
    def i16(v):
        return struct.pack("!h", v)

    def i32(v):
        return struct.pack("!i", v)
    params = b"user\0tributary\0database\0default\0application_name\0psql\0\0"
    return [
        bytes([0]) + i32(len(params) + 8) + i32(196608) + params,
        bytes([0]) + i32(8) + i32(80877103),
        bytes([0]) + i32(16) + i32(80877102) + i32(7) + i32(9),
        bytes([1]) + b"s1\0SELECT * FROM t WHERE id = $1 AND v = $2\0" + i16(2) + i32(23) + i32(25),
        bytes([1]) + b"\0INSERT INTO t VALUES ($1, '$2 in a string', $1)\0" + i16(0),
        bytes([2]) + b"p\0s1\0" + i16(1) + i16(0) + i16(2) + i32(1) + b"7" + i32(-1) + i16(1) +
        i16(0),
        bytes([3]) + b"p\0" + i32(100),
        bytes([4]) + b"Ss1\0",
        bytes([4]) + b"P\0",
        bytes([6]) + b"SELECT $1, '$2', \"$3\", `$4` -- $5\n /* $6 */ FROM t WHERE a = $10",
        bytes([6]) + b"Q" + i32(9) + b"SELECT",
        bytes([5]) + b"SCRAM-SHA-256\0" + i32(32) + b"n,,n=,r=rOprNGfwEbeRWgbNEkqO1234",
        bytes([5]) + b"n,,n=,r=abc\0c=biws,r=abcserver-nonce,p=" + b"A" * 43 + b"=",
        bytes([5]) + b"SCRAM-SHA-256$4096:W22ZaJ0SNY7soEsUEjb6gQ==$" + b"A" * 43 + b"=:" +
        b"B" * 43 + b"=",
    ]


def debezium_events():
    row = {"id": 1, "b": True, "t": 1, "s": 300, "i": 70000, "f": 1.5, "d": -2.25,
           "dec": "12.50", "big": "123456789012345678901.12345", "str": "héllo", "c": "abc",
           "bin": "AQID", "dt": 19000, "tm": 3600000, "ts": 1700000000000000,
           "ltz": "2024-01-31T10:00:00Z", "arr": [1, 2, None], "m": {"a": 1},
           "r": {"x": 1, "y": "z"}}
    other = dict(row, id=2, str=None, dec=None, dt="2024-01-31", ts="2024-01-31 10:00:00.123456")
    events = [
        {"before": None, "after": row, "op": "c"},
        {"before": None, "after": row, "op": "r"},
        {"before": row, "after": other, "op": "u"},
        {"before": None, "after": other, "op": "u"},
        {"before": other, "after": None, "op": "d"},
        {"payload": {"before": None, "after": row, "op": "c"}},
        {"schema": {"type": "struct", "fields": [
            {"type": "struct", "field": "after", "fields": [
                {"type": "int64", "field": "id"},
                {"type": "int64", "field": "ts", "name": "io.debezium.time.MicroTimestamp"},
                {"type": "bytes", "field": "dec", "name": "org.apache.kafka.connect.data.Decimal",
                 "parameters": {"scale": "2"}}]}]},
         "payload": {"before": None, "after": {"id": 3, "ts": 1700000000000000, "dec": "BNI="},
                     "op": "c"}},
        None,
        {"before": None, "after": {"id": 4, "unknown": 1}, "op": "c"},
    ]
    return [json.dumps(e, ensure_ascii=False) for e in events] + ["", "{", "[1,2]"]


def main():
    target, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    seeds = []
    if target == "sql_parser_fuzzer":
        seeds = [s.encode("utf-8") for s in sql_statements()]
    elif target == "avro_fuzzer":
        for p in golden_files(lambda d, f: f.endswith(".avro") or metadata_kind(d, f) in (2, 3, 4)):
            seeds.append(open(p, "rb").read())
    elif target == "metadata_fuzzer":
        for p in golden_files(lambda d, f: metadata_kind(d, f) is not None):
            kind = metadata_kind(os.path.dirname(p), os.path.basename(p))
            seeds.append(bytes([kind]) + open(p, "rb").read())
    elif target == "parquet_fuzzer":
        for p in golden_files(lambda d, f: f.endswith(".parquet")):
            seeds.append(open(p, "rb").read())
    elif target == "index_fuzzer":
        for p in golden_files(lambda d, f: f.endswith(".parquet.index")):
            seeds.append(bytes([0]) + open(p, "rb").read())
        for p in golden_files(lambda d, f: os.path.basename(d) == "index" and
                              f.startswith("index-")):
            seeds.append(bytes([1]) + open(p, "rb").read())
    elif target == "debezium_fuzzer":
        seeds = [e.encode("utf-8") for e in debezium_events()]
    elif target == "pg_wire_fuzzer":
        seeds = pg_wire_messages()
    elif target == "arrow_fuzzer":
        d = os.path.join(ROOT, "tests", "fuzz", "seeds", "arrow")
        seeds = [open(os.path.join(d, f), "rb").read() for f in sorted(os.listdir(d))]
    else:
        sys.exit("make_seeds.py: unknown target " + target)
    seen = set()
    n = 0
    for s in seeds:
        if s in seen:
            continue
        seen.add(s)
        with open(os.path.join(out, "seed-%05d" % n), "wb") as f:
            f.write(s)
        n += 1
    print("%s: %d seeds" % (target, n))


if __name__ == "__main__":
    main()
