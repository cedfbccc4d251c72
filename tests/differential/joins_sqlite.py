#!/usr/bin/env python3
"""Differential test of joins and set operations: random tables (NULL keys, duplicate keys,
duplicate rows in an append table, empty tables now and then, rows updated and deleted by primary
key in later commits, which Tributary merges on read) are written to Tributary and to SQLite
(Python's sqlite3, the system library), random join queries of every kind (and UNION, INTERSECT,
EXCEPT, WITH, window functions, subqueries in expressions (correlated too: as joins, and run per
row) and in FROM) run on both, and their results must be the same multisets of rows.

  python3 tests/differential/joins_sqlite.py --binary build/tributary [--seed N] [--queries N]
      [--aggregate-limit '1 b']
"""
import argparse
import json
import random
import re
import sqlite3
import subprocess
import sys
import tempfile

SEP = "__next_query__"
MIN_NONEMPTY = 0.6  # the share of queries whose expected result must have rows


def random_row(rng, i, s_choices=("x", "y", None)):
    return (i, rng.choice([None, *range(8)]), rng.choice([None, *range(5)]), rng.choice(s_choices))


def make_tables(rng):
    """Three tables: (name, primary key?, writes, rows). `writes` are what Tributary is given, in
    order, each its own commit: ("insert", rows) or ("delete", ids); `rows` are what the table
    must read as, which SQLite is given. a and b have a primary key: later commits update some
    keys (some twice) and delete others, so Tributary merges them on read. c is an append table
    that holds duplicate rows, within a commit and across commits."""
    tables = []
    for name in ("a", "b", "c"):
        # b and c are empty now and then (one round in eight or so), a never.
        n = rng.choice([5, 20, 40]) if name == "a" else rng.choice([0, 5, 12, 20, 30, 40, 40])
        if name != "c":
            base = [random_row(rng, i) for i in range(n)]
            half = len(base) // 2
            writes = [("insert", part) for part in (base[:half], base[half:]) if part]
            rows = {r[0]: r for r in base}
            for _ in range(rng.choice([1, 1, 2]) if rows else 0):
                # Updates by primary key, some of a key updated before; each batch one commit.
                ids = rng.sample(sorted(rows), max(1, len(rows) // 3))
                update = [random_row(rng, i, ("u", "x", None)) for i in ids]
                writes.append(("insert", update))
                rows.update((r[0], r) for r in update)
            if len(rows) > 2 and rng.random() < 0.6:
                gone = rng.sample(sorted(rows), max(1, len(rows) // 6))
                writes.append(("delete", gone))
                for i in gone:
                    del rows[i]
            tables.append((name, True, writes, list(rows.values())))
        else:
            rows = [random_row(rng, i) for i in range(n)]
            # Duplicate rows (the same id too, so each row's window values stay determined).
            rows += [rng.choice(rows) for _ in range(len(rows) // 3)] if rows else []
            rng.shuffle(rows)
            half = len(rows) // 2
            writes = [("insert", part) for part in (rows[:half], rows[half:]) if part]
            tables.append((name, False, writes, rows))
    return tables


def literal(v):
    if v is None:
        return "NULL"
    if isinstance(v, str):
        return "'" + v + "'"
    return str(v)


def random_set_query(rng):
    """A set operation (SQLite has no INTERSECT ALL / EXCEPT ALL), sometimes over a WITH query."""
    op = rng.choice(["UNION", "UNION ALL", "INTERSECT", "EXCEPT"])
    left = rng.choice(["SELECT k AS x, v AS y FROM a", "SELECT v AS x, k AS y FROM a WHERE id < 15",
                       "SELECT k AS x, v AS y FROM w"])
    right = rng.choice(["SELECT k, v FROM b", "SELECT k, v FROM c", "SELECT v, k FROM w"])
    q = f"{left} {op} {right}"
    if left.endswith(" w") or right.endswith(" w"):
        q = "WITH w AS (SELECT k, v FROM a WHERE s IS NOT NULL OR k > 3) " + q
    return q


def random_window_query(rng):
    """Window functions over one table; every ORDER BY ends with the unique id, so each row's
    value is determined."""
    part = rng.choice(["", "PARTITION BY k ", "PARTITION BY s ", "PARTITION BY k, s "])
    order = rng.choice(["ORDER BY v, id", "ORDER BY v DESC, id", "ORDER BY id", "ORDER BY k DESC, id"])
    frame = rng.choice(["", " ROWS BETWEEN 1 PRECEDING AND CURRENT ROW",
                        " ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING",
                        " ROWS BETWEEN 2 PRECEDING AND 1 FOLLOWING"])
    funcs = [
        f"ROW_NUMBER() OVER ({part}{order})",
        f"RANK() OVER ({part}ORDER BY v)",
        f"DENSE_RANK() OVER ({part}ORDER BY v DESC)",
        f"SUM(v) OVER ({part}{order}{frame})",
        f"COUNT(*) OVER ({part}{order}{frame})",
        f"MIN(v) OVER ({part.strip()})" if part else "MAX(v) OVER ()",
        f"LAG(v) OVER ({part}{order})",
        f"LEAD(v, 2, -1) OVER ({part}{order})",
        f"FIRST_VALUE(v) OVER ({part}{order}{frame})",
        f"COUNT(v) OVER ({part}ORDER BY v)",
        # RANGE frames with offsets: by the ORDER BY value (ties and NULLs included as peers).
        f"SUM(v) OVER ({part}ORDER BY k RANGE BETWEEN 2 PRECEDING AND 1 FOLLOWING)",
        f"COUNT(*) OVER ({part}ORDER BY k DESC RANGE BETWEEN 1 PRECEDING AND CURRENT ROW)",
        f"SUM(id) OVER ({part}ORDER BY v RANGE BETWEEN CURRENT ROW AND 2 FOLLOWING)",
        f"COUNT(*) OVER ({part}ORDER BY k RANGE BETWEEN 3 FOLLOWING AND 5 FOLLOWING)",
        f"MIN(id) OVER ({part}ORDER BY v DESC RANGE BETWEEN 3 PRECEDING AND 1 PRECEDING)",
        f"MAX(id) OVER ({part}ORDER BY k RANGE 1 PRECEDING)",
    ]
    picked = rng.sample(funcs, 3)
    cols = ", ".join(f"{f} AS w{i}" for i, f in enumerate(picked))
    table = rng.choice(["a", "b", "c"])
    where = rng.choice(["", " WHERE v IS NOT NULL", " WHERE id < 12"])
    return f"SELECT id, {cols} FROM {table}{where}"


def random_grouped_window_query(rng):
    """Window functions over GROUP BY: over the groups' keys and aggregates (each value
    determined: the windows order by a group key or a per-group unique aggregate)."""
    table = rng.choice(["a", "b", "c"])
    where = rng.choice(["", " WHERE v IS NOT NULL", " WHERE id < 12"])
    return rng.choice([
        f"SELECT k, COUNT(*) AS c, SUM(v) AS s, RANK() OVER (ORDER BY COUNT(*) DESC) AS r "
        f"FROM {table}{where} GROUP BY k",
        f"SELECT s, SUM(SUM(v)) OVER (ORDER BY s) AS run, ROW_NUMBER() OVER (ORDER BY MAX(id)) "
        f"AS rn FROM {table}{where} GROUP BY s",
        f"SELECT k, LAG(COUNT(*)) OVER (ORDER BY k) AS prev, MAX(v) - MIN(v) AS spread "
        f"FROM {table}{where} GROUP BY k HAVING COUNT(*) > 1",
        f"SELECT k, s, DENSE_RANK() OVER (PARTITION BY s ORDER BY SUM(id)) AS d, "
        f"COUNT(*) OVER (PARTITION BY k) AS groups FROM {table}{where} GROUP BY k, s",
    ])


def random_subquery_query(rng):
    """Uncorrelated subqueries in WHERE and the select list."""
    cond = rng.choice([
        "k IN (SELECT k FROM b)", "k NOT IN (SELECT k FROM b)",
        "k NOT IN (SELECT k FROM b WHERE k IS NOT NULL)", "v IN (SELECT v FROM c WHERE s = 'x')",
        "EXISTS (SELECT 1 FROM b WHERE v > 3)", "NOT EXISTS (SELECT 1 FROM c WHERE k = 7)",
        "v > (SELECT MIN(v) FROM b)", "k = (SELECT MAX(k) FROM c)", "k IN (SELECT k FROM empty_t)",
    ])
    item = rng.choice(["id", "id, (SELECT COUNT(*) FROM b) AS n", "id, (SELECT MAX(v) FROM c) AS m"])
    return f"SELECT {item} FROM a WHERE {cond}"


def random_correlated_query(rng):
    """Correlated EXISTS / NOT EXISTS / IN / scalar aggregate subqueries (run as joins)."""
    inner = rng.choice(["b", "c"])
    corr = rng.choice([f"{inner}.k = a.k", f"{inner}.k = a.k AND {inner}.s = a.s",
                       f"{inner}.v = a.v + 1", f"a.k = {inner}.k AND {inner}.v > 1"])
    extra = rng.choice(["", f" AND {inner}.v IS NOT NULL", f" AND {inner}.s = 'x'"])
    agg = rng.choice(["COUNT(*)", f"COUNT({inner}.v)", f"MAX({inner}.v)", f"SUM({inner}.v)",
                      f"MIN({inner}.s)"])
    kind = rng.random()
    if kind < 0.25:
        return f"SELECT a.id FROM a WHERE EXISTS (SELECT 1 FROM {inner} WHERE {corr}{extra})"
    if kind < 0.5:
        return f"SELECT a.id, a.k FROM a WHERE NOT EXISTS (SELECT * FROM {inner} WHERE {corr}{extra})"
    if kind < 0.65:
        return (f"SELECT a.id FROM a WHERE a.v IN (SELECT {inner}.v FROM {inner} WHERE {corr}{extra})"
                f" AND a.id < 30")
    if kind < 0.85:
        return f"SELECT a.id, (SELECT {agg} FROM {inner} WHERE {corr}{extra}) AS x FROM a"
    return (f"SELECT a.id FROM a LEFT JOIN b AS bb ON a.id = bb.id "
            f"WHERE a.v >= (SELECT {agg.replace('.s', '.v')} FROM {inner} WHERE {corr})")


def random_per_row_query(rng):
    """Correlated subqueries that are not rewritten as joins and run per row: other comparisons
    with the outer row, NOT IN, outer columns in the subquery's select list, LIMIT, GROUP BY /
    HAVING, COALESCE over no rows, a subquery inside the subquery reading the outermost row, and a
    grouped outer query."""
    inner = rng.choice(["b", "c"])
    t = inner
    forms = [
        f"SELECT a.id FROM a WHERE EXISTS (SELECT 1 FROM {t} WHERE {t}.v > a.v"
        + rng.choice(["", f" AND {t}.s = 'x'", f" AND {t}.k = a.k"]) + ")",
        f"SELECT a.id, a.k FROM a WHERE NOT EXISTS (SELECT 1 FROM {t} WHERE {t}.k < a.k AND {t}.s = a.s)",
        f"SELECT a.id FROM a WHERE a.v NOT IN (SELECT {t}.v FROM {t} WHERE {t}.k = a.k)",
        f"SELECT a.id FROM a WHERE a.k NOT IN (SELECT {t}.v FROM {t} WHERE {t}.v <> a.v)",
        f"SELECT a.id, (SELECT {t}.v FROM {t} WHERE {t}.k = a.k ORDER BY {t}.id DESC LIMIT 1) AS x FROM a",
        f"SELECT a.id, (SELECT COALESCE(SUM({t}.v), -1) FROM {t} WHERE {t}.k >= a.k) AS x FROM a",
        f"SELECT a.id FROM a WHERE EXISTS (SELECT {t}.k FROM {t} WHERE {t}.k = a.k GROUP BY {t}.k "
        f"HAVING COUNT(*) > 1)",
        f"SELECT a.id, (SELECT COUNT(*) FROM {t} WHERE {t}.v + a.v > 4) AS x FROM a",
        "SELECT a.id FROM a WHERE EXISTS (SELECT 1 FROM b WHERE b.k = a.k AND EXISTS "
        "(SELECT 1 FROM c WHERE c.v = b.v AND c.s = a.s))",
        "SELECT a.id FROM a WHERE EXISTS (SELECT 1 FROM b WHERE b.k > a.k AND NOT EXISTS "
        "(SELECT 1 FROM c WHERE c.k = b.k AND c.v < a.v))",
        f"SELECT a.id, (SELECT MAX({t}.v + a.k) FROM {t} WHERE {t}.s = a.s) AS x FROM a",
        f"SELECT a.id FROM a WHERE a.k IN (SELECT {t}.v + a.v FROM {t} WHERE {t}.s = 'x')",
        f"SELECT a.k, (SELECT COUNT(*) FROM {t} WHERE {t}.k > a.k) AS x FROM a GROUP BY a.k",
        f"SELECT a.id FROM a WHERE (SELECT MIN({t}.id) FROM {t} WHERE {t}.v >= a.v) < 10",
    ]
    return rng.choice(forms)


def random_using_query(rng):
    """JOIN ... USING / NATURAL JOIN: the merged column read unqualified (COALESCE for FULL)."""
    kind = rng.choice(["JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN"])
    using = rng.choice([["k"], ["v"], ["k", "v"], ["k", "s"]])
    merged = ", ".join("%s AS m_%s" % (c, c) for c in using)
    cols = merged + ", a.id AS a_id, b.id AS b_id"
    if rng.random() < 0.3:
        frm = "a NATURAL %s b" % kind  # every column: id, k, v, s
        cols = "id AS m_id, k AS m_k, v AS m_v, s AS m_s"
    else:
        frm = "a %s b USING (%s)" % (kind, ", ".join(using))
    where = ""
    if rng.random() < 0.4:
        where = " WHERE " + rng.choice(["%s IS NOT NULL" % using[0], "%s > 2" % using[0],
                                        "a.id < 10", "b.s = 'x'"])
    return f"SELECT {cols} FROM {frm}{where}"


def random_derived_query(rng):
    """Subqueries in FROM (plain, computed columns, grouped, DISTINCT, LIMIT, windowed), alone or
    joined, filtered above: the filters that move into them must keep the results."""
    inner = rng.choice([
        "SELECT id, k, v + 1 AS v1, s FROM a",
        "SELECT id, k, v1, s FROM (SELECT id, k, v * 2 AS v1, s FROM a WHERE id < 30)",
        "SELECT k, COUNT(*) AS v1, MAX(id) AS id, MIN(s) AS s FROM a GROUP BY k",
        "SELECT k, SUM(v) AS v1, COUNT(*) AS id, s FROM a GROUP BY k, s HAVING COUNT(*) > 1",
        "SELECT DISTINCT k, v AS v1, s, 0 AS id FROM a",
        "SELECT id, k, v AS v1, s FROM a ORDER BY id LIMIT 7",
        "SELECT id, k, v AS v1, s FROM a ORDER BY v DESC, id LIMIT 5",
        "SELECT id, k, ROW_NUMBER() OVER (ORDER BY id) AS v1, s FROM a",
        "SELECT id, k, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC, id) AS v1, s FROM a",
        "SELECT id, k, ROW_NUMBER() OVER (PARTITION BY s ORDER BY v, id) AS v1, s FROM a",
        "SELECT id, k, v AS v1, s FROM a UNION ALL SELECT id, k, v, s FROM c",
    ])
    cond = rng.choice(["d.k = 3", "d.k IS NULL", "d.v1 > 2", "d.v1 IS NULL OR d.k < 2",
                       "d.s = 'x'", "d.id BETWEEN 3 AND 20", "d.k IN (1, 4, 6)", "d.v1 + d.k > 4",
                       "d.v1 <= 2", "d.v1 = 1", "d.v1 < 3", "3 >= d.v1"])
    if rng.random() < 0.15:
        # One column read: the subquery's other columns are pruned (not those it sorts by).
        return f"SELECT d.k AS dk FROM ({inner}) d"
    if rng.random() < 0.5:
        return f"SELECT d.k AS dk, d.v1 AS dv1, d.s AS ds, d.id AS did FROM ({inner}) d WHERE {cond}"
    kind = rng.choice(["JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN"])
    where = rng.choice([cond, f"({cond}) AND b.v IS NOT NULL", "b.k > 2", f"({cond}) OR b.s = 'x'"])
    on = rng.choice(["d.k = b.k", "d.id = b.id AND d.k < 5"])
    return (f"SELECT d.k AS dk, d.v1 AS dv1, d.id AS did, b.id AS b_id, b.v AS b_v "
            f"FROM ({inner}) d {kind} b ON {on} WHERE {where}")


def random_query(rng):
    r = rng.random()
    if r < 0.1:
        return random_derived_query(rng)
    r = rng.random()
    if r < 0.1:
        return random_correlated_query(rng)
    r = rng.random()
    if r < 0.08:
        return random_per_row_query(rng)
    r = rng.random()
    if r < 0.05:
        return random_using_query(rng)
    if r < 0.1:
        return random_subquery_query(rng)
    if r < 0.25:
        return random_set_query(rng)
    if r < 0.34:
        return random_window_query(rng)
    if r < 0.4:
        return random_grouped_window_query(rng)
    kinds = ["JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN", "CROSS JOIN"]
    k1 = rng.choice(kinds)
    # Aliased: the JSON output names each column.
    cols = "a.id AS a_id, a.k AS a_k, a.v AS a_v, a.s AS a_s, b.id AS b_id, b.k AS b_k, " \
           "b.v AS b_v, b.s AS b_s"
    frm = f"a {k1} b"
    if k1 != "CROSS JOIN":
        conds = [rng.choice(["a.k = b.k", "a.v = b.v", "a.k = b.v", "a.k + 1 = b.k"])]
        if rng.random() < 0.4:
            conds.append(rng.choice(["a.v < b.v", "b.s = 'x'", "a.s <> 'y'", "b.v > 1",
                                     "a.v IS NULL", "a.k = b.v"]))
        frm += " ON " + " AND ".join(conds)
    if rng.random() < 0.5:
        k2 = rng.choice(kinds)
        cols += ", c.id AS c_id, c.k AS c_k, c.v AS c_v"
        frm += f" {k2} c"
        if k2 != "CROSS JOIN":
            frm += " ON " + rng.choice(["c.k = b.k", "c.k = a.k", "c.v = a.v AND c.k = b.v",
                                        "c.s = a.s"])
    where = ""
    if rng.random() < 0.5:
        where = " WHERE " + rng.choice(["a.v > 1", "b.k IS NULL", "a.k = b.v", "b.s = 'x'",
                                        "a.s = 'x' OR b.v = 2", "a.id < 10"])
    return f"SELECT {cols} FROM {frm}{where}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--queries", type=int, default=40)
    # A tiny 'sql.aggregate.memory-limit': GROUP BY, DISTINCT, UNION, INTERSECT and EXCEPT spill
    # from their first rows on (docs/memory.md) and must answer the same.
    ap.add_argument("--aggregate-limit", default=None)
    # A small 'sql.join.memory-limit': joins spill (by key partitions, or in chunks of build
    # rows when keys cannot split them) and must answer the same.
    ap.add_argument("--join-limit", default=None)
    args = ap.parse_args()
    failures = 0
    total = 0
    nonempty = 0  # queries whose expected result has a row
    for rnd in range(args.rounds):
        rng = random.Random(args.seed * 1000 + rnd)
        tables = make_tables(rng)
        lite = sqlite3.connect(":memory:")
        script = []
        if args.aggregate_limit:
            script.append(f"SET 'sql.aggregate.memory-limit' = '{args.aggregate_limit}'")
        if args.join_limit:
            script.append(f"SET 'sql.join.memory-limit' = '{args.join_limit}'")
        script.append("CREATE TABLE empty_t (k INT)")
        lite.execute("CREATE TABLE empty_t (k INT)")
        for name, pk, writes, rows in tables:
            key = ", PRIMARY KEY (id) NOT ENFORCED" if pk else ""
            opts = " WITH ('bucket' = '2')" if pk else ""
            script.append(f"CREATE TABLE {name} (id INT, k INT, v INT, s STRING{key}){opts}")
            lite.execute(f"CREATE TABLE {name} (id INT, k INT, v INT, s TEXT)")
            for row in rows:
                lite.execute(f"INSERT INTO {name} VALUES (?, ?, ?, ?)", row)
            # Tributary gets the writes, one commit each: the updates and deletes of the
            # primary-key tables are merged on read.
            for kind, part in writes:
                if kind == "delete":
                    script.append(f"DELETE FROM {name} WHERE id IN ({', '.join(map(str, part))})")
                    continue
                values = ", ".join(
                    "(" + ", ".join(
                        literal(x) if x is not None else
                        ("CAST(NULL AS INT)" if j < 3 else "CAST(NULL AS STRING)")
                        for j, x in enumerate(r)) + ")" for r in part)
                script.append(f"INSERT INTO {name} VALUES {values}")
        # Each table as it reads, then the random queries.
        queries = [f"SELECT id, k, v, s FROM {name}" for name in ("a", "b", "c")]
        queries += [random_query(rng) for _ in range(args.queries)]
        for q in queries:
            script.append(q)
            script.append(f"SELECT '{SEP}' AS sep")
        with tempfile.TemporaryDirectory() as wh:
            proc = subprocess.run(
                [args.binary, "sql", "--warehouse", wh, "--format", "json", "-q", "-e",
                 ";\n".join(script)],
                capture_output=True, text=True, timeout=300)
        if proc.returncode != 0:
            lines = ";\n".join(script).split("\n")
            at = re.search(r"line (\d+)", proc.stderr)
            failed = lines[int(at.group(1)) - 1] if at and int(at.group(1)) <= len(lines) else ""
            print(f"round {rnd}: tributary failed:\n{proc.stderr}  at: {failed}", file=sys.stderr)
            return 1
        results, current = [], []
        for line in proc.stdout.splitlines():
            obj = json.loads(line)
            if obj.get("sep") == SEP:
                results.append(current)
                current = []
            else:
                current.append(tuple(obj.values()))
        if len(results) != len(queries):
            print(f"round {rnd}: {len(results)} results for {len(queries)} queries",
                  file=sys.stderr)
            return 1
        for q, got in zip(queries, results):
            total += 1
            want = [tuple(r) for r in lite.execute(q).fetchall()]
            nonempty += bool(want)
            if sorted(map(repr, got)) != sorted(map(repr, want)):
                failures += 1
                print(f"round {rnd}: results differ for\n  {q}\n  tributary ({len(got)} rows): "
                      f"{sorted(got, key=repr)[:8]}\n  sqlite ({len(want)} rows): "
                      f"{sorted(want, key=repr)[:8]}", file=sys.stderr)
    print(f"joins, set operations, windows and subqueries differential: {total} queries "
          f"({nonempty} with rows), {failures} differ")
    # Empty compared with empty proves little: most queries must have rows to compare.
    if nonempty < MIN_NONEMPTY * total:
        print(f"FAIL: only {nonempty} of {total} queries have rows (want at least "
              f"{MIN_NONEMPTY:.0%})", file=sys.stderr)
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
