#!/usr/bin/env python3
"""Differential test of deletion-vector tables ('deletion-vectors.enabled' = 'true', Paimon's
merge-on-write mode): random INSERT, DELETE and UPDATE statements, `tributary ingest` runs (a
long-lived writer) and CALL sys.compact at random points, over the deduplicate, aggregation and
partial-update engines (with and without a sequence field), changelog producers none, input and
lookup, 32- and 64-bit vectors, 'lookup-wait' true and false. After every statement:

- the batch read (which leaves level-0 files out and skips the rows the vectors delete, never
  merging) holds each key once and equals a model of the rows kept in Python, and so do
  COUNT(*) and reads of a few keys;
- the deletion-vector index files are checked by a decoder written here from the format
  (Paimon's DeletionVectorsIndexFile: a version byte, then per vector a big-endian length, magic,
  a portable roaring bitmap — or Roaring64's buckets — and a CRC-32), not by the code under
  test: every range lies in its file and checks out, its cardinality is the number of positions
  it holds, every position lies in its data file, which is live and above level 0, each bucket
  has one index file, and the rows above level 0 less the deleted ones number the model's keys;
- at the end, with the lookup producer, the table's changelog read as a stream from the earliest
  snapshot adds up to the model.

  python3 tests/differential/deletion_vectors.py --binary build/tributary [--seed N] [--rounds N]
"""
import json
import os
import random
import shutil
import struct
import sys
import tempfile
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lookup_merge as lm  # noqa: E402  (the cases, the runner and the changelog check)

STATEMENTS = 22
KEYS = 14
MAGIC32 = 1581511376
MAGIC64 = 0xD1D33964


class Failure(Exception):
    pass


