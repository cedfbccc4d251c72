#!/usr/bin/env python3
"""Differential test of 'changelog-producer' = 'lookup' with the aggregation, partial-update and
deduplicate engines (the last partly through `tributary ingest`, a long-lived writer). Such a table keeps each key's whole merged value in its newest record above level 0
(the lookup compaction writes it so, looking keys up below its output level) and every merge
takes that record and the level-0 records only, as Paimon's LookupMergeFunction does. Random
INSERT statements (and CALL sys.compact, and ignored DELETEs) with a small compaction trigger
run against the table and against a model in Python; after every statement the batch read must
equal the model, and at the end the table's changelog, read as a stream from the earliest
snapshot and applied in order, must equal it too, each -U / -D retracting exactly the row held.

  python3 tests/differential/lookup_merge.py --binary build/tributary [--seed N] [--rounds N]
"""
import argparse
import csv
import io
import json
import random
import shutil
import subprocess
import sys
import tempfile

STATEMENTS = 24
KEYS = 12


class Failure(Exception):
    pass


def literal(v):
    if v is None:
        return "NULL"
    if isinstance(v, str):
        return "'" + v + "'"
    return str(v)


# Each case: columns (name, SQL type), options, a row generator and the model's merge of one
# input row into the key's current row (None: absent). DELETEs only where the table ignores them.
def agg_case(rng):
    def gen(k):
        return (k, rng.choice([None, *range(-5, 20)]), rng.choice([None, *range(100)]),
                rng.choice([None, "a", "b", "c"]))

    def merge(cur, row):
        if cur is None:
            return row
        s = row[1] if cur[1] is None else (cur[1] if row[1] is None else cur[1] + row[1])
        m = row[2] if cur[2] is None else (cur[2] if row[2] is None else max(cur[2], row[2]))
        last = cur[3] if row[3] is None else row[3]
        return (cur[0], s, m, last)

    return dict(columns=[("id", "INT"), ("s", "BIGINT"), ("m", "INT"), ("l", "STRING")],
                options={"merge-engine": "aggregation", "fields.s.aggregate-function": "sum",
                         "fields.m.aggregate-function": "max"},
                gen=gen, merge=merge, deletes=False)


def agg_sequence_case(rng):
    # Out-of-order 'sequence.field' (oracle case 19 at random): the functions do not depend on
    # the order, the sequence column keeps its largest value.
    def gen(k):
        return (k, rng.randrange(0, 50), rng.choice([None, *range(10)]),
                rng.choice([None, *range(100)]))

    def merge(cur, row):
        if cur is None:
            return row
        s = row[2] if cur[2] is None else (cur[2] if row[2] is None else cur[2] + row[2])
        m = row[3] if cur[3] is None else (cur[3] if row[3] is None else max(cur[3], row[3]))
        return (cur[0], max(cur[1], row[1]), s, m)

    return dict(columns=[("id", "INT"), ("ts", "INT"), ("s", "INT"), ("m", "INT")],
                options={"merge-engine": "aggregation", "sequence.field": "ts",
                         "fields.s.aggregate-function": "sum",
                         "fields.m.aggregate-function": "max"},
                gen=gen, merge=merge, deletes=False)


def partial_case(rng, ignore_delete):
    def gen(k):
        return (k, rng.choice([None, *range(10)]), rng.choice([None, "p", "q", "r"]),
                rng.choice([None, 1.5, 2.5]))

    def merge(cur, row):
        if cur is None:
            return row
        return tuple(c if r is None else r for c, r in zip(cur, row))

    options = {"merge-engine": "partial-update"}
    if ignore_delete:
        options["partial-update.ignore-delete"] = "true"
    return dict(columns=[("id", "INT"), ("a", "INT"), ("b", "STRING"), ("c", "DOUBLE")],
                options=options, gen=gen, merge=merge, deletes=ignore_delete)


