#!/usr/bin/env python3
"""SQL logic test runner for `tributary sql` (duckdb's sqllogictest format).

Each test file runs against a fresh temporary warehouse. Every statement or query record runs as
its own `tributary sql` process, so durability is checked by every record (a `restart` record also
drops the session state, see below).

Records (separated by blank lines):
  statement ok                 the SQL that follows must succeed
  statement error [text]       it must fail (exit status 1) and stderr must contain `text`
  query <types> [rowsort] [idle-timeout-ms=N]
                               it must print these rows: SQL, then a line `----`, then one row
                               per line, values separated by tabs (or by single spaces when no
                               tab is present); NULL for null, (empty) for an empty string;
                               booleans true/false; a line break inside a
                               value as \n. One type letter per column: I integer,
                               T text, R real, B boolean (checked as the column count only).
                               idle-timeout-ms=N runs it with `--idle-timeout-ms N`: a
                               streaming query ends once it has returned every committed change
                               and N ms passed without a new one, so every row it prints is
                               checked (a LIMIT ending never shows a wrong row after the last
                               expected one).
  restart                      start a new session (forget USE / SET / CREATE CATALOG)
  skipif s3 [why]              (on the line before a record) the record does not run with --s3:
                               what works only on a local disk (say why)
  onlyif s3                    (on the line before a record) the record runs only with --s3
  __WAREHOUSE__ in SQL is the file's temporary warehouse directory (for CREATE CATALOG).
  # comment
Session statements (USE, SET, RESET, CREATE CATALOG, USE CATALOG, CREATE TEMPORARY VIEW,
DROP [TEMPORARY] VIEW) that succeed are replayed
before each later record, as if the records shared one shell session.

With --s3 every file's warehouse is on the test S3 server instead (s3://tb/<file>: s3rver behind
the proxy that answers conditional writes as S3 does, tests/crash/s3rver/s3server.py); a file
whose first line is `# local-only: <why>` is skipped there, saying why; a record after
`skipif s3` is skipped there, one after `onlyif s3` runs only there (what object storage refuses).

Usage: run.py --binary build/tributary [--slow] [--s3] [-j N] [-v] PATH...
PATH is a test file or a directory searched for *.test (*.test_slow with --slow).
"""

import argparse
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

SESSION_RE = re.compile(r"^\s*(USE|SET|RESET|CREATE\s+CATALOG|CREATE\s+TEMPORARY\s+VIEW|"
                        r"DROP\s+(TEMPORARY\s+)?VIEW)\b", re.IGNORECASE)
USE_DB_RE = re.compile(r"^\s*USE\s+(?!CATALOG\b)", re.IGNORECASE)
VIEW_RE = re.compile(r"^\s*(CREATE\s+TEMPORARY\s+|DROP\s+(TEMPORARY\s+)?)VIEW\b", re.IGNORECASE)
TIMEOUT_S = 120


class Record:
    def __init__(self, kind, line, header):
        self.kind = kind  # statement_ok, statement_error, query, restart
        self.line = line
        self.header = header
        self.sql_lines = []
        self.expected = []
        self.error_text = ""
        self.types = ""
        self.sort = "nosort"
        self.idle_timeout_ms = None  # query: run with --idle-timeout-ms
        self.on_s3 = None  # True: only with --s3 (onlyif s3); False: only without (skipif s3)

    @property
    def sql(self):
        return "\n".join(self.sql_lines)


def parse_file(path):
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    records = []
    on_s3 = None  # the condition of the next record (skipif s3 / onlyif s3)
    i = 0
    while i < len(lines):
        raw = lines[i]
        stripped = raw.strip()
        if not stripped or stripped.startswith("#"):
            if on_s3 is not None:
                raise ValueError(f"{path}:{i + 1}: skipif/onlyif must be followed by a record")
            i += 1
            continue
        words = stripped.split()
        line_no = i + 1
        if words[0] in ("skipif", "onlyif"):
            if len(words) < 2 or words[1] != "s3" or on_s3 is not None:
                raise ValueError(f"{path}:{line_no}: expected '{words[0]} s3' before a record")
            on_s3 = words[0] == "onlyif"
            i += 1
            continue
        if words[0] == "restart":
            records.append(Record("restart", line_no, stripped))
            records[-1].on_s3, on_s3 = on_s3, None
            i += 1
            continue
        if words[0] == "statement":
            if len(words) < 2 or words[1] not in ("ok", "error"):
                raise ValueError(f"{path}:{line_no}: expected 'statement ok' or 'statement error'")
            rec = Record("statement_" + words[1], line_no, stripped)
            if words[1] == "error":
                rec.error_text = stripped.split(None, 2)[2] if len(words) > 2 else ""
        elif words[0] == "query":
            rec = Record("query", line_no, stripped)
            rec.types = words[1] if len(words) > 1 else ""
            for word in words[2:]:
                if word.startswith("idle-timeout-ms="):
                    value = word.split("=", 1)[1]
                    if not value.isdigit():
                        raise ValueError(f"{path}:{line_no}: idle-timeout-ms needs a number")
                    rec.idle_timeout_ms = int(value)
                elif word in ("nosort", "rowsort"):
                    rec.sort = word
                else:
                    raise ValueError(f"{path}:{line_no}: unknown query option '{word}'")
        else:
            raise ValueError(f"{path}:{line_no}: unknown record '{words[0]}'")
        rec.on_s3, on_s3 = on_s3, None
        i += 1
        in_result = False
        while i < len(lines) and lines[i].strip() != "":
            if rec.kind == "query" and lines[i].strip() == "----" and not in_result:
                in_result = True
            elif in_result:
                rec.expected.append(lines[i])
            else:
                rec.sql_lines.append(lines[i])
            i += 1
        if not rec.sql_lines:
            raise ValueError(f"{path}:{line_no}: record without SQL")
        records.append(rec)
    return records


