#!/usr/bin/env python3
"""Differential test of Flink's top-N pattern in streaming mode (src/sql/stream/streaming_rank.cc): a
streaming `SELECT ... FROM (SELECT ..., ROW_NUMBER() OVER (PARTITION BY cat ORDER BY ...) AS rn
FROM t) WHERE rn <= N` follows a table while random INSERTs, UPDATEs and DELETEs commit to it
(changelog producers none and lookup, which give a complete changelog whatever is written; 'input'
passes an upsert INSERT on as +I without its -U, as Paimon does); the stream, materialized (+I/+U add a row, -U/-D remove exactly
a row held), must equal the same query run in batch mode after the last commit, with no
retraction of a row that is not held.

  python3 tests/differential/streaming_topn.py --binary build/tributary [--seed N] [--rounds N]
"""
import os
import time


from stream_check import main, materialize_matches, run, stream_while


def random_statement(rng):
    i = rng.randrange(16)
    kind = rng.random()
    if kind < 0.55:
        return (f"INSERT INTO t VALUES ({i}, '{rng.choice('abc')}', {rng.randrange(10)}), "
                f"({rng.randrange(16)}, '{rng.choice('abc')}', {rng.randrange(10)})")
    if kind < 0.8:
        return f"UPDATE t SET amt = {rng.randrange(10)} WHERE id = {i}"
    return f"DELETE FROM t WHERE id = {i}"


def one_round(binary, rng, workdir, r):
    wh = os.path.join(workdir, f"wh{r}")
    producer = rng.choice(["none", "lookup"])
    run(binary, wh,
        f"CREATE TABLE t (id INT, cat STRING, amt INT, PRIMARY KEY (id) NOT ENFORCED) "
        f"WITH ('bucket' = '{rng.choice([1, 2])}', 'changelog-producer' = '{producer}')")
    for _ in range(rng.randrange(0, 4)):
        run(binary, wh, random_statement(rng))
    n = rng.choice([1, 2, 3])
    with_rn = rng.random() < 0.7
    order = rng.choice(["amt DESC, id", "amt, id DESC"])
    cond = rng.choice([f"rn <= {n}", f"rn < {n + 1}"] + (["rn = 1"] if n == 1 else []))
    columns = "id, cat, amt" + (", rn" if with_rn else "")
    select = (f"SELECT {columns} FROM (SELECT id, cat, amt, ROW_NUMBER() OVER (PARTITION BY cat "
              f"ORDER BY {order}) AS rn FROM t) WHERE {cond}")
    out_path = os.path.join(workdir, f"stream{r}.csv")

    def writes():
        for _ in range(rng.randrange(6, 14)):
            run(binary, wh, random_statement(rng))
            if rng.random() < 0.3:
                time.sleep(0.1)

    err = stream_while(binary, wh, select, out_path, writes)
    if err is not None:
        print(f"round {r}: the streaming query failed: {err}")
        return False
    batch = run(binary, wh, select)
    return materialize_matches(out_path, batch, f"round {r} ({producer}, {select})")


if __name__ == "__main__":
    main("streaming top-N", one_round)