def dedup_case(rng):
    # Deduplicate: the last row wins and a DELETE removes the key. Part of its input comes
    # through `tributary ingest` (a long-lived writer committing every few events, whose
    # before-images come from its own cache between commits).
    def gen(k):
        return (k, rng.choice([None, *range(10)]), rng.choice([None, "p", "q", "r"]),
                rng.choice([None, 1.5, 2.5]))

    return dict(columns=[("id", "BIGINT"), ("a", "INT"), ("b", "STRING"), ("c", "DOUBLE")],
                options={}, gen=gen, merge=lambda cur, row: row, deletes=True,
                delete_removes=True, ingest=True)


def debezium_events(rng, model, names, gen, most, delete_share):
    """1 to `most` Debezium events of rows from gen() (the key first) against `model` (key ->
    row), which they update: a new key is created, a known one updated or, with probability
    `delete_share`, deleted."""
    events = []
    as_dict = lambda t: dict(zip(names, t))
    for _ in range(rng.randint(1, most)):
        row = gen()
        cur = model.get(row[0])
        if cur is None:
            events.append({"before": None, "after": as_dict(row), "op": "c"})
            model[row[0]] = row
        elif rng.random() < delete_share:
            events.append({"before": as_dict(cur), "after": None, "op": "d"})
            del model[row[0]]
        else:
            events.append({"before": as_dict(cur), "after": as_dict(row), "op": "u"})
            model[row[0]] = row
    return events