def render(value):
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        # A value spanning lines is written on one line with \n for each line break.
        return value.replace("\n", "\\n") if value != "" else "(empty)"
    if isinstance(value, (dict, list)):
        return json.dumps(value, separators=(",", ":"))
    return str(value)


def plain(value):
    """Objects were read as lists of (key, value) pairs to keep their order; make them dicts."""
    if isinstance(value, list):
        if value and all(isinstance(x, tuple) for x in value):
            return {k: plain(v) for k, v in value}
        return [plain(x) for x in value]
    return value


def parse_json_rows(stdout):
    rows = []
    for line in stdout.splitlines():
        if not line.strip():
            continue
        obj = json.loads(line, parse_float=str, parse_int=str,
                         object_pairs_hook=lambda pairs: pairs)
        rows.append([render(plain(v)) for _, v in obj])
    return rows


def normalize(text):
    return " ".join(text.split())


def rows_match(actual, expected_lines):
    if len(actual) != len(expected_lines):
        return False
    for row, line in zip(actual, expected_lines):
        if "\t" in line:
            if row != line.split("\t"):
                return False
        elif normalize(" ".join(row)) != normalize(line):
            return False
    return True


class FileRunner:
    def __init__(self, binary, path, verbose, s3=None):
        self.binary = binary
        self.path = path
        self.verbose = verbose
        self.s3 = s3  # the test S3 server, or None for a local warehouse
        self.session = []
        self.passed = 0
        self.failures = []
        self.skipped = None  # why the file did not run

    def run_sql(self, warehouse, sql, fmt="json", idle_timeout_ms=None):
        cmd = [self.binary, "sql", "--warehouse", warehouse, "--format", fmt]
        if idle_timeout_ms is not None:
            cmd += ["--idle-timeout-ms", str(idle_timeout_ms)]
        for s in self.session:
            cmd += ["-e", s.replace("__WAREHOUSE__", warehouse)]
        cmd += ["-e", sql.replace("__WAREHOUSE__", warehouse)]
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT_S,
                               stdin=subprocess.DEVNULL,
                               env=self.s3.env() if self.s3 else None)
        except subprocess.TimeoutExpired:
            return None, "", f"timed out after {TIMEOUT_S} s"
        return p.returncode, p.stdout, p.stderr

    def fail(self, rec, message):
        self.failures.append(f"FAIL {self.path}:{rec.line}: {rec.header}\n"
                             + "\n".join("    " + l for l in rec.sql_lines) + "\n"
                             + "\n".join("  " + l for l in message.rstrip().split("\n")))

    def run(self):
        try:
            records = parse_file(self.path)
        except (ValueError, OSError) as e:
            self.failures.append(f"FAIL {e}")
            return self
        if self.s3:
            with open(self.path) as f:
                first = f.readline()
            if first.startswith("# local-only:"):
                self.skipped = first[len("# local-only:"):].strip()
                return self
            # A prefix of its own in the bucket, nothing to remove (the server's store goes).
            name = re.sub(r"[^A-Za-z0-9_-]", "-", os.path.relpath(self.path))
            warehouse = "s3://tb/sqllogic/" + name
            for rec in records:
                if self.failures:
                    break
                self.run_record(rec, warehouse)
            return self
        warehouse = tempfile.mkdtemp(prefix="sqllogic-")
        try:
            for rec in records:
                if self.failures:
                    break  # later records usually depend on the failed one
                self.run_record(rec, warehouse)
        finally:
            shutil.rmtree(warehouse, ignore_errors=True)
        return self

    def run_record(self, rec, warehouse):
        if rec.on_s3 is not None and rec.on_s3 != bool(self.s3):
            return  # skipif s3 / onlyif s3
        if rec.kind == "restart":
            self.session = []
            self.passed += 1
            return
        rc, out, err = self.run_sql(warehouse, rec.sql, idle_timeout_ms=rec.idle_timeout_ms)
        if rc is None:
            self.fail(rec, err)
            return
        if rec.kind == "statement_error":
            if rc == 0:
                self.fail(rec, "expected an error, but the statement succeeded\n" + out)
            elif rc != 1:
                self.fail(rec, f"expected exit status 1, got {rc} (a crash?)\n{err}")
            elif rec.error_text and rec.error_text not in err:
                self.fail(rec, f"expected the error to contain: {rec.error_text}\n"
                               f"actual stderr:\n{err}")
            else:
                self.passed += 1
            return
        if rc != 0:
            self.fail(rec, f"exit status {rc}\n{err}")
            return
        if rec.kind == "statement_ok":
            if SESSION_RE.match(rec.sql):
                if USE_DB_RE.match(rec.sql):
                    # Only the latest USE matters (an earlier database may be gone by now), but
                    # for the temporary views made under an earlier one: keep the USEs before
                    # the last view statement, drop those after it.
                    views = [i for i, s in enumerate(self.session) if VIEW_RE.match(s)]
                    keep = views[-1] if views else -1
                    self.session = [s for i, s in enumerate(self.session)
                                    if i < keep or not USE_DB_RE.match(s)]
                self.session.append(rec.sql)
            self.passed += 1
            return
        try:
            rows = parse_json_rows(out)
        except ValueError as e:
            self.fail(rec, f"output is not JSON lines ({e}):\n{out}")
            return
        if rec.types and rows and any(len(r) != len(rec.types) for r in rows):
            self.fail(rec, f"query returns {len(rows[0])} columns but the record declares "
                           f"{len(rec.types)} ({rec.types})")
            return
        expected = list(rec.expected)
        if rec.sort == "rowsort":
            rows = sorted(rows)
            expected = sorted(expected, key=lambda l: l.split("\t") if "\t" in l else l.split())
        if not rows_match(rows, expected):
            actual = "\n".join("\t".join(r) for r in rows)
            self.fail(rec, "wrong result\nexpected:\n" + "\n".join(expected)
                      + "\nactual:\n" + actual)
            return
        self.passed += 1


