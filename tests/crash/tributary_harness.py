"""Shared helpers of the crash and concurrency tests: drive `tributary` as a black box and check
the invariants every committed table must keep, whatever happened to its writers.

A warehouse is a local directory, or with `--s3` (`s3_server(True)`) a prefix `s3://tb/...` on the
test S3 server (tests/crash/s3rver/s3server.py: s3rver behind the proxy that answers conditional
writes as AWS S3 does); the same checks hold on both.

Python 3 standard library only. Every helper raises `Failure` with a message that says what was
expected and what was found.
"""

import collections
import contextlib
import json
import os
import shutil
import subprocess
import sys

CRASH_EXIT = 86  # exit status of a process stopped at TRIBUTARY_CRASH_AT (src/io/file_system.cc)
TIMEOUT_S = 120


class Failure(Exception):
    """A checked property does not hold."""


def s3_server(enabled):
    """`with s3_server(args.s3) as s3:` starts the test S3 server for the run when enabled;
    s3 is None otherwise."""
    if not enabled:
        return contextlib.nullcontext()
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "s3rver"))
    from s3server import S3Server
    return S3Server()


def warehouse_in(root, name, s3=None):
    """Warehouse `name` of a run whose scratch directory is `root`: a directory in it, or on the
    test S3 server a prefix named after both (several runs may share one server)."""
    if s3 is None:
        return os.path.join(root, name)
    return "s3://tb/%s/%s" % (os.path.basename(root), name)


class Tributary:
    """One warehouse driven through `tributary sql` and `tributary ingest` processes; `s3`, the
    test S3 server (s3server.S3Server) when the warehouse is on it."""

    def __init__(self, binary, warehouse, s3=None):
        self.binary = binary
        self.warehouse = warehouse
        self.s3 = s3

    def _env(self, crash_at=None):
        env = self.s3.env() if self.s3 else dict(os.environ)
        env.pop("TRIBUTARY_CRASH_AT", None)
        env.pop("TRIBUTARY_WAREHOUSE", None)
        if crash_at:
            env["TRIBUTARY_CRASH_AT"] = crash_at
        return env

    def sql_cmd(self, text, fmt="json"):
        return [self.binary, "sql", "--warehouse", self.warehouse, "--format", fmt, "-e", text]

    def ingest_cmd(self, table, path, commit_every=None):
        cmd = [self.binary, "ingest", "--warehouse", self.warehouse, "--table", table,
               "--format", "debezium-json"]
        if commit_every:
            cmd += ["--commit-every", str(commit_every)]
        return cmd + [path]

    def run(self, cmd, crash_at=None, expect=0, what=None):
        """Runs cmd; fails unless its exit status is `expect` (None: any). Returns the process."""
        p = subprocess.run(cmd, capture_output=True, text=True, env=self._env(crash_at),
                           timeout=TIMEOUT_S)
        if expect is not None and p.returncode != expect:
            raise Failure("%s: expected exit status %d, got %d\n  command: %s\n  stderr: %s" %
                          (what or "command", expect, p.returncode, _short(cmd),
                           p.stderr.strip()[-2000:]))
        return p

    def sql(self, text, crash_at=None, expect=0, what=None):
        return self.run(self.sql_cmd(text), crash_at=crash_at, expect=expect, what=what or text)

    def query(self, text, what=None):
        """Rows of one or more queries as dicts (--format json)."""
        p = self.sql(text, what=what)
        rows = []
        for line in p.stdout.splitlines():
            line = line.strip()
            if not line:
                continue
            try:
                rows.append(json.loads(line))
            except ValueError:
                raise Failure("%s: stdout line is not JSON: %r" % (what or text, line))
        return rows

    def snapshots(self, table):
        return sorted(self.query("SELECT * FROM %s$snapshots" % table),
                      key=lambda r: r["snapshot_id"])

    def files(self, table):
        return self.query("SELECT * FROM %s$files" % table)

    def file_size(self, path):
        """The size of a file of the warehouse (a path or an s3:// URI), None when it is absent."""
        if self.s3 is not None:
            return self.s3.object_size(path)
        return os.path.getsize(path) if os.path.isfile(path) else None

    def file_names(self, path):
        """The names of the files at any depth under a directory of the warehouse."""
        if self.s3 is not None:
            return [k.rsplit("/", 1)[-1] for k in self.s3.object_keys_under(path)]
        return [n for _, _, names in os.walk(path) for n in names]