def roaring_portable(buf, pos):
    """Positions of a 32-bit portable roaring bitmap at buf[pos:], and the bytes it took."""
    start = pos
    cookie = struct.unpack_from("<I", buf, pos)[0]
    pos += 4
    if cookie & 0xFFFF == 12347:  # with run containers
        size = (cookie >> 16) + 1
        run_flags = buf[pos:pos + (size + 7) // 8]
        pos += (size + 7) // 8
        has_offsets = size >= 4
    elif cookie == 12346:
        size = struct.unpack_from("<I", buf, pos)[0]
        pos += 4
        run_flags = b""
        has_offsets = True
    else:
        raise Failure("roaring bitmap with unknown cookie %d" % cookie)
    header = [struct.unpack_from("<HH", buf, pos + 4 * i) for i in range(size)]
    pos += 4 * size
    if has_offsets:
        pos += 4 * size
    out = []
    for i, (key, card_minus_1) in enumerate(header):
        high = key << 16
        is_run = i // 8 < len(run_flags) and run_flags[i // 8] >> (i % 8) & 1
        if is_run:
            runs = struct.unpack_from("<H", buf, pos)[0]
            pos += 2
            for _ in range(runs):
                s, length = struct.unpack_from("<HH", buf, pos)
                pos += 4
                out.extend(high + v for v in range(s, s + length + 1))
        elif card_minus_1 + 1 <= 4096:
            vals = struct.unpack_from("<%dH" % (card_minus_1 + 1), buf, pos)
            pos += 2 * (card_minus_1 + 1)
            out.extend(high + v for v in vals)
        else:
            words = struct.unpack_from("<1024Q", buf, pos)
            pos += 8192
            for w, word in enumerate(words):
                while word:
                    bit = word & -word
                    out.append(high + w * 64 + bit.bit_length() - 1)
                    word ^= bit
    return out, pos - start


def decode_vector(data, offset, length, what):
    """The positions of the deletion vector at `offset` (its length field) in an index file."""
    if offset < 1 or offset + 8 + length > len(data):
        raise Failure("%s: range [%d, +%d) outside the %d-byte file" % (what, offset, length,
                                                                       len(data)))
    stored = struct.unpack_from(">I", data, offset)[0]
    if stored != length:
        raise Failure("%s: length field %d, the manifest says %d" % (what, stored, length))
    body = data[offset + 4:offset + 4 + length]
    crc = struct.unpack_from(">I", data, offset + 4 + length)[0]
    if zlib.crc32(body) & 0xFFFFFFFF != crc:
        raise Failure("%s: CRC mismatch" % what)
    magic = struct.unpack_from(">I", body, 0)[0]
    if magic == MAGIC32:
        positions, used = roaring_portable(body, 4)
        if 4 + used != len(body):
            raise Failure("%s: %d bytes after the bitmap" % (what, len(body) - 4 - used))
        return positions, False
    if magic == MAGIC64:
        buckets = struct.unpack_from("<Q", body, 4)[0]
        pos = 12
        positions = []
        for _ in range(buckets):
            high = struct.unpack_from("<I", body, pos)[0]
            pos += 4
            low, used = roaring_portable(body, pos)
            pos += used
            positions.extend((high << 32) + v for v in low)
        return positions, True
    raise Failure("%s: unknown magic %d" % (what, magic))


def json_rows(binary, warehouse, sql):
    return [json.loads(line) for line in lm.run(binary, warehouse, sql).splitlines()
            if line.strip()]


def check_vectors(binary, warehouse, table_dir, bitmap64, model_size, what):
    files = json_rows(binary, warehouse, "SELECT * FROM t$files")
    by_name = {os.path.basename(f["file_path"]): f for f in files}
    indexes = [r for r in json_rows(binary, warehouse, "SELECT * FROM t$table_indexes")
               if r["index_type"] == "DELETION_VECTORS"]
    seen_buckets = set()
    deleted = 0
    for e in indexes:
        bucket = (e["partition"], e["bucket"])
        if bucket in seen_buckets:
            raise Failure("%s: two deletion-vector files for bucket %r" % (what, bucket))
        seen_buckets.add(bucket)
        with open(os.path.join(table_dir, "index", e["file_name"]), "rb") as f:
            data = f.read()
        if data[:1] != b"\x01" or len(data) != e["file_size"]:
            raise Failure("%s: index file %s: version byte %r, %d bytes (manifest: %d)" %
                          (what, e["file_name"], data[:1], len(data), e["file_size"]))
        ranges = e["dv_ranges"] or []
        if e["row_count"] != len(ranges):
            raise Failure("%s: index file %s row_count %d for %d vectors" %
                          (what, e["file_name"], e["row_count"], len(ranges)))
        for r in ranges:
            data_file, offset, length, card = r["f0"], r["f1"], r["f2"], r["f3"]
            vwhat = "%s: vector of %s in %s" % (what, data_file, e["file_name"])
            positions, is64 = decode_vector(data, offset, length, vwhat)
            if is64 != bitmap64:
                raise Failure("%s: 64-bit form %r, table has bitmap64 %r" % (vwhat, is64, bitmap64))
            if len(set(positions)) != len(positions) or card != len(positions):
                raise Failure("%s: cardinality %r for %d positions" % (vwhat, card, len(positions)))
            f = by_name.get(data_file)
            if f is None or f["level"] == 0 or f["bucket"] != e["bucket"]:
                raise Failure("%s: the data file is not live above level 0 in the bucket (%r)" %
                              (vwhat, f))
            if positions and max(positions) >= f["record_count"]:
                raise Failure("%s: position %d in a %d-row file" % (vwhat, max(positions),
                                                                     f["record_count"]))
            deleted += len(positions)
    upper = sum(f["record_count"] for f in files if f["level"] > 0)
    if upper - deleted != model_size:
        raise Failure("%s: %d rows above level 0 less %d deleted = %d, the model holds %d keys" %
                      (what, upper, deleted, upper - deleted, model_size))


def read_rows(binary, warehouse, names, what):
    rows = {}
    for r in json_rows(binary, warehouse, "SELECT * FROM t"):
        key = r["id"]
        if key in rows:
            raise Failure("%s: key %r read twice (%r and %r)" % (what, key, rows[key], r))
        rows[key] = tuple(r[n] for n in names)
    return rows


def run_round(binary, root, seed, case_name):
    rng = random.Random(seed)
    case = {"agg": lambda: lm.agg_case(rng), "agg-sequence": lambda: lm.agg_sequence_case(rng),
            "partial": lambda: lm.partial_case(rng, False),
            "partial-ignore-delete": lambda: lm.partial_case(rng, True),
            "dedup": lambda: lm.dedup_case(rng)}[case_name]()
    warehouse = tempfile.mkdtemp(prefix="dv_", dir=root)
    options = dict(case["options"])
    options["deletion-vectors.enabled"] = "true"
    producer = rng.choice(["none", "input", "lookup"] if case_name == "dedup" else
                          ["none", "lookup"])
    options["changelog-producer"] = producer
    if rng.random() < 0.6:
        # Ingest's commits do not wait for the compaction (it runs in the background, a later
        # commit takes it in); the end of the ingest waits.
        options["lookup-wait"] = "false"
    bitmap64 = rng.random() < 0.5
    if bitmap64:
        options["deletion-vectors.bitmap64"] = "true"
    options["bucket"] = str(rng.choice([1, 2]))
    options["num-sorted-run.compaction-trigger"] = str(rng.choice([2, 3, 5]))
    names = [c[0] for c in case["columns"]]
    cols = ", ".join("%s %s" % c for c in case["columns"])
    with_ = ", ".join("'%s' = '%s'" % kv for kv in sorted(options.items()))
    what = "%s seed %d (%s)" % (case_name, seed, with_)
    lm.run(binary, warehouse, "CREATE TABLE t (%s, PRIMARY KEY (id) NOT ENFORCED) WITH (%s)" %
           (cols, with_))
    table_dir = os.path.join(warehouse, "default.db", "t")
    model = {}
    for step in range(STATEMENTS):
        r = rng.random()
        if r < 0.1:
            sql = "CALL sys.compact('default.t')"
        elif r < 0.22 and case["deletes"]:
            keys = rng.sample(range(KEYS), 3)
            sql = "DELETE FROM t WHERE id IN (%s)" % ", ".join(map(str, keys))
            if case.get("delete_removes"):
                for k in keys:
                    model.pop(k, None)
        elif r < 0.3 and case_name == "dedup":
            # An UPDATE of one column of the keys it finds.
            k = rng.randrange(KEYS)
            v = rng.randrange(100)
            sql = "UPDATE t SET a = %d WHERE id <= %d" % (v, k)
            for key, row in list(model.items()):
                if key <= k:
                    model[key] = (row[0], v) + row[2:]
        elif r < 0.5 and case.get("ingest"):
            events = lm.debezium_events(rng, model, names,
                                        lambda: case["gen"](rng.randrange(KEYS)), 30, 0.25)
            every = rng.choice([1, 2, 3, 5, 100])
            sql = "ingest of %d events, a commit every %d" % (len(events), every)
            lm.ingest(binary, warehouse, events, every)
        else:
            rows = [case["gen"](rng.randrange(KEYS)) for _ in range(rng.randint(1, 6))]
            for row in rows:
                model[row[0]] = case["merge"](model.get(row[0]), row)
            sql = "INSERT INTO t VALUES " + ", ".join(
                "(" + ", ".join(lm.literal(v) for v in row) + ")" for row in rows)
        if not sql.startswith("ingest of"):
            lm.run(binary, warehouse, sql)
        swhat = "%s, after statement %d (%s)" % (what, step, sql[:200])
        got = read_rows(binary, warehouse, names, swhat)
        if got != model:
            diff = sorted(set(got.items()) ^ set(model.items()), key=repr)[:6]
            raise Failure("%s: the table reads %r where the model holds %r (differing: %r)" %
                          (swhat, got, model, diff))
        check_vectors(binary, warehouse, table_dir, bitmap64, len(model), swhat)
        # COUNT(*) (from the files' row counts less the vectors' cardinalities) and reads of a
        # few keys (the filter on the key) agree with the model too.
        count = json_rows(binary, warehouse, "SELECT count(*) AS n FROM t")[0]["n"]
        keys = rng.sample(range(KEYS), 3)
        found = {r["id"]: tuple(r[n] for n in names) for r in json_rows(
            binary, warehouse, "SELECT * FROM t WHERE id IN (%s)" % ", ".join(map(str, keys)))}
        want = {k: model[k] for k in keys if k in model}
        if count != len(model) or found != want:
            raise Failure("%s: COUNT(*) %d for %d keys; keys %r read %r, the model has %r" %
                          (swhat, count, len(model), keys, found, want))
    changes = 0
    if producer == "lookup":
        changes = lm.check_changelog(binary, warehouse, case, model, what)
    shutil.rmtree(warehouse, ignore_errors=True)
    return changes


def main():
    return lm.main_rounds("deletion_vectors", run_round,
                          ["dedup", "agg", "agg-sequence", "partial", "partial-ignore-delete"], 7,
                          (Failure, lm.Failure))


if __name__ == "__main__":
    sys.exit(main())
