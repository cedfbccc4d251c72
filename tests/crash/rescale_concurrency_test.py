#!/usr/bin/env python3
"""A rescale while a writer keeps writing (issue 12, part 4): `tributary ingest` upserts into a
partitioned fixed-bucket table, committing every 10 events, while `CALL sys.rescale` rewrites
its partitions into 3, 4 and 5 buckets again and again. The ingest must never fail (a writer
whose partition was rescaled under it routes its pending rows to the new layout), every rescale
either commits or fails saying nothing was rescaled (it lost to the writer: nothing is lost
either way), at least one commits, and the final table holds exactly the last value of every
key.

  python3 tests/crash/rescale_concurrency_test.py --binary build/tributary
"""
import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import threading
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    ap.add_argument("--events", type=int, default=3000)
    args = ap.parse_args()
    wh = tempfile.mkdtemp(prefix="trib_rescale_")

    def sql(q):
        return subprocess.run([args.binary, "sql", "--warehouse", wh, "--format", "json", "-e", q],
                              capture_output=True, text=True, timeout=300)

    try:
        sql("CREATE TABLE t (id INT, dt STRING, v INT, PRIMARY KEY (id, dt) NOT ENFORCED) "
            "PARTITIONED BY (dt) WITH ('bucket' = '2')")
        ingest = subprocess.Popen([args.binary, "ingest", "--warehouse", wh, "--table",
                                   "default.t", "--format", "debezium-json", "--commit-every",
                                   "10", "-"], stdin=subprocess.PIPE,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        expected = {}

        def feed():
            try:
                for n in range(1, args.events + 1):
                    k = n % 300
                    row = {"id": k, "dt": "a" if k % 2 else "b", "v": n}
                    ingest.stdin.write(json.dumps({"before": None, "after": row, "op": "c"}) +
                                       "\n")
                    ingest.stdin.flush()
                    expected[(k, row["dt"])] = n
                    # Pauses leave the rescales room to commit between the writer's commits.
                    time.sleep(0.15 if n % 200 == 0 else 0.001)
            except BrokenPipeError:
                pass

        feeder = threading.Thread(target=feed)
        feeder.start()
        committed = refused = 0
        while feeder.is_alive():
            r = sql("CALL sys.rescale(`table` => 'default.t', bucket_num => %d)" %
                    (3 + (committed + refused) % 3))
            if r.returncode == 0:
                committed += 1
            elif "nothing was rescaled" in r.stderr:
                refused += 1
            else:
                print("FAIL: a rescale failed otherwise: " + r.stderr.strip()[-500:],
                      file=sys.stderr)
                return 1
        feeder.join()
        try:
            ingest.stdin.close()
        except BrokenPipeError:
            pass  # the ingest stopped: its status says why
        rc = ingest.wait(timeout=120)
        err = ingest.stderr.read()
        if rc != 0:
            print("FAIL: the ingest failed during rescales: " + err.strip()[-500:],
                  file=sys.stderr)
            return 1
        rows = [json.loads(l) for l in sql("SELECT * FROM t").stdout.splitlines() if l.strip()]
        got = {(r["id"], r["dt"]): r["v"] for r in rows}
        if len(rows) != len(got) or got != expected:
            print("FAIL: the table holds %d rows (%d keys) that differ from the %d expected" %
                  (len(rows), len(got), len(expected)), file=sys.stderr)
            return 1
        if committed == 0:
            print("FAIL: no rescale committed (%d refused)" % refused, file=sys.stderr)
            return 1
        print("rescale_concurrency_test: %d rescales committed, %d lost to the writer and "
              "changed nothing; the ingest of %d events never failed; the table holds the last "
              "value of every key" % (committed, refused, args.events))
        return 0
    finally:
        shutil.rmtree(wh, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