def copy_binary(binary, directory):
    """Copies the binary into `directory` (so that a rebuild during the test cannot replace it
    under the running test) and returns the copy's path."""
    copy = os.path.join(directory, "tributary")
    shutil.copy2(binary, copy)
    return copy


def default_work_dir():
    """/dev/shm when it is a writable directory, else the default temporary directory."""
    if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK):
        return "/dev/shm"
    return None


def _short(cmd):
    s = " ".join(cmd)
    return s if len(s) < 400 else s[:400] + "..."


def check_table_invariants(t, table, primary_key=None, expiring=False):
    """Checks what must hold of any table after any crash. Returns (snapshots, files).

    - `t$snapshots` reads and its ids are contiguous from 1 (nothing expires in these tests;
      `expiring`: contiguous from the oldest retained one);
    - totalRecordCount of every snapshot = the previous one's + its deltaRecordCount;
    - the latest totalRecordCount = the sum of record_count over `t$files` (the live files);
    - every live file exists (on disk or in the store) with the size the manifest records;
    - with a primary key: no key appears twice in `SELECT *`.
    """
    snaps = t.snapshots(table)
    ids = [s["snapshot_id"] for s in snaps]
    first = ids[0] if expiring and ids else 1
    if ids != list(range(first, first + len(ids))):
        raise Failure("%s: snapshot ids are not contiguous from %d: %s" % (table, first, _ids(ids)))
    prev = snaps[0]["total_record_count"] - snaps[0]["delta_record_count"] if snaps else 0
    for s in snaps:
        total, delta = s["total_record_count"], s["delta_record_count"]
        if total != prev + delta:
            raise Failure("%s: snapshot %d has totalRecordCount %s but the previous total %d + "
                          "deltaRecordCount %s = %d" % (table, s["snapshot_id"], total, prev,
                                                       delta, prev + delta))
        prev = total
    files = t.files(table)
    live = sum(f["record_count"] for f in files)
    if snaps and snaps[-1]["total_record_count"] != live:
        raise Failure("%s: latest snapshot %d has totalRecordCount %d but its live files hold %d "
                      "records" % (table, ids[-1], snaps[-1]["total_record_count"], live))
    if not snaps and files:
        raise Failure("%s: no snapshot but $files lists %d files" % (table, len(files)))
    for f in files:
        path = f["file_path"]
        size = t.file_size(path)
        if size is None:
            raise Failure("%s: live file %s does not exist" % (table, path))
        if size != f["file_size_in_bytes"]:
            raise Failure("%s: live file %s is %d bytes, its manifest says %d" %
                          (table, path, size, f["file_size_in_bytes"]))
    if primary_key:
        rows = t.query("SELECT %s FROM %s" % (primary_key, table))
        dup = [k for k, n in collections.Counter(r[primary_key] for r in rows).items() if n > 1]
        if dup:
            raise Failure("%s: keys appear more than once: %s" % (table, sorted(dup)[:20]))
    return snaps, files


def _ids(ids):
    if len(ids) <= 30:
        return str(ids)
    return "%s ... %s (%d ids)" % (ids[:10], ids[-10:], len(ids))


def rows_by_key(rows, key="id"):
    out = {}
    for r in rows:
        if r[key] in out:
            raise Failure("key %r appears twice: %r and %r" % (r[key], out[r[key]], r))
        out[r[key]] = r
    return out


def diff_keyed(expected, actual, limit=8):
    """A readable difference of two {key: row} dicts ('' when equal)."""
    lines = []
    for k in sorted(set(expected) | set(actual)):
        e, a = expected.get(k), actual.get(k)
        if e != a:
            lines.append("  key %r: expected %s, got %s" % (k, e, a))
    if len(lines) > limit:
        lines = lines[:limit] + ["  ... %d differences in all" % len(lines)]
    return "\n".join(lines)


def diff_multiset(expected, actual, limit=8):
    """A readable difference of two lists of hashable rows ('' when equal as multisets)."""
    ce, ca = collections.Counter(expected), collections.Counter(actual)
    missing = list((ce - ca).elements())
    extra = list((ca - ce).elements())
    if not missing and not extra:
        return ""
    return "  missing %d rows %s\n  unexpected %d rows %s" % (
        len(missing), sorted(missing)[:limit], len(extra), sorted(extra)[:limit])