def ingest(binary, warehouse, events, commit_every):
    path = warehouse + "/events.json"
    with open(path, "w") as f:
        for e in events:
            f.write(json.dumps(e) + "\n")
    p = subprocess.run([binary, "ingest", "--warehouse", warehouse, "--table", "default.t",
                        "--format", "debezium-json", "--commit-every", str(commit_every), path],
                       capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        raise Failure("ingest failed: %s" % p.stderr.strip()[-1500:])


def run(binary, warehouse, sql, fmt="json", idle_ms=None):
    cmd = [binary, "sql", "--warehouse", warehouse, "--format", fmt]
    if idle_ms:
        cmd += ["--idle-timeout-ms", str(idle_ms)]
    p = subprocess.run(cmd + ["-e", sql], capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        raise Failure("statement failed: %s\n  %s" % (sql[:300], p.stderr.strip()[-1500:]))
    return p.stdout




def read_table(binary, warehouse, names):
    rows = {}
    for line in run(binary, warehouse, "SELECT * FROM t").splitlines():
        if line.strip():
            r = json.loads(line)
            rows[r["id"]] = tuple(r[n] for n in names)
    return rows


def parse(v, sql_type):
    if v == "" or v is None:
        return None
    if sql_type in ("INT", "BIGINT"):
        return int(v)
    if sql_type == "DOUBLE":
        return float(v)
    return v


def run_round(binary, root, seed, case_name):
    rng = random.Random(seed)
    case = {"agg": lambda: agg_case(rng), "agg-sequence": lambda: agg_sequence_case(rng),
            "partial": lambda: partial_case(rng, False),
            "partial-ignore-delete": lambda: partial_case(rng, True),
            "dedup": lambda: dedup_case(rng)}[case_name]()
    warehouse = tempfile.mkdtemp(prefix="lookup_", dir=root)
    options = dict(case["options"])
    options["changelog-producer"] = "lookup"
    options["bucket"] = str(rng.choice([1, 2]))
    options["num-sorted-run.compaction-trigger"] = str(rng.choice([2, 3, 4]))
    if rng.random() < 0.5:
        options["changelog-producer.row-deduplicate"] = "true"
    names = [c[0] for c in case["columns"]]
    cols = ", ".join("%s %s" % c for c in case["columns"])
    with_ = ", ".join("'%s' = '%s'" % kv for kv in sorted(options.items()))
    what = "%s seed %d (%s)" % (case_name, seed, with_)
    run(binary, warehouse, "CREATE TABLE t (%s, PRIMARY KEY (id) NOT ENFORCED) WITH (%s)" %
        (cols, with_))
    model = {}
    for step in range(STATEMENTS):
        r = rng.random()
        if r < 0.1:
            sql = "CALL sys.compact('default.t')"
        elif r < 0.2 and case["deletes"]:
            keys = rng.sample(range(KEYS), 3)
            sql = "DELETE FROM t WHERE id IN (%s)" % ", ".join(map(str, keys))
            if case.get("delete_removes"):
                for k in keys:
                    model.pop(k, None)
        elif r < 0.5 and case.get("ingest"):
            events = debezium_events(rng, model, names,
                                     lambda: case["gen"](rng.randrange(KEYS)), 30, 0.25)
            every = rng.choice([1, 2, 3, 5, 100])
            sql = "ingest of %d events, a commit every %d" % (len(events), every)
            ingest(binary, warehouse, events, every)
        else:
            rows = [case["gen"](rng.randrange(KEYS)) for _ in range(rng.randint(1, 6))]
            for row in rows:
                model[row[0]] = case["merge"](model.get(row[0]), row)
            sql = "INSERT INTO t VALUES " + ", ".join(
                "(" + ", ".join(literal(v) for v in row) + ")" for row in rows)
        if not sql.startswith("ingest of"):
            run(binary, warehouse, sql)
        got = read_table(binary, warehouse, names)
        if got != model:
            diff = sorted(set(got.items()) ^ set(model.items()), key=repr)[:6]
            raise Failure("%s, after statement %d (%s): the table reads %r where the model "
                          "holds %r (differing: %r)" % (what, step, sql[:200], got, model, diff))
    changes = check_changelog(binary, warehouse, case, model, what)
    shutil.rmtree(warehouse, ignore_errors=True)
    return changes


def check_changelog(binary, warehouse, case, model, what):
    """The table's changelog, read as a stream from the earliest snapshot and applied in order,
    must add up to `model`, each -U / -D retracting exactly the row held. Returns how many
    changes it read."""
    names = [c[0] for c in case["columns"]]
    out = run(binary, warehouse, "SET 'execution.runtime-mode' = 'streaming'; SELECT * FROM t "
              "/*+ OPTIONS('scan.startup.mode' = 'earliest') */", fmt="csv", idle_ms=800)
    reader = csv.reader(io.StringIO(out))
    header = next(reader, None)
    if header != ["op"] + names:
        raise Failure("%s: stream header %r" % (what, header))
    state = {}
    types = [c[1] for c in case["columns"]]
    changes = 0
    for line in reader:
        changes += 1
        op = line[0]
        row = tuple(parse(v, t) for v, t in zip(line[1:], types))
        key = row[0]
        if op in ("+I", "+U"):
            if op == "+I" and key in state:
                raise Failure("%s: +I%r of a key the stream holds as %r" % (what, row, state[key]))
            state[key] = row
        else:
            if state.get(key) != row:
                raise Failure("%s: %s%r but the stream holds %r for the key" %
                              (what, op, row, state.get(key)))
            del state[key]
    if state != model:
        diff = sorted(set(state.items()) ^ set(model.items()), key=repr)[:6]
        raise Failure("%s: the changelog adds up to %r, the table is %r (differing: %r)" %
                      (what, state, model, diff))
    return changes


def main_rounds(name, run_round_fn, cases, default_seed, failures=(Failure,)):
    """The command line of a differential test whose rounds run each of `cases`:
    --binary, --seed, --rounds; prints a summary and returns the exit code."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    ap.add_argument("--seed", type=int, default=default_seed)
    ap.add_argument("--rounds", type=int, default=1)
    args = ap.parse_args()
    root = tempfile.mkdtemp(prefix="trib_%s_" % name)
    try:
        total = 0
        for i in range(args.rounds):
            for j, case in enumerate(cases):
                total += run_round_fn(args.binary, root, args.seed + 100 * i + j, case)
        print("%s: %d rounds of %d cases passed (%d changes checked)" %
              (name, args.rounds, len(cases), total))
        return 0
    except failures as e:
        print("FAIL: %s" % e, file=sys.stderr)
        return 1
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main():
    return main_rounds("lookup_merge", run_round,
                       ["agg", "agg-sequence", "partial", "partial-ignore-delete", "dedup"], 5)


if __name__ == "__main__":
    sys.exit(main())