def collect(paths, slow):
    suffix = ".test_slow" if slow else ".test"
    files = []
    for p in paths:
        if os.path.isdir(p):
            for root, _, names in os.walk(p):
                files += [os.path.join(root, n) for n in names if n.endswith(suffix)]
        elif os.path.exists(p):
            files.append(p)
        else:
            print(f"run.py: no such file or directory: {p}", file=sys.stderr)
            sys.exit(2)
    return sorted(files)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--binary", default="build/tributary")
    ap.add_argument("--slow", action="store_true", help="run *.test_slow instead of *.test")
    ap.add_argument("-j", "--jobs", type=int, default=2, help="files run in parallel")
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("--s3", action="store_true",
                    help="warehouses on the test S3 server (s3rver) instead of local disk")
    ap.add_argument("paths", nargs="*", default=["tests/sql"])
    args = ap.parse_args()
    if args.s3:
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                        "crash", "s3rver"))
        from s3server import S3Server
        with S3Server() as s3:
            code = run_all(args, s3)
            said = s3.proxy_said()
            if code and said:
                print("the conditional proxy said: " + said)
            return code
    return run_all(args, None)


def run_all(args, s3):
    binary = os.path.abspath(args.binary)
    if not os.access(binary, os.X_OK):
        print(f"run.py: {binary} is not an executable; build it first", file=sys.stderr)
        return 2
    files = collect(args.paths, args.slow)
    if not files:
        # A runner that finds nothing to run must not pass (make test-slow once ran nothing).
        print("sqllogic: no test files found")
        return 1
    failed_files = 0
    records = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        runners = [FileRunner(binary, f, args.verbose, s3) for f in files]
        skipped = 0
        for r in pool.map(lambda r: r.run(), runners):
            records += r.passed + len(r.failures)
            if r.skipped is not None:
                skipped += 1
                print(f"skip {r.path}: local only ({r.skipped})", flush=True)
                continue
            if r.failures:
                failed_files += 1
                for f in r.failures:
                    print(f, flush=True)
            elif args.verbose:
                print(f"ok   {r.path} ({r.passed} records)", flush=True)
    where = " on S3" if s3 else ""
    print(f"sqllogic{where}: {len(files)} files, {records} records run, "
          f"{len(files) - failed_files - skipped} files passed, {failed_files} failed"
          + (f", {skipped} local only" if skipped else ""))
    return 1 if failed_files else 0


if __name__ == "__main__":
    sys.exit(main())
