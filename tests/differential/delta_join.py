#!/usr/bin/env python3
"""Differential test of the streaming delta join (issue 13 part 5): a streaming SELECT joins two
primary-key tables while other processes insert, update and delete rows on both sides; the
changes it emits (+I, -U, +U, -D), applied in order to an empty multiset, must equal the batch
join of the two tables after the last commit, and no retraction may remove a row that is not
there. Each round starts the stream from 'full' after some rows exist, so the start-up seam is
crossed too.

  python3 tests/differential/delta_join.py --binary build/tributary [--rounds N] [--seed S]

Python 3 standard library only."""
import os
import time

from stream_check import main, materialize_matches, run, stream_while


def random_statement(rng, table):
    if table == "a":
        i = rng.randrange(12)
        kind = rng.random()
        if kind < 0.6:
            return f"INSERT INTO a VALUES ({i}, 'v{rng.randrange(100)}')"
        if kind < 0.8:
            return f"UPDATE a SET v = 'u{rng.randrange(100)}' WHERE id = {i}"
        return f"DELETE FROM a WHERE id = {i}"
    i, s = rng.randrange(12), rng.randrange(3)
    kind = rng.random()
    if kind < 0.6:
        return f"INSERT INTO b VALUES ({i}, {s}, 'w{rng.randrange(100)}'), ({rng.randrange(12)}, {s}, 'x')"
    if kind < 0.8:
        return f"UPDATE b SET w = 'z{rng.randrange(100)}' WHERE id = {i}"
    return f"DELETE FROM b WHERE id = {i} AND s = {s}"


def one_round(binary, rng, workdir, r):
    wh = os.path.join(workdir, f"wh{r}")
    buckets = rng.choice([1, 2, 3])
    run(binary, wh,
        f"CREATE TABLE a (id INT, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '{buckets}');"
        f"CREATE TABLE b (id INT, s INT, w STRING, PRIMARY KEY (id, s) NOT ENFORCED) "
        f"WITH ('bucket' = '{rng.choice([1, 2])}', 'bucket-key' = 'id')")
    for _ in range(rng.randrange(0, 4)):
        run(binary, wh, random_statement(rng, rng.choice("ab")))
    query = "SELECT a.id, a.v, b.s, b.w FROM a JOIN b ON a.id = b.id"
    out_path = os.path.join(workdir, f"stream{r}.csv")

    def writes():
        for _ in range(rng.randrange(6, 14)):
            if rng.random() < 0.4:
                # Both sides committed within milliseconds: the join sees two new snapshots at
                # once and must join each with the other side as processed, not as latest.
                a = f"INSERT INTO a VALUES ({rng.randrange(12)}, 'p{rng.randrange(100)}')"
                b = f"INSERT INTO b VALUES ({rng.randrange(12)}, {rng.randrange(3)}, 'q{rng.randrange(100)}')"
                first, second = (a, b) if rng.random() < 0.5 else (b, a)
                run(binary, wh, f"EXECUTE STATEMENT SET BEGIN {first}; {second}; END")
            else:
                run(binary, wh, random_statement(rng, rng.choice("ab")))
            if rng.random() < 0.3:
                time.sleep(0.1)

    err = stream_while(binary, wh, query, out_path, writes)
    if err is not None:
        print(f"round {r}: the streaming query failed: {err}")
        return False
    batch = run(binary, wh, "SELECT a.id, a.v, b.s, b.w FROM a JOIN b ON a.id = b.id")
    return materialize_matches(out_path, batch, f"round {r}")


if __name__ == "__main__":
    main("delta join", one_round)
