#!/usr/bin/env python3
"""'continuous.discovery-interval' is honoured (issue 42 item 5): a streaming reader that found no
new snapshot looks again only after the interval, as a hint or as a table option, however
often the shell polls it. (A lower bound on time only: a reader cannot see a change before its
next look; nothing here asserts how fast anything is.)
Usage: discovery_interval_test.py path/to/tributary"""
import os
import shutil
import subprocess
import sys
import tempfile
import time


def main():
    binary = os.path.abspath(sys.argv[1])
    tmp = tempfile.mkdtemp(prefix="tributary-discovery-")
    failures = 0
    try:
        for how in ["hint", "table option"]:
            wh = os.path.join(tmp, how.replace(" ", "-"))
            option = ", 'continuous.discovery-interval' = '3 s'" if how == "table option" else ""
            hint = " /*+ OPTIONS('continuous.discovery-interval' = '3 s') */" if how == "hint" else ""
            subprocess.run([binary, "sql", "--warehouse", wh, "-e",
                            "CREATE TABLE t (id BIGINT, PRIMARY KEY (id) NOT ENFORCED) WITH "
                            "('bucket' = '1', 'changelog-producer' = 'input'%s); "
                            "INSERT INTO t VALUES (1)" % option],
                           check=True, capture_output=True, timeout=60)
            p = subprocess.Popen([binary, "sql", "--warehouse", wh, "--format", "json", "-e",
                                  "SET 'execution.runtime-mode' = 'streaming'; "
                                  "SELECT * FROM t%s LIMIT 2" % hint],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            first = p.stdout.readline()
            seen_first = time.monotonic()
            subprocess.run([binary, "sql", "--warehouse", wh, "-e", "INSERT INTO t VALUES (2)"],
                           check=True, capture_output=True, timeout=60)
            second = p.stdout.readline()
            waited = time.monotonic() - seen_first
            p.wait(timeout=60)
            ok = '"id": 1' in first and '"id": 2' in second and p.returncode == 0
            if not ok or waited < 2.5:
                failures += 1
                print("FAIL %s: rows %r %r, exit %s, the second row after %.2f s (the interval "
                      "is 3 s)" % (how, first, second, p.returncode, waited))
            else:
                print("ok   %s: the second row after %.2f s (interval 3 s)" % (how, waited))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
