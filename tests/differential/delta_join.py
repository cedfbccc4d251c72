#!/usr/bin/env python3
"""Differential test of the streaming delta join (issue 13 part 5): a streaming SELECT joins two
primary-key tables while other processes insert, update and delete rows on both sides; the
changes it emits (+I, -U, +U, -D), applied in order to an empty multiset, must equal the batch
join of the two tables after the last commit (and, in every other round, which goes one commit
at a time, after every commit), and no retraction may remove a row that is not there. Each round starts the stream from 'full' after some rows exist, so the start-up seam is
crossed too. Rounds vary the delta join's cache ('table.exec.delta-join.*': the default, none,
or one of a few keys, so keys are dropped and read again), the tables' changelog producer, and
whether the join also compares a column that updates change (a row's join key moves while its
primary key stays).

  python3 tests/differential/delta_join.py --binary build/tributary [--rounds N] [--seed S]

Python 3 standard library only."""
import os
import time

from stream_check import main, materialize_matches, run, stream_while, wait_for_match


def random_statement(rng, table):
    if table == "a":
        i = rng.randrange(12)
        kind = rng.random()
        if kind < 0.5:
            return f"INSERT INTO a VALUES ({i}, {rng.randrange(2)}, 'v{rng.randrange(100)}')"
        if kind < 0.65:
            return f"UPDATE a SET v = 'u{rng.randrange(100)}' WHERE id = {i}"
        if kind < 0.8:
            return f"UPDATE a SET g = {rng.randrange(2)} WHERE id = {i}"
        return f"DELETE FROM a WHERE id = {i}"
    i, s = rng.randrange(12), rng.randrange(3)
    kind = rng.random()
    if kind < 0.5:
        return (f"INSERT INTO b VALUES ({i}, {s}, {rng.randrange(2)}, 'w{rng.randrange(100)}'), "
                f"({rng.randrange(12)}, {s}, {rng.randrange(2)}, 'x')")
    if kind < 0.65:
        return f"UPDATE b SET w = 'z{rng.randrange(100)}' WHERE id = {i}"
    if kind < 0.8:
        return f"UPDATE b SET g = {rng.randrange(2)} WHERE id = {i} AND s = {s}"
    return f"DELETE FROM b WHERE id = {i} AND s = {s}"


def one_round(binary, rng, workdir, r):
    wh = os.path.join(workdir, f"wh{r}")
    buckets = rng.choice([1, 2, 3])
    producer = rng.choice(["none", "lookup"])
    run(binary, wh,
        f"CREATE TABLE a (id INT, g INT, v STRING, PRIMARY KEY (id) NOT ENFORCED) "
        f"WITH ('bucket' = '{buckets}', 'changelog-producer' = '{producer}');"
        f"CREATE TABLE b (id INT, s INT, g INT, w STRING, PRIMARY KEY (id, s) NOT ENFORCED) "
        f"WITH ('bucket' = '{rng.choice([1, 2])}', 'bucket-key' = 'id', "
        f"'changelog-producer' = '{producer}')")
    for _ in range(rng.randrange(0, 4)):
        run(binary, wh, random_statement(rng, rng.choice("ab")))
    on = "a.id = b.id" + (" AND a.g = b.g" if rng.random() < 0.5 else "")
    select = f"SELECT a.id, a.g, a.v, b.s, b.g, b.w FROM a JOIN b ON {on}"
    # Each cache setting in turn, so make test's four rounds run every one.
    cache = ["", "SET 'table.exec.delta-join.cache-enabled' = 'false'; ",
             "SET 'table.exec.delta-join.left.cache-size' = '1'; "
             "SET 'table.exec.delta-join.right.cache-size' = '2'; ",
             "SET 'table.exec.delta-join.left.cache-size' = '3'; "][r % 4]
    query = cache + select
    out_path = os.path.join(workdir, f"stream{r}.csv")

    # Every other round goes a commit at a time: after each, the materialized stream must come to
    # the batch join of the two tables as they are then.
    stepwise = r % 2 == 1
    mismatches = []

    def writes():
        for n in range(rng.randrange(6, 14)):
            if mismatches:
                return
            if rng.random() < 0.4:
                # Both sides committed within milliseconds: the join sees two new snapshots at
                # once and must join each with the other side as processed, not as latest.
                a = f"INSERT INTO a VALUES ({rng.randrange(12)}, {rng.randrange(2)}, 'p{rng.randrange(100)}')"
                b = (f"INSERT INTO b VALUES ({rng.randrange(12)}, {rng.randrange(3)}, "
                     f"{rng.randrange(2)}, 'q{rng.randrange(100)}')")
                first, second = (a, b) if rng.random() < 0.5 else (b, a)
                run(binary, wh, f"EXECUTE STATEMENT SET BEGIN {first}; {second}; END")
            else:
                run(binary, wh, random_statement(rng, rng.choice("ab")))
            if stepwise:
                if not wait_for_match(out_path, run(binary, wh, select),
                                      f"round {r} after commit {n + 1}"):
                    mismatches.append(n)
            elif rng.random() < 0.3:
                time.sleep(0.1)

    err = stream_while(binary, wh, query, out_path, writes)
    if err is not None:
        print(f"round {r}: the streaming query failed: {err}")
        return False
    if mismatches:
        return False
    batch = run(binary, wh, select)
    return materialize_matches(out_path, batch, f"round {r} ({producer}, {cache or 'default cache'}ON {on})")


if __name__ == "__main__":
    main("delta join", one_round)
