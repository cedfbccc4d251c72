#!/usr/bin/env python3
"""`tributary serve` (issue 39, first part): psql from Debian against the server on a loopback
port. A table is created, written (INSERT, UPDATE, DELETE) and read through the server, and what
the server wrote is what `tributary sql` reads from the lake; several statements in one query;
errors carry SQLSTATE codes and the session goes on after them; a second connection sees the
first one's writes; a client written here speaks the extended query protocol (prepared
statements with $n parameters, portals with row limits, errors skipped to the Sync); what is not
supported yet (binary bytea parameters, streaming mode, --data-dir) and
another user or a missing database are refused; SIGTERM stops the server with exit status 0.

    pg_wire_test.py --binary build/tributary

Python 3 standard library plus psql (postgresql-client, installed by scripts/setup.sh).
"""
import argparse
import base64
import hashlib
import hmac
import os
import re
import random
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import zlib


class Failure(Exception):
    pass


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, binary, warehouse, port, env=None):
        self.port = port
        self.proc = subprocess.Popen(
            [binary, "serve", "--warehouse", warehouse, "--listen", "127.0.0.1:%d" % port],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env=dict(os.environ, **(env or {})))
        deadline = time.time() + 20
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise Failure("the server exited at start: %s" % self.proc.stderr.read())
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    return
            except OSError:
                time.sleep(0.05)
        raise Failure("the server did not listen on port %d within 20 s" % port)

    def psql(self, sql, expect_ok=True, user="tributary", db="default", extra=(), password=None):
        cmd = ["psql", "-X", "-w", "-A", "-t", "-q", "-v", "ON_ERROR_STOP=0", "-v",
               "VERBOSITY=verbose", "-h", "127.0.0.1", "-p", str(self.port), "-U", user, "-d",
               db] + list(extra) + ["-c", sql]
        env = dict(os.environ, PGCONNECT_TIMEOUT="10", PGSSLMODE="prefer")
        env.pop("PGPASSWORD", None)
        if password is not None:
            env["PGPASSWORD"] = password
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=60, env=env)
        if expect_ok and (p.returncode != 0 or "ERROR" in p.stderr):
            raise Failure("psql %r failed (%d): %s" % (sql, p.returncode, p.stderr.strip()))
        return p

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise Failure("the server did not stop within 20 s of SIGTERM")
        return self.proc.returncode


def lines(p):
    return [l for l in p.stdout.splitlines() if l.strip()]


def expect_error(server, sql, sqlstate, words):
    p = server.psql(sql, expect_ok=False)
    if "ERROR:  %s:" % sqlstate not in p.stderr or words not in p.stderr:
        raise Failure("%r: expected ERROR %s mentioning %r, got: %s %s" %
                      (sql, sqlstate, words, p.stdout, p.stderr))


def read_message(sock):
    def exactly(n):
        data = b""
        while len(data) < n:
            chunk = sock.recv(n - len(data))
            if not chunk:
                raise Failure("the server closed the connection")
            data += chunk
        return data
    head = exactly(5)
    return chr(head[0]), exactly(struct.unpack("!i", head[1:])[0] - 4)


def message(kind, body):
    return kind.encode() + struct.pack("!i", len(body) + 4) + body


def exchange(sock, data):
    """Sends `data` (messages ending in Sync or a simple query) and returns the messages the
    server answers with, up to its ReadyForQuery."""
    sock.sendall(data)
    got = []
    while not got or got[-1][0] != "Z":
        got.append(read_message(sock))
    return got


def raw_extended_protocol(port):
    """A client speaking the protocol by hand, as drivers do: Parse / Bind / Describe / Execute /
    Sync with $n parameters (declared and undeclared types), a row limit that suspends the
    portal, named statements run twice, errors that skip to the Sync, and what is refused."""
    with socket.create_connection(("127.0.0.1", port), timeout=20) as sock:
        params = b"user\0tributary\0database\0default\0\0"
        sock.sendall(struct.pack("!ii", len(params) + 8, 196608) + params)
        kinds = []
        while not kinds or kinds[-1] != "Z":
            kinds.append(read_message(sock)[0])
        if kinds[0] != "R" or "K" not in kinds:
            raise Failure("startup answered with %r" % kinds)

        def parse(name, query, oids=()):
            return message("P", name + b"\0" + query + b"\0" + struct.pack("!h", len(oids)) +
                           b"".join(struct.pack("!i", o) for o in oids))

        def bind(portal, name, values, formats=(), results=()):
            body = portal + b"\0" + name + b"\0" + struct.pack("!h", len(formats))
            body += b"".join(struct.pack("!h", f) for f in formats)
            body += struct.pack("!h", len(values))
            for v in values:
                body += struct.pack("!i", -1) if v is None else struct.pack("!i", len(v)) + v
            body += struct.pack("!h", len(results))
            return message("B", body + b"".join(struct.pack("!h", f) for f in results))

        def execute(portal, rows=0):
            return message("E", portal + b"\0" + struct.pack("!i", rows))

        sync = message("S", b"")
        # A named statement with a declared INT parameter, run twice.
        got = exchange(sock, parse(b"by_id", b"SELECT id, name FROM t WHERE id = $1", [23]) +
                       bind(b"", b"by_id", [b"2"]) + message("D", b"P\0") + execute(b"") + sync)
        if [k for k, _ in got] != ["1", "2", "T", "D", "C", "Z"] or b"b" not in got[3][1]:
            raise Failure("Parse/Bind/Describe/Execute of a point lookup: %r" % got)
        got = exchange(sock, bind(b"", b"by_id", [b"1"]) + execute(b"") + sync)
        if [k for k, _ in got] != ["2", "D", "C", "Z"] or b"a" not in got[1][1]:
            raise Failure("the named statement run again: %r" % got)
        # An undeclared parameter is a string, which a comparison converts as it would a string
        # literal.
        got = exchange(sock, parse(b"", b"SELECT name FROM t WHERE id = $1") +
                       bind(b"", b"", [b"2"]) + execute(b"") + sync)
        if [k for k, _ in got] != ["1", "2", "D", "C", "Z"] or b"b" not in got[2][1]:
            raise Failure("an undeclared parameter compared with an INT column: %r" % got)
        # An INSERT with a declared INT and an undeclared NULL.
        got = exchange(sock, parse(b"", b"INSERT INTO t VALUES ($1, $2, 6.5, TRUE)", [23]) +
                       bind(b"", b"", [b"6", None]) + execute(b"") + sync)
        if [k for k, _ in got] != ["1", "2", "C", "Z"] or b"INSERT 0 1" not in got[2][1]:
            raise Failure("an INSERT with parameters: %r" % got)
        # A row limit suspends the portal; the next Execute goes on.
        got = exchange(sock, parse(b"", b"SELECT id FROM t WHERE id >= $1 ORDER BY id", [20]) +
                       bind(b"p1", b"", [b"5"]) + execute(b"p1", 1) + execute(b"p1", 5) + sync)
        if [k for k, _ in got] != ["1", "2", "D", "s", "D", "C", "Z"] or \
                b"5" not in got[2][1] or b"6" not in got[4][1]:
            raise Failure("a portal run with a row limit: %r" % got)
        # Errors: the rest up to the Sync is skipped, then ReadyForQuery.
        got = exchange(sock, bind(b"", b"by_id", []) + execute(b"") + sync)
        if [k for k, _ in got] != ["E", "Z"] or b"C08P01" not in got[0][1]:
            raise Failure("a Bind with too few parameters: %r" % got)
        got = exchange(sock, bind(b"", b"by_id", [b"x"]) + sync)
        if [k for k, _ in got] != ["E", "Z"] or b"C22P02" not in got[0][1]:
            raise Failure("a parameter that is not an integer: %r" % got)
        # A binary int4 parameter, the row asked for in binary (int4: 4 bytes, big-endian).
        got = exchange(sock, bind(b"", b"by_id", [b"\0\0\0\1"], formats=[1], results=[1]) +
                       message("D", b"P\0") + execute(b"") + sync)
        if [k for k, _ in got] != ["2", "T", "D", "C", "Z"] or \
                struct.pack("!ihih", 23, 4, -1, 1) not in got[1][1] or \
                not got[2][1].startswith(b"\0\2" + struct.pack("!i", 4) + b"\0\0\0\1"):
            raise Failure("a binary parameter and result: %r" % got)
        for values, formats, results, code in (([b"\0\0\1"], [1], [], b"C08P01"),
                                               ([b"1"], [2], [], b"C08P01"),
                                               ([b"1"], [0, 0], [], b"C08P01")):
            got = exchange(sock, bind(b"", b"by_id", values, formats=formats, results=results) +
                           sync)
            if [k for k, _ in got] != ["E", "Z"] or code not in got[0][1]:
                raise Failure("a bad Bind (%r, formats %r): %r" % (values, formats, got))
        got = exchange(sock, parse(b"", b"SELECT 1; SELECT 2") + sync)
        if [k for k, _ in got] != ["E", "Z"] or b"multiple commands" not in got[0][1]:
            raise Failure("two statements in a Parse: %r" % got)
        got = exchange(sock, bind(b"", b"nope", []) + sync)
        if [k for k, _ in got] != ["E", "Z"] or b"C26000" not in got[0][1]:
            raise Failure("a Bind of a statement never parsed: %r" % got)
        # Closed statements are gone; a simple query still runs after all this.
        got = exchange(sock, message("C", b"Sby_id\0") + bind(b"", b"by_id", [b"1"]) + sync)
        if [k for k, _ in got] != ["3", "E", "Z"]:
            raise Failure("Close then Bind: %r" % got)
        got = exchange(sock, message("Q", b"SELECT 41 + 1\0"))
        if [k for k, _ in got] != ["T", "D", "C", "Z"] or b"42" not in got[1][1]:
            raise Failure("a simple query after the extended protocol: %r" % got)
        sock.sendall(message("X", b""))


class RawClient:
    """A minimal PostgreSQL client (simple queries), for many connections from one test."""

    def __init__(self, port):
        self.port = port
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=60)
        params = b"user\0tributary\0database\0default\0\0"
        self.sock.sendall(struct.pack("!ii", len(params) + 8, 196608) + params)
        self.key = None  # BackendKeyData: (process id, secret), for cancel requests
        while True:
            kind, body = read_message(self.sock)
            if kind == "K":
                self.key = struct.unpack("!ii", body)
            if kind == "Z":
                break

    def cancel(self, key=None):
        """Sends a CancelRequest with this connection's key (or `key`) on a new connection."""
        pid, secret = key or self.key
        with socket.create_connection(("127.0.0.1", self.port), timeout=10) as s:
            s.sendall(struct.pack("!iiii", 16, 80877102, pid, secret))
            s.recv(1)  # the server closes it without an answer

    def query(self, sql):
        """The rows of the query's last statement returning rows (lists of str or None)."""
        self.sock.sendall(message("Q", sql.encode() + b"\0"))
        rows, error = [], None
        while True:
            kind, body = read_message(self.sock)
            if kind == "T":
                rows = []
            elif kind == "D":
                n = struct.unpack("!h", body[:2])[0]
                at, row = 2, []
                for _ in range(n):
                    ln = struct.unpack("!i", body[at:at + 4])[0]
                    at += 4
                    row.append(None if ln < 0 else body[at:at + ln].decode())
                    at += max(ln, 0)
                rows.append(row)
            elif kind == "E":
                error = body
            elif kind == "Z":
                break
        if error is not None:
            raise Failure("%r: %r" % (sql, error))
        return rows

    def close(self):
        self.sock.sendall(message("X", b""))
        self.sock.close()


def load(server, writers=3, subscribers=2, statements=25, seed=7):
    """N writers x M subscribers on loopback, bounded: each writer inserts, updates and deletes
    keys of its own through the server while each subscriber follows the table with FETCH and
    applies the changes to a map; once the writers are done, every subscriber's map equals the
    table."""
    server.psql("CREATE TABLE lt (id INT, v STRING, PRIMARY KEY (id) NOT ENFORCED) "
                "WITH ('bucket' = '2')")
    errors = []

    def writer(w):
        try:
            rng = random.Random(seed + w)
            c = RawClient(server.port)
            for i in range(statements):
                k = w * 1000 + rng.randint(0, 9)
                r = rng.random()
                if r < 0.6:
                    c.query("INSERT INTO lt VALUES (%d, 'w%d-%d')" % (k, w, i))
                elif r < 0.8:
                    c.query("UPDATE lt SET v = 'u%d-%d' WHERE id = %d" % (w, i, k))
                else:
                    c.query("DELETE FROM lt WHERE id = %d" % k)
            c.close()
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append("writer %d: %s" % (w, e))

    subs = [RawClient(server.port) for _ in range(subscribers)]
    for c in subs:
        c.query("SET 'execution.runtime-mode' = 'streaming'")
        c.query("DECLARE c CURSOR FOR SELECT id, v FROM lt")
    threads = [threading.Thread(target=writer, args=(w,)) for w in range(writers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    if errors:
        raise Failure("load: " + "; ".join(errors))
    checker = RawClient(server.port)
    table = {int(r[0]): r[1] for r in checker.query("SELECT id, v FROM lt")}
    checker.close()
    for n, c in enumerate(subs):
        state, deadline = {}, time.time() + 60
        while state != table:
            if time.time() > deadline:
                raise Failure("load: subscriber %d holds %r, the table %r" % (n, state, table))
            for op, k, v in c.query("FETCH 100 FROM c"):
                if op in ("+I", "+U"):
                    state[int(k)] = v
                else:
                    state.pop(int(k), None)
        c.query("CLOSE c")
        c.close()
    print("  ok  %d writers x %d subscribers through the server: every subscription equals the "
          "table (%d rows)" % (writers, subscribers, len(table)))


def kill_under_load(binary, warehouse, rounds=3, writers=4, seed=11):
    """kill -9 of the server while writers insert through it: after each kill a new server on
    the same warehouse starts, every row whose statement was acknowledged is there, each
    statement's rows are all there or none, and nothing is there that no statement wrote."""
    rng = random.Random(seed)
    server = Server(binary, warehouse, free_port())
    server.psql("CREATE TABLE kl (id INT, w INT, PRIMARY KEY (id) NOT ENFORCED) "
                "WITH ('bucket' = '2')")
    statements = {}  # first id -> the ids of one INSERT
    acked = set()  # first ids of acknowledged INSERTs
    lock = threading.Lock()
    next_id = [0]
    try:
        for r in range(rounds):
            stop = threading.Event()

            def writer(w):
                try:
                    c = RawClient(server.port)
                except OSError:
                    return
                while not stop.is_set():
                    with lock:
                        first = next_id[0]
                        next_id[0] += 3
                        statements[first] = [first, first + 1, first + 2]
                    try:
                        c.query("INSERT INTO kl VALUES (%d, %d), (%d, %d), (%d, %d)" %
                                (first, w, first + 1, w, first + 2, w))
                    except (OSError, Failure, struct.error, IndexError):
                        return  # the server is gone
                    with lock:
                        acked.add(first)

            threads = [threading.Thread(target=writer, args=(w,)) for w in range(writers)]
            for t in threads:
                t.start()
            time.sleep(rng.uniform(0.5, 1.5))
            server.proc.kill()  # SIGKILL: no flush, no goodbye
            server.proc.wait()
            stop.set()
            for t in threads:
                t.join(timeout=60)
            server = Server(binary, warehouse, free_port())
            c = RawClient(server.port)
            present = {int(row[0]) for row in c.query("SELECT id FROM kl")}
            c.close()
            lost = sorted(i for f in acked for i in statements[f] if i not in present)
            if lost:
                raise Failure("kill %d: acknowledged rows are gone: %r" % (r + 1, lost[:10]))
            for first, ids in statements.items():
                there = [i in present for i in ids]
                if any(there) and not all(there):
                    raise Failure("kill %d: the INSERT of %r is in part: %r" % (r + 1, ids, there))
            stray = present - {i for ids in statements.values() for i in ids}
            if stray:
                raise Failure("kill %d: rows no statement wrote: %r" % (r + 1, sorted(stray)[:10]))
        # The lake is whole for the CLI too.
        cli = subprocess.run([binary, "sql", "--warehouse", warehouse, "--format", "csv", "-e",
                              "SELECT count(*) FROM kl"], capture_output=True, text=True,
                             timeout=60)
        if cli.returncode != 0 or int(cli.stdout.split()[-1]) != len(present):
            raise Failure("after the kills the CLI reads %r %r, the server %d rows" %
                          (cli.stdout, cli.stderr, len(present)))
    finally:
        server.stop()
    print("  ok  %d kill -9 of the server under %d writers: %d acknowledged INSERTs all there, "
          "no statement in part, %d rows" % (rounds, writers, len(acked), len(present)))


def cancel_requests(server):
    """A cancel request with a connection's key stops its running statement (57014) and the
    connection goes on; one with a wrong secret cancels nothing."""
    server.psql("CREATE TABLE ct (id INT, PRIMARY KEY (id) NOT ENFORCED)")
    a = RawClient(server.port)
    a.query("SET 'execution.runtime-mode' = 'streaming'")
    a.query("DECLARE c CURSOR FOR SELECT id FROM ct")
    result = {}

    def fetch():
        started = time.time()
        try:
            result["rows"] = a.query("FETCH 10 FROM c")
        except Failure as e:
            result["error"] = str(e)
        result["seconds"] = time.time() - started

    # A wrong secret: the FETCH (waiting for a change of the empty table) goes on waiting.
    t = threading.Thread(target=fetch)
    t.start()
    time.sleep(0.5)
    a.cancel((a.key[0], a.key[1] ^ 1))
    time.sleep(0.7)
    if not t.is_alive():
        raise Failure("a cancel request with a wrong secret ended the FETCH: %r" % result)
    # The right key: the FETCH fails with 57014 at once.
    a.cancel()
    t.join(timeout=10)
    if t.is_alive() or "57014" not in result.get("error", "") or \
            "canceling statement due to user request" not in result["error"]:
        raise Failure("a cancelled FETCH: %r" % result)
    # The connection goes on; its cursor went with the cancelled FETCH.
    a.query("RESET 'execution.runtime-mode'")
    if a.query("SELECT 41 + 1") != [["42"]]:
        raise Failure("the connection after a cancel request")
    # A batch query too: a long cross join is cut short, and says so.
    a.query("CREATE TABLE big (x INT)")
    a.query("INSERT INTO big VALUES " + ", ".join("(%d)" % i for i in range(2000)))
    result.clear()

    def long_query():
        try:
            result["rows"] = a.query("SELECT count(*) FROM big b1, big b2, big b3")
        except Failure as e:
            result["error"] = str(e)

    t = threading.Thread(target=long_query)
    t.start()
    time.sleep(0.5)
    a.cancel()
    t.join(timeout=60)
    if t.is_alive() or "57014" not in result.get("error", ""):
        raise Failure("a cancelled batch query: %r" % result)
    a.close()
    print("  ok  cancel requests: a waiting FETCH and a long query stop with 57014, the "
          "connection goes on; a wrong secret cancels nothing")


def show_stats(server):
    """SHOW STATS counts what the server did: statements, rows written and returned, open
    connections and subscriptions, cancels; its memory; the tiering state."""
    c = RawClient(server.port)

    def stats():
        return {name: value for name, value in c.query("SHOW STATS")}

    before = stats()
    c.query("CREATE TABLE st (id INT, PRIMARY KEY (id) NOT ENFORCED) WITH "
            "('table.datalake.freshness' = '1 h')")
    c.query("INSERT INTO st VALUES (1), (2), (3)")
    selected = c.query("SELECT id FROM st")
    pending = stats()  # the query read the log's entry with the lake: still pending
    shown = c.query("SHOW TABLES")  # a statement other than a query or a plain write tiers
    after = stats()
    rows = len(before)

    def delta(name):
        return int(after[name]) - int(before[name])

    want = {"statements": 6, "rows_written": 3,
            "rows_returned": rows + len(selected) + len(pending) + len(shown),
            "statements_failed": 0}
    got = {k: delta(k) for k in want}
    if got != want:
        raise Failure("SHOW STATS deltas %r, expected %r (before %r, after %r)" %
                      (got, want, before, after))
    if pending["hot_tier_entries_pending"] != "1":
        raise Failure("a query tiered the log: %r" % pending)
    if int(after["connections_open"]) < 1 or int(after["statements_cancelled"]) < 2 or \
            int(after["memory_resident_bytes"]) <= 0 or after["tiering"] != "ok" or \
            after["hot_tier_entries_pending"] != "0" or \
            int(after["hot_tier_tierings"]) <= int(before["hot_tier_tierings"]):
        raise Failure("SHOW STATS: %r" % after)
    try:
        c.query("SELECT * FROM nowhere")
    except Failure:
        pass
    if int(stats()["statements_failed"]) != int(after["statements_failed"]) + 1:
        raise Failure("SHOW STATS does not count a failed statement")
    c.close()
    print("  ok  SHOW STATS: statements, rows written and returned, failures, cancels, "
          "connections, memory and tiering")


def waiting_subscriber(server, table):
    """A subscriber of `table` on a thread of its own (streaming mode, DECLARE, a FETCH of what
    the table holds, then a FETCH that waits for a change); after a second it waits in that
    second FETCH. Returns the thread and the dict its psql output lands in ("p")."""
    result = {}

    def subscriber():
        result["p"] = server.psql(
            "SET 'execution.runtime-mode' = 'streaming'; DECLARE c CURSOR FOR SELECT id, v FROM "
            "%s; FETCH 10 FROM c; FETCH 5 FROM c; CLOSE c" % table)
    thread = threading.Thread(target=subscriber)
    thread.start()
    time.sleep(1.0)
    return thread, result


def followed_tables(server, cli, logs):
    """With the server's interval long: a write into a table an open subscription follows is
    tiered at once (the subscriber gets it), one into a table nobody follows stays in its log."""
    server.psql("CREATE TABLE fa (id INT, v STRING, PRIMARY KEY (id) NOT ENFORCED)")
    server.psql("CREATE TABLE fb (id INT, v STRING, PRIMARY KEY (id) NOT ENFORCED)")
    server.psql("INSERT INTO fa VALUES (1, 'a')")
    thread, result = waiting_subscriber(server, "fa")
    server.psql("INSERT INTO fb VALUES (1, 'b')")
    time.sleep(1.0)
    pending_b = logs("fb")
    server.psql("INSERT INTO fa VALUES (2, 'a2')")
    thread.join(timeout=60)
    if thread.is_alive():
        raise Failure("a write into the followed table fa was not tiered for its subscriber")
    got = lines(result["p"])
    if got != ["+I|1|a", "+I|2|a2"]:
        raise Failure("the subscription of fa: %r" % got)
    if not pending_b or logs("fb") != pending_b or cli("SELECT COUNT(*) FROM fb") != ["0"]:
        raise Failure("a write into fb, which no subscription follows, was tiered at once: "
                      "logs %r then %r, the lake holds %r rows" %
                      (pending_b, logs("fb"), cli("SELECT COUNT(*) FROM fb")))
    server.psql("SELECT COUNT(*) FROM fb$snapshots")  # (tiered: nothing of fb is left pending)
    print("  ok  a write into a table a subscription follows is tiered at once, one into a "
          "table none follows waits for the interval")


def subscription(server):
    """A subscription: DECLARE ... CURSOR in streaming mode, FETCH hands out the table's rows
    (+I, from a full start-up), then waits for the next change, which another connection
    commits; FETCH of a cursor not declared and DECLARE in batch mode are refused."""
    server.psql("CREATE TABLE s (id INT, v STRING, PRIMARY KEY (id) NOT ENFORCED)")
    server.psql("INSERT INTO s VALUES (1, 'a'), (2, 'b')")
    thread, result = waiting_subscriber(server, "s")
    if not thread.is_alive():
        raise Failure("the second FETCH did not wait for a change: %r" %
                      (lines(result["p"]) if "p" in result else "?"))
    server.psql("UPDATE s SET v = 'b2' WHERE id = 2")
    thread.join(timeout=60)
    if thread.is_alive():
        raise Failure("the second FETCH did not return after a change was committed")
    got = lines(result["p"])
    if got[:2] != ["+I|1|a", "+I|2|b"] or got[2:] != ["-U|2|b", "+U|2|b2"]:
        raise Failure("a subscription's FETCHes: %r" % got)
    expect_error(server, "FETCH 1 FROM nope", "34000", "nope")
    expect_error(server, "DECLARE c CURSOR FOR SELECT * FROM s", "0A000", "streaming")


PSYCOPG_JOBS = r"""
import sys
import psycopg
dsn = "host=127.0.0.1 port=%s user=tributary dbname=default" % sys.argv[1]
c = psycopg.connect(dsn, autocommit=True)
c.execute("SET 'execution.runtime-mode' = 'streaming'")
job = c.execute("INSERT INTO job_dst SELECT id, v FROM job_src").fetchone()[0]
rows = c.execute("SHOW JOBS").fetchall()
if not any(r[0] == job and r[2] == "RUNNING" for r in rows):
    print("SHOW JOBS through the extended protocol: %r" % rows)
    sys.exit(1)
said = c.execute("STOP JOB '%s'" % job).fetchone()[0]
if "stopped" not in said:
    print("STOP JOB through the extended protocol: %r" % said)
    sys.exit(1)
# Prepared in batch mode, run in streaming mode: it starts a job.
c.execute("RESET 'execution.runtime-mode'")
try:
    c.execute("INSERT INTO job_dst SELECT id, v FROM job_src WHERE id > 100", prepare=True)
    c.execute("SET 'execution.runtime-mode' = 'streaming'")
    job = c.execute("INSERT INTO job_dst SELECT id, v FROM job_src WHERE id > 100",
                    prepare=True).fetchone()[0]
except psycopg.Error as e:
    print("an INSERT prepared in batch mode, run in streaming mode: %s" % e)
    sys.exit(1)
c.execute("STOP JOB '%s'" % job)
# Prepared in streaming mode (a job statement), run in batch mode: refused, not taken for
# something else.
job = c.execute("INSERT INTO job_dst SELECT id, v FROM job_src WHERE id > 200",
                prepare=True).fetchone()[0]
c.execute("STOP JOB '%s'" % job)
c.execute("RESET 'execution.runtime-mode'")
try:
    c.execute("INSERT INTO job_dst SELECT id, v FROM job_src WHERE id > 200", prepare=True)
    print("a job statement prepared in streaming mode ran in batch mode")
    sys.exit(1)
except psycopg.Error as e:
    if "prepare it again" not in str(e):
        print("a job statement prepared in streaming mode, run in batch mode: %s" % e)
        sys.exit(1)
print("ok")
"""


def server_jobs(server):
    """A streaming INSERT INTO ... SELECT sent to the server starts a job the server runs (its
    id answered at once); the job follows its source's writes from any connection; SHOW JOBS
    lists it, STOP JOB stops it (committing what it read), and the same INSERT started again
    resumes where it stopped; a job that cannot start is the statement's error."""
    server.psql("CREATE TABLE job_src (id INT, v STRING, PRIMARY KEY (id) NOT ENFORCED)")
    # (The sink keeps its log an hour: a row logged before the job starts must reach the lake
    # before the job's first commit, or it would land after it.)
    server.psql("CREATE TABLE job_dst (id INT, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH "
                "('table.datalake.freshness' = '1 h')")
    server.psql("INSERT INTO job_src VALUES (1, 'a')")
    server.psql("INSERT INTO job_dst VALUES (1, 'old')")
    streaming = "SET 'execution.runtime-mode' = 'streaming'; SET 'pipeline.name' = 'copier'; "
    job = lines(server.psql(streaming + "INSERT INTO job_dst SELECT id, UPPER(v) FROM job_src"))
    if len(job) != 1 or not re.fullmatch(r"[0-9a-f]{32}", job[0]):
        raise Failure("a streaming INSERT through the server answers its job id: %r" % job)
    job = job[0]

    def wait_for(sql, want):
        deadline = time.time() + 30
        while lines(server.psql(sql)) != want:
            if time.time() > deadline:
                raise Failure("%r: %r, expected %r" % (sql, lines(server.psql(sql)), want))
            time.sleep(0.1)

    # Its first commit (the row read at its start) comes before the next write of the source.
    deadline = time.time() + 30
    while not any(l.startswith(job) and l.split("|")[6] != "0"
                  for l in lines(server.psql("SHOW JOBS"))):
        if time.time() > deadline:
            raise Failure("the job did not commit: %r" % lines(server.psql("SHOW JOBS")))
        time.sleep(0.1)
    server.psql("INSERT INTO job_src VALUES (2, 'b')")
    wait_for("SELECT id, v FROM job_dst ORDER BY id", ["1|A", "2|B"])
    jobs = [l.split("|") for l in lines(server.psql("SHOW JOBS"))]
    mine = [j for j in jobs if j[0] == job]
    stats = dict(l.split("|", 1) for l in lines(server.psql("SHOW STATS")))
    if len(mine) != 1 or mine[0][1:3] != ["copier", "RUNNING"] or stats["jobs_running"] != "1":
        raise Failure("SHOW JOBS while it runs: %r, jobs_running %r" %
                      (jobs, stats["jobs_running"]))
    said = lines(server.psql("STOP JOB '%s'" % job))
    if len(said) != 1 or "Job 'copier' stopped" not in said[0]:
        raise Failure("STOP JOB: %r" % said)
    mine = [l.split("|") for l in lines(server.psql("SHOW JOBS")) if l.startswith(job)]
    if mine[0][2] != "FINISHED":
        raise Failure("SHOW JOBS after STOP JOB: %r" % mine)
    # Started again, it resumes after what it committed: the row written while it was stopped
    # arrives, and the earlier ones are not read twice.
    server.psql("INSERT INTO job_src VALUES (3, 'c')")
    again = lines(server.psql(streaming + "/* a comment first */ INSERT INTO job_dst SELECT id, "
                                          "UPPER(v) FROM job_src"))
    wait_for("SELECT id, v FROM job_dst ORDER BY id", ["1|A", "2|B", "3|C"])
    said = lines(server.psql("STOP JOB '%s'" % again[0]))
    if "1 change(s) written" not in said[0]:
        raise Failure("a job started again read more than what came since it stopped: %r" % said)
    expect_error(server, "STOP JOB 'nope'", "42704", "does not exist")
    expect_error(server, streaming + "INSERT INTO job_dst SELECT * FROM nowhere", "42P01",
                 "nowhere")
    expect_error(server, "CREATE TEMPORARY VIEW tv AS SELECT id, v FROM job_src; " + streaming +
                 "INSERT INTO job_dst SELECT id, v FROM tv", "0A000", "temporary views")
    run_psycopg(PSYCOPG_JOBS, server, "jobs through the extended protocol")
    # One left running: the server's SIGTERM (at the end of the run) stops it first.
    server.psql(streaming + "INSERT INTO job_dst SELECT id, v FROM job_src")
    print("  ok  jobs: a streaming INSERT through the server runs as a job (its id answered), "
          "follows its source, SHOW JOBS / STOP JOB, resumes where it stopped")


def expect_start_refused(binary, warehouse, env, words):
    """`tributary serve` with `env` exits 1 at start, its message holding every one of `words`."""
    r = subprocess.run([binary, "serve", "--warehouse", warehouse, "--listen",
                        "127.0.0.1:%d" % free_port()], capture_output=True, text=True,
                       timeout=30, env=dict(os.environ, **env))
    if r.returncode != 1 or not all(w in r.stderr for w in words):
        raise Failure("serve with %s: expected exit 1 naming %r: %d %r" %
                      (env, words, r.returncode, r.stderr))


def lake_reader(binary, warehouse):
    """A function running SQL on the warehouse with the CLI (the lake alone), giving its CSV rows."""
    def cli(sql):
        r = subprocess.run([binary, "sql", "--warehouse", warehouse, "--format", "csv", "-e", sql],
                           capture_output=True, text=True, timeout=60)
        if r.returncode != 0:
            raise Failure("tributary sql %r: %s" % (sql, r.stderr))
        return r.stdout.split()[1:]
    return cli


def log_reader(data):
    """A function listing a table's hot tier log files in data directory `data`."""
    def logs(table):
        d = os.path.join(data, "default", table)
        return sorted(f for f in os.listdir(d) if f.endswith(".log")) if os.path.isdir(d) else []
    return logs


PSYCOPG_UNION_LOOKUPS = r"""
import sys
import psycopg
dsn = "host=127.0.0.1 port=%s user=tributary dbname=default" % sys.argv[1]
w = psycopg.connect(dsn, autocommit=True)
r = psycopg.connect(dsn, autocommit=True)
for i in range(8):
    w.execute("INSERT INTO u VALUES (%s, %s)", (7, "p%d" % i))
    # A prepared point lookup (planned once, then answered by key) sees each write at once.
    got = r.execute("SELECT v FROM u WHERE id = %s", (7,), prepare=True).fetchall()
    if got != [("p%d" % i,)]:
        print("prepared lookup after write %d: %r" % (i, got))
        sys.exit(1)
print("ok")
"""


def union_reads(server, cli):
    """Queries through the server read the lake's latest snapshot with what the hot tier holds
    past it, merged by the table's merge engine, and commit nothing: scans, counts, point
    lookups (prepared ones too), joins, partition filters; time travel reads the lake's
    snapshot alone; a deletion-vector table is tiered before it is read."""
    def q(sql):
        return lines(server.psql(sql))

    def tier(table):
        server.psql("SELECT COUNT(*) FROM %s$snapshots" % table)

    server.psql("CREATE TABLE u (id INT, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH "
                "('bucket' = '2')")
    server.psql("CREATE TABLE u_copy (id INT, v STRING, PRIMARY KEY (id) NOT ENFORCED)")
    server.psql("INSERT INTO u VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd')")
    tier("u")
    server.psql("INSERT INTO u VALUES (2, 'b2')")
    # UPDATE, DELETE and INSERT ... SELECT of a primary-key table read with the log too, and
    # their rows are logged after what they read: none of them commits.
    server.psql("DELETE FROM u WHERE id = 3")
    server.psql("INSERT INTO u VALUES (5, 'e'), (1, 'a2'), (6, 'f'), (9, 'i')")
    server.psql("UPDATE u SET v = 'E' WHERE v = 'e'")
    server.psql("UPDATE u SET v = 'e' WHERE id = 5")
    server.psql("DELETE FROM u WHERE v = 'i'")
    server.psql("INSERT INTO u_copy SELECT id, v FROM u WHERE id > 4")
    if lines(server.psql("SELECT id, v FROM u_copy ORDER BY id")) != ["5|e", "6|f"] or \
            cli("SELECT COUNT(*) FROM u_copy") != ["0"]:
        raise Failure("INSERT ... SELECT of pending rows: %r" %
                      lines(server.psql("SELECT id, v FROM u_copy ORDER BY id")))
    want = ["1|a2", "2|b2", "4|d", "5|e", "6|f"]
    lake = ["1,a", "2,b", "3,c", "4,d"]
    checks = [
        ("SELECT id, v FROM u ORDER BY id", want),
        ("SELECT COUNT(*), SUM(id) FROM u", ["5|18"]),
        ("SELECT v FROM u WHERE id = 1", ["a2"]),
        ("SELECT v FROM u WHERE id = 3", []),
        ("SELECT v FROM u WHERE id IN (5, 6) ORDER BY v", ["e", "f"]),
        ("SELECT a.id, b.v FROM u a JOIN u b ON a.id = b.id WHERE a.id > 4 ORDER BY a.id",
         ["5|e", "6|f"]),
        # Time travel reads a snapshot of the lake: nothing of the log.
        ("SELECT COUNT(*) FROM u /*+ OPTIONS('scan.snapshot-id' = '1') */", ["4"]),
    ]
    for sql, expected in checks:
        got = q(sql)
        if got != expected:
            raise Failure("union read %r: %r, expected %r" % (sql, got, expected))
    if cli("SELECT id, v FROM u ORDER BY id") != lake:
        raise Failure("union reads committed: the lake holds %r" %
                      cli("SELECT id, v FROM u ORDER BY id"))
    run_psycopg(PSYCOPG_UNION_LOOKUPS, server, "prepared point lookups of pending writes")
    if cli("SELECT v FROM u WHERE id = 7") != [] or q("SELECT v FROM u WHERE id = 7") != ["p7"]:
        raise Failure("pending writes read by prepared lookups: lake %r, server %r" %
                      (cli("SELECT v FROM u WHERE id = 7"), q("SELECT v FROM u WHERE id = 7")))
    # Partial-update across partitions: a row's columns from the lake and from the log.
    server.psql("CREATE TABLE pu (dt STRING, id INT, a STRING, b STRING, PRIMARY KEY (dt, id) "
                "NOT ENFORCED) PARTITIONED BY (dt) WITH ('merge-engine' = 'partial-update')")
    server.psql("INSERT INTO pu VALUES ('x', 1, 'a', NULL), ('y', 2, 'c', NULL)")
    tier("pu")
    server.psql("INSERT INTO pu VALUES ('x', 1, NULL, 'b'), ('z', 3, 'e', 'f')")
    for sql, expected in (("SELECT * FROM pu ORDER BY id", ["x|1|a|b", "y|2|c|", "z|3|e|f"]),
                          ("SELECT id, b FROM pu WHERE dt = 'x'", ["1|b"]),
                          ("SELECT id FROM pu WHERE dt = 'z'", ["3"])):
        got = q(sql)
        if got != expected:
            raise Failure("union read of a partial-update table %r: %r" % (sql, got))
    # An append table: the log's rows once each.
    server.psql("CREATE TABLE ua (id INT)")
    server.psql("INSERT INTO ua VALUES (1), (2)")
    tier("ua")
    server.psql("INSERT INTO ua VALUES (3)")
    if q("SELECT COUNT(*), SUM(id) FROM ua") != ["3|6"] or cli("SELECT COUNT(*) FROM ua") != ["2"]:
        raise Failure("union read of an append table: %r" % q("SELECT COUNT(*), SUM(id) FROM ua"))
    # Deletion vectors: batch reads leave level-0 files out, so the table is tiered first.
    server.psql("CREATE TABLE udv (id INT, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH "
                "('deletion-vectors.enabled' = 'true')")
    server.psql("INSERT INTO udv VALUES (1, 'x')")
    if q("SELECT v FROM udv") != ["x"] or cli("SELECT v FROM udv") != ["x"]:
        raise Failure("a deletion-vector table read through the server is tiered first")


def hot_tier(binary, root):
    """The hot tier: INSERTs are acknowledged from the log (the lake does not have them yet),
    a query through the server reads them with the lake, a system table's read commits them
    first, SIGTERM and the freshness interval commit
    them, kill -9 loses none (replayed at the start), and a replay never applies an entry the
    lake already has (an append table would hold it twice)."""
    warehouse = os.path.join(root, "hot-wh")
    data = warehouse + "-hot"
    slow = {"TRIBUTARY_HOT_TIER_FRESHNESS_MS": "3600000"}

    cli = lake_reader(binary, warehouse)
    logs = log_reader(data)

    server = Server(binary, warehouse, free_port(), env=slow)
    try:
        server.psql("CREATE TABLE h (id INT, v STRING, PRIMARY KEY (id) NOT ENFORCED)")
        server.psql("CREATE TABLE ap (id INT, v STRING)")
        compressed = {"lz": "", "lp": " WITH ('table.log.arrow.compression.type' = 'NONE')"}
        for table, option in compressed.items():
            server.psql("CREATE TABLE %s (id INT, v STRING, PRIMARY KEY (id) NOT ENFORCED)%s" %
                        (table, option))
        for i in range(3):
            server.psql("INSERT INTO h VALUES (%d, 'v%d')" % (i, i))
        stats = dict(l.split("|", 1) for l in lines(server.psql("SHOW STATS")))
        if cli("SELECT COUNT(*) FROM h") != ["0"] or logs("h") != ["1.log"] or \
                stats["hot_tier_entries_pending"] != "3" or stats["hot_tier_rows_pending"] != "3":
            raise Failure("acknowledged INSERTs before tiering: lake %r, logs %r, stats %r" %
                          (cli("SELECT COUNT(*) FROM h"), logs("h"), stats))
        # Each entry ('table.log.format' = 'ARROW'): its sequence number, schema id, length and
        # CRC-32, then an Arrow IPC stream (continuation marker, the schema naming the columns
        # and the row kind; format_test and tests/crosscheck/arrow_js.sh check the rest).
        raw = open(os.path.join(data, "default", "h", "1.log"), "rb").read()
        at, seqs = 0, []
        while at < len(raw):
            magic, seq, _, length, crc = struct.unpack_from("<IqqII", raw, at)
            payload = raw[at + 28:at + 28 + length]
            if magic != 0x474f4c54 or zlib.crc32(raw[at + 4:at + 24] + payload) != crc or \
                    payload[:4] != b"\xff\xff\xff\xff" or b"_TRIBUTARY_ROW_KIND" not in payload:
                raise Failure("log entry at %d of h's log is not an Arrow stream: %r" %
                              (at, raw[at:at + 64]))
            seqs.append(seq)
            at += 28 + length
        if seqs != [1, 2, 3]:
            raise Failure("h's log holds entries %r, not one per INSERT" % seqs)
        # A query through the server reads the lake and the log together (union read): it sees
        # the entries and commits nothing.
        if lines(server.psql("SELECT COUNT(*) FROM h")) != ["3"] or \
                cli("SELECT COUNT(*) FROM h") != ["0"] or logs("h") != ["1.log"]:
            raise Failure("a union read: %r through the server, %r in the lake, logs %r" %
                          (lines(server.psql("SELECT COUNT(*) FROM h")),
                           cli("SELECT COUNT(*) FROM h"), logs("h")))
        union_reads(server, cli)
        # A read of a system table commits the table's log first.
        server.psql("SELECT COUNT(*) FROM h$snapshots")
        if cli("SELECT COUNT(*) FROM h") != ["3"] or logs("h"):
            raise Failure("a read of h$snapshots through the server commits h's log first")
        # The table's 'table.log.arrow.compression.type' says how its entries' buffers are
        # compressed: a long repetitive value is in a NONE table's log as it is, and not in the
        # log of a table with the default (ZSTD).
        long_value = "tributary-" * 200
        for table, option in compressed.items():
            server.psql("INSERT INTO %s VALUES (1, '%s')" % (table, long_value))
            raw = open(os.path.join(data, "default", table, logs(table)[0]), "rb").read()
            if (long_value.encode() in raw) != (table == "lp"):
                raise Failure("table %s%s: its log %s the value as written" %
                              (table, option, "holds" if table == "lz" else "does not hold"))
            server.psql("SELECT COUNT(*) FROM %s$snapshots" % table)  # tiered: nothing pending
            if cli("SELECT v FROM %s" % table) != [long_value] or logs(table):
                raise Failure("table %s: tiered %r, logs %r" %
                              (table, cli("SELECT v FROM %s" % table), logs(table)))
        followed_tables(server, cli, logs)
        server.psql("INSERT INTO h VALUES (3, 'v3'), (4, 'v4')")
        server.proc.kill()
        server.proc.wait()
        if cli("SELECT COUNT(*) FROM h") != ["3"]:
            raise Failure("kill -9 with a pending log entry: the lake has it already")
        # Tiering that dies between its commit and the log's removal: the replay skips what the
        # lake has.
        server = Server(binary, warehouse, free_port(),
                        env=dict(slow, TRIBUTARY_TEST_HOT_TIER_KEEP_LOGS="1"))
        if cli("SELECT COUNT(*) FROM h") != ["5"]:
            raise Failure("kill -9 then a start: the replay gave %r rows" %
                          cli("SELECT COUNT(*) FROM h"))
        server.psql("INSERT INTO ap VALUES (1, 'a'), (2, 'b')")
        server.psql("SELECT COUNT(*) FROM ap$snapshots")  # tiers ap
        if cli("SELECT COUNT(*) FROM ap") != ["2"] or not logs("ap"):
            raise Failure("tiering that keeps its log (a test's crash point)")
        server.proc.kill()
        server.proc.wait()
        # ... even once the snapshot that says so has expired (the committed sequence is kept
        # beside the log as well).
        for i in range(3):
            cli("INSERT INTO ap VALUES (%d, 'outside')" % (100 + i))
        cli("CALL sys.expire_snapshots('default.ap', 1, 1)")
        server = Server(binary, warehouse, free_port(), env=slow)
        if cli("SELECT COUNT(*) FROM ap WHERE id < 100") != ["2"] or logs("ap"):
            raise Failure("a replay of entries the lake had: %r rows, logs %r" %
                          (cli("SELECT COUNT(*) FROM ap WHERE id < 100"), logs("ap")))
        # A start with no log: new entries are numbered past what the lake has (else the next
        # replay would take them for committed ones and skip them).
        server.psql("INSERT INTO h VALUES (5, 'v5')")
        server.proc.kill()
        server.proc.wait()
        server = Server(binary, warehouse, free_port(), env=slow)
        if cli("SELECT COUNT(*) FROM h") != ["6"]:
            raise Failure("an entry logged after a start without logs was lost: %r rows" %
                          cli("SELECT COUNT(*) FROM h"))
        # A table dropped and created again while the server was down: its log is not the new
        # table's.
        server.psql("CREATE TABLE again (id INT)")
        server.psql("INSERT INTO again VALUES (1)")
        server.proc.kill()
        server.proc.wait()
        cli("DROP TABLE again")
        cli("CREATE TABLE again (id INT)")
        server = Server(binary, warehouse, free_port(), env=slow)
        if cli("SELECT COUNT(*) FROM again") != ["0"] or logs("again"):
            raise Failure("the log of a table created again was replayed into the new one")
        # Another program adds a column while entries are pending: the shared writer opens again
        # on the new schema and the entries are replayed into it (the new column NULL).
        server.psql("CREATE TABLE alt (id INT, v STRING, PRIMARY KEY (id) NOT ENFORCED)")
        server.psql("INSERT INTO alt VALUES (1, 'a')")
        cli("ALTER TABLE alt ADD n INT")
        server.psql("INSERT INTO alt VALUES (2, 'b', 7)")
        got = lines(server.psql("SELECT id, v, COALESCE(n, -1) FROM alt ORDER BY id"))
        if got != ["1|a|-1", "2|b|7"]:
            raise Failure("entries pending across another program's ALTER TABLE: %r" % got)
        # One server per data directory.
        r = subprocess.run([binary, "serve", "--warehouse", warehouse, "--listen",
                            "127.0.0.1:%d" % free_port()], capture_output=True, text=True,
                           timeout=30)
        if r.returncode != 1 or "in use by another tributary serve" not in r.stderr:
            raise Failure("a second server on the same data directory: %d %r" %
                          (r.returncode, r.stderr))
        # SIGTERM commits the log.
        server.psql("INSERT INTO ap VALUES (3, 'c')")
        kept = "SELECT COUNT(*) FROM ap WHERE id < 100"
        if server.stop() != 0 or cli(kept) != ["3"] or logs("ap"):
            raise Failure("SIGTERM with a pending entry: %r rows" % cli(kept))
        # The freshness interval commits it with no read through the server; an aggregation
        # table (whose merge can fail at a commit) is written to the lake directly.
        server = Server(binary, warehouse, free_port(),
                        env={"TRIBUTARY_HOT_TIER_FRESHNESS_MS": "200"})
        server.psql("CREATE TABLE agg (k INT, n BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH "
                    "('merge-engine' = 'aggregation', 'fields.n.aggregate-function' = 'sum')")
        server.psql("INSERT INTO agg VALUES (1, 5)")
        if cli("SELECT n FROM agg") != ["5"] or logs("agg"):
            raise Failure("an aggregation table's INSERT goes to the lake directly")
        # A table asking for another freshness ('table.datalake.freshness', Fluss's key) waits
        # that long; the others go at the server's interval.
        server.psql("CREATE TABLE lazy (id INT) WITH ('table.datalake.freshness' = '1 h')")
        server.psql("INSERT INTO lazy VALUES (1)")
        server.psql("INSERT INTO ap VALUES (4, 'd')")
        deadline = time.time() + 20
        while cli(kept) != ["4"]:
            if time.time() > deadline:
                raise Failure("the freshness interval did not commit the log")
            time.sleep(0.2)
        time.sleep(1.0)
        if cli("SELECT COUNT(*) FROM lazy") != ["0"] or not logs("lazy"):
            raise Failure("a table with 'table.datalake.freshness' = '1 h' was tiered early")
        if lines(server.psql("SELECT COUNT(*) FROM lazy")) != ["1"] or \
                cli("SELECT COUNT(*) FROM lazy") != ["0"]:
            raise Failure("a union read of a table with a long freshness")
        server.stop()
        # A table whose log reaches the row bound is tiered at once (the test lowers the bound
        # from 1,000,000 to 5).
        server = Server(binary, warehouse, free_port(),
                        env=dict(slow, TRIBUTARY_TEST_HOT_TIER_ROWS="5"))
        server.psql("INSERT INTO ap VALUES (7, 'g'), (8, 'h')")
        time.sleep(0.5)
        if cli(kept) != ["4"]:
            raise Failure("2 rows under a bound of 5 were tiered: %r" % cli(kept))
        server.psql("INSERT INTO ap VALUES (9, 'i'), (10, 'j'), (11, 'k')")
        deadline = time.time() + 20
        while cli(kept) != ["9"]:
            if time.time() > deadline:
                raise Failure("a log of 5 rows under a bound of 5 was not tiered: %r" % cli(kept))
            time.sleep(0.1)
        server.stop()
        # A tiering commit that fails: the read that needed it fails and says why, the next
        # round commits every entry once.
        server = Server(binary, warehouse, free_port(),
                        env=dict(slow, TRIBUTARY_TEST_HOT_TIER_FAIL_COMMITS="1"))
        server.psql("INSERT INTO ap VALUES (5, 'e'), (6, 'f')")
        p = server.psql("SELECT COUNT(*) FROM ap$snapshots", expect_ok=False)
        stats = dict(l.split("|", 1) for l in lines(server.psql("SHOW STATS")))
        if "injected commit failure" not in p.stderr or \
                not stats["tiering"].startswith("failing"):
            raise Failure("a failing tiering commit: %r, stats %r" % (p.stderr, stats))
        if lines(server.psql(kept)) != ["11"]:
            raise Failure("a union read after a failed tiering commit: %r rows" %
                          lines(server.psql(kept)))
        server.psql("SELECT COUNT(*) FROM ap$snapshots")
        if cli(kept) != ["11"]:
            raise Failure("after a failed tiering commit: %r rows" % cli(kept))
    finally:
        if server.proc.poll() is None:
            server.stop()
    print("  ok  hot tier: INSERTs acknowledged from the log, read with the lake by queries, "
          "committed by a system table's read, SIGTERM and "
          "the interval (the server's, or a table's 'table.datalake.freshness'); kill -9 "
          "replayed, exactly once; another program's ALTER TABLE and a "
          "failed tiering commit lose and double nothing; one server per data directory")


def copy_started(server, table, ids, value):
    """A raw client that began a COPY into `table` and sent the rows (id, value), not ended."""
    c = RawClient(server.port)
    c.sock.sendall(message("Q", ("COPY %s FROM STDIN CSV\0" % table).encode()))
    while read_message(c.sock)[0] != "G":
        pass
    c.sock.sendall(message("d", "".join("%d,%s\n" % (i, value) for i in ids).encode()))
    return c


def large_statements(binary, root):
    """A statement too large to hold in memory until it ends (a bulk COPY, a large INSERT ...
    SELECT; the test lowers the bound from 64 MiB to 20 kB) goes to the lake directly, through
    the table's shared writer: committed when it returns, after the writes acknowledged before
    it, nothing of it when it fails."""
    warehouse = os.path.join(root, "large-wh")
    data = warehouse + "-hot"

    cli = lake_reader(binary, warehouse)
    logged = log_reader(data)

    server = Server(binary, warehouse, free_port(),
                    env={"TRIBUTARY_HOT_TIER_FRESHNESS_MS": "3600000",
                         "TRIBUTARY_TEST_HOT_TIER_STATEMENT_BYTES": "20000"})
    try:
        server.psql("CREATE TABLE big (id INT, v STRING, PRIMARY KEY (id) NOT ENFORCED)")
        server.psql("INSERT INTO big VALUES (1, 'old'), (2, 'old'), (5000, 'kept')")
        if cli("SELECT COUNT(*) FROM big") != ["0"] or logged("big") != ["1.log"]:
            raise Failure("a small INSERT goes to the log: lake %r" % cli("SELECT COUNT(*) FROM big"))
        # 1,000 rows (about 100 kB held): past the bound, so committed directly; id 1 and 2 are
        # written again and must win over the earlier, logged rows.
        psql_copy(server, "COPY big FROM STDIN CSV",
                  "".join("%d,new\n" % i for i in range(1, 1001)))
        if cli("SELECT COUNT(*), SUM(CASE WHEN v = 'new' THEN 1 ELSE 0 END) FROM big") != \
                ["1001,1000"] or logged("big"):
            raise Failure("a large COPY: the lake holds %r, logs %r" %
                          (cli("SELECT COUNT(*), SUM(CASE WHEN v = 'new' THEN 1 ELSE 0 END) "
                               "FROM big"), logged("big")))
        got = lines(server.psql("SELECT COUNT(*), MIN(v) FROM big WHERE id <= 2"))
        if got != ["2|new"] or lines(server.psql("SELECT COUNT(*) FROM big")) != ["1001"]:
            raise Failure("a large COPY after logged writes of the same keys: %r" % got)
        # A large COPY that fails on its last line commits nothing.
        p = psql_copy(server, "COPY big FROM STDIN CSV",
                      "".join("%d,bad\n" % i for i in range(1, 1001)) + "x,y\n", expect_ok=False)
        if p.returncode == 0 or cli("SELECT COUNT(*) FROM big WHERE v = 'bad'") != ["0"]:
            raise Failure("a failed large COPY: %r, %r rows of it in the lake" %
                          (p.stderr, cli("SELECT COUNT(*) FROM big WHERE v = 'bad'")))
        # A large COPY whose client stalls holds its table's writer, nothing else: a query of
        # the table (the lake, with what was logged before the COPY), another table's writes and
        # reads, and a barrier all go on.
        server.psql("INSERT INTO big VALUES (4000, 'logged')")
        slow = copy_started(server, "big", range(3000, 4000), "slow")
        time.sleep(0.5)  # (past the bound: it writes through the table's writer now)
        started = time.time()
        got = lines(server.psql("SELECT COUNT(*) FROM big WHERE v IN ('slow', 'logged')"))
        server.psql("CREATE TABLE other (id INT)")
        server.psql("INSERT INTO other VALUES (1)")
        other = lines(server.psql("SELECT COUNT(*) FROM other"))
        waited = time.time() - started
        slow.sock.sendall(message("c", b""))
        while read_message(slow.sock)[0] != "Z":
            pass
        slow.close()
        if got != ["1"] or other != ["1"] or waited > 10:
            raise Failure("beside a stalled large COPY: %r of big, %r of other, after %.1f s" %
                          (got, other, waited))
        if lines(server.psql("SELECT COUNT(*) FROM big WHERE v = 'slow'")) != ["1000"]:
            raise Failure("the stalled large COPY, once finished: %r" %
                          lines(server.psql("SELECT COUNT(*) FROM big WHERE v = 'slow'")))
        # A client that leaves in the middle of a large COPY: nothing of it is read or committed,
        # and the table's writer is free again.
        gone = copy_started(server, "big", range(2000, 3000), "gone")
        # (A reset, not an orderly close: the server's read fails instead of ending.)
        gone.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        gone.sock.close()
        time.sleep(0.5)
        server.psql("INSERT INTO big VALUES (1, 'after')")
        got = lines(server.psql("SELECT COUNT(*) FROM big WHERE v = 'gone'"))
        if got != ["0"] or cli("SELECT COUNT(*) FROM big WHERE v = 'gone'") != ["0"] or \
                lines(server.psql("SELECT v FROM big WHERE id = 1")) != ["after"]:
            raise Failure("a client gone during a large COPY: %r of its rows read" % got)
        # A large INSERT ... SELECT goes the same way.
        server.psql("CREATE TABLE big2 (id INT, v STRING)")
        server.psql("INSERT INTO big2 SELECT id, v FROM big")
        if cli("SELECT COUNT(*) FROM big2") != lines(server.psql("SELECT COUNT(*) FROM big")) or \
                logged("big2"):
            raise Failure("a large INSERT ... SELECT: the lake holds %r" %
                          cli("SELECT COUNT(*) FROM big2"))
    finally:
        server.stop()
    print("  ok  statements too large to hold (COPY, INSERT ... SELECT) are committed to the lake "
          "directly, after the writes logged before them; a failed one commits nothing")


def scram_verifier(password, salt, iterations=4096):
    """PostgreSQL's stored form of a SCRAM-SHA-256 password, computed here with hashlib and hmac
    (an implementation independent of the server's)."""
    salted = hashlib.pbkdf2_hmac("sha256", password.encode(), salt, iterations)
    client_key = hmac.new(salted, b"Client Key", "sha256").digest()
    server_key = hmac.new(salted, b"Server Key", "sha256").digest()
    b64 = lambda b: base64.b64encode(b).decode()
    return "SCRAM-SHA-256$%d:%s$%s:%s" % (iterations, b64(salt),
                                          b64(hashlib.sha256(client_key).digest()),
                                          b64(server_key))


def scram_authentication(binary, root):
    """User tributary with a password: psql (libpq's SCRAM-SHA-256) gets in with it and is
    refused without it or with another; the password given plainly or as a verifier."""
    warehouse = os.path.join(root, "scram")
    verifier_file = os.path.join(root, "verifier")
    with open(verifier_file, "w") as f:
        f.write(scram_verifier("Tr1but@ry pass", os.urandom(16), 4096) + "\n")
    for env, password in (({"TRIBUTARY_PASSWORD": "s3cret,with=commas"}, "s3cret,with=commas"),
                          ({"TRIBUTARY_PASSWORD_FILE": verifier_file}, "Tr1but@ry pass")):
        server = Server(binary, warehouse, free_port(), env=env)
        try:
            got = lines(server.psql("SELECT 40 + 2", password=password))
            if got != ["42"]:
                raise Failure("SCRAM-SHA-256 with the right password (%s): %r" % (env, got))
            for wrong in ("wrong", password + "x", None):
                p = server.psql("SELECT 1", expect_ok=False, password=wrong)
                words = ("password authentication failed for user \"tributary\""
                         if wrong is not None else "no password supplied")
                if p.returncode == 0 or words not in p.stderr or lines(p):
                    raise Failure("password %r against %s: expected %r, got %r %r" %
                                  (wrong, env, words, p.stdout, p.stderr))
            # The session still works for a client that authenticated after refusals.
            if lines(server.psql("SELECT 'in'", password=password)) != ["in"]:
                raise Failure("a client after refused ones (%s)" % env)
        finally:
            if server.stop() != 0:
                raise Failure("the server with a password did not stop with status 0")
    # Passwords that cannot be used stop the server at start, naming what is wrong.
    bad_file = os.path.join(root, "bad-verifier")
    with open(bad_file, "w") as f:
        f.write("SCRAM-SHA-256$4096:c2FsdA==$short:short\n")
    for env, words in (({"TRIBUTARY_PASSWORD_FILE": bad_file}, [bad_file, "line 1", "StoredKey"]),
                       ({"TRIBUTARY_PASSWORD_FILE": os.path.join(root, "none")},
                        [os.path.join(root, "none"), "cannot be read"]),
                       ({"TRIBUTARY_PASSWORD_FILE": bad_file, "TRIBUTARY_PASSWORD": "x"},
                        ["both set"]),
                       ({"TRIBUTARY_PASSWORD": "p\u00e4ss"}, ["TRIBUTARY_PASSWORD", "SASLprep"])):
        expect_start_refused(binary, warehouse, env, words)


def tls_connections(binary, root):
    """TLS with a certificate made by the openssl command: psql verifies it (verify-full) and
    binds SCRAM to it (channel_binding=require, SCRAM-SHA-256-PLUS); plain connections still
    work; bad certificates or keys stop the server at start; plaintext sent behind an
    SSLRequest is refused."""
    tls = os.path.join(root, "tls")
    os.makedirs(tls)
    cert, key = os.path.join(tls, "cert.pem"), os.path.join(tls, "key.pem")
    other_cert, other_key = os.path.join(tls, "other.pem"), os.path.join(tls, "other-key.pem")
    for c, k in ((cert, key), (other_cert, other_key)):
        r = subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout",
                            k, "-out", c, "-days", "2", "-subj", "/CN=localhost", "-addext",
                            "subjectAltName=DNS:localhost,IP:127.0.0.1"],
                           capture_output=True, text=True, timeout=60)
        if r.returncode != 0:
            raise Failure("openssl req: %s" % r.stderr)
    warehouse = os.path.join(root, "tls-warehouse")
    env = {"TRIBUTARY_TLS_CERT": cert, "TRIBUTARY_TLS_KEY": key, "TRIBUTARY_PASSWORD": "pw"}
    server = Server(binary, warehouse, free_port(), env=env)
    try:
        def psql(conninfo, sql, password="pw"):
            e = dict(os.environ, PGPASSWORD=password, PGCONNECT_TIMEOUT="10")
            return subprocess.run(["psql", "-X", "-w", "-A", "-t", "host=127.0.0.1 port=%d "
                                   "user=tributary dbname=default %s" % (server.port, conninfo),
                                   "-c", sql], capture_output=True, text=True, timeout=60, env=e)
        verify = "sslmode=verify-full sslrootcert=%s channel_binding=require" % cert
        p = psql(verify, "\\conninfo")
        if p.returncode != 0 or "SSL connection (protocol: TLSv1.3" not in p.stdout:
            raise Failure("TLS with a verified certificate and channel binding: %r %r" %
                          (p.stdout, p.stderr))
        p = psql(verify, "SELECT 'over tls'")
        if p.returncode != 0 or p.stdout.split() != ["over", "tls"]:
            raise Failure("a query over TLS: %r %r" % (p.stdout, p.stderr))
        p = psql("sslmode=verify-full sslrootcert=%s" % other_cert, "SELECT 1")
        if p.returncode == 0 or "certificate verify failed" not in p.stderr:
            raise Failure("a client trusting another certificate connected: %r" % p.stderr)
        p = psql(verify, "SELECT 1", password="wrong")
        if p.returncode == 0 or "password authentication failed" not in p.stderr:
            raise Failure("a wrong password over TLS: %r" % p.stderr)
        p = psql("sslmode=disable", "SELECT 'plain'")
        if p.returncode != 0 or p.stdout.strip() != "plain":
            raise Failure("a plain connection to a server with TLS: %r %r" % (p.stdout, p.stderr))
        # Plaintext sent with the SSLRequest would be read as if it came encrypted.
        with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
            params = b"user\0tributary\0database\0default\0\0"
            sock.sendall(struct.pack("!ii", 8, 80877103) +
                         struct.pack("!ii", len(params) + 8, 196608) + params)
            reply = sock.recv(4096)
            if not reply.startswith(b"E") or b"unencrypted data after SSL request" not in reply:
                raise Failure("plaintext behind an SSLRequest: %r" % reply)
    finally:
        if server.stop() != 0:
            raise Failure("the server with TLS did not stop with status 0")
    for env, words in (({"TRIBUTARY_TLS_CERT": cert}, ["TRIBUTARY_TLS_KEY"]),
                       ({"TRIBUTARY_TLS_CERT": cert, "TRIBUTARY_TLS_KEY": other_key},
                        [other_key, "is not the key of certificate", cert]),
                       ({"TRIBUTARY_TLS_CERT": os.path.join(tls, "none.pem"),
                         "TRIBUTARY_TLS_KEY": key}, [os.path.join(tls, "none.pem")]),
                       ({"TRIBUTARY_TLS_CERT": key, "TRIBUTARY_TLS_KEY": key}, [key])):
        expect_start_refused(binary, warehouse, env, words)


def client_certificates(binary, root):
    """Client certificates (TRIBUTARY_TLS_CA, made by the openssl command): a client presenting
    one signed by the CA whose common name is the user gets in without a password; one without
    a certificate, with another CA's, or with another common name is refused, and so is a plain
    connection; TRIBUTARY_TLS_REQUIRED alone refuses plain connections; bad settings stop the
    server at start."""
    d = os.path.join(root, "certs")
    os.makedirs(d)

    def openssl(*args):
        r = subprocess.run(["openssl"] + list(args), capture_output=True, text=True, timeout=60)
        if r.returncode != 0:
            raise Failure("openssl %s: %s" % (args[0], r.stderr))

    def path(name):
        return os.path.join(d, name)

    for ca in ("ca", "other-ca"):
        openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", path(ca + ".key"),
                "-out", path(ca + ".pem"), "-days", "2", "-subj", "/CN=" + ca)
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", path("server.key"),
            "-out", path("server.pem"), "-days", "2", "-subj", "/CN=localhost")
    for name, cn, ca in (("client", "tributary", "ca"), ("stranger", "someone", "ca"),
                         ("forged", "tributary", "other-ca"), ("revoked", "tributary", "ca"),
                         ("later", "tributary", "ca")):
        openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", path(name + ".key"), "-out",
                path(name + ".csr"), "-subj", "/CN=" + cn)
        openssl("x509", "-req", "-in", path(name + ".csr"), "-CA", path(ca + ".pem"), "-CAkey",
                path(ca + ".key"), "-CAcreateserial", "-out", path(name + ".pem"), "-days", "2")
        os.chmod(path(name + ".key"), 0o600)  # (libpq refuses a key others can read)
    warehouse = os.path.join(root, "certs-warehouse")
    tls = {"TRIBUTARY_TLS_CERT": path("server.pem"), "TRIBUTARY_TLS_KEY": path("server.key")}
    server = Server(binary, warehouse, free_port(), env=dict(tls, TRIBUTARY_TLS_CA=path("ca.pem")))

    def psql(conninfo):
        e = dict(os.environ, PGCONNECT_TIMEOUT="10")
        e.pop("PGPASSWORD", None)
        return subprocess.run(["psql", "-X", "-w", "-A", "-t", "host=127.0.0.1 port=%d "
                               "user=tributary dbname=default %s" % (server.port, conninfo),
                               "-c", "SELECT 'in'"], capture_output=True, text=True, timeout=60,
                              env=e)

    def cert(name):
        return "sslmode=require sslcert=%s sslkey=%s" % (path(name + ".pem"), path(name + ".key"))

    try:
        p = psql(cert("client"))
        if p.returncode != 0 or p.stdout.strip() != "in":
            raise Failure("a client certificate of the CA, CN tributary: %r %r" %
                          (p.stdout, p.stderr))
        for conninfo, words in ((cert("stranger"), "certificate authentication failed"),
                                (cert("forged"), "unknown ca"),
                                ("sslmode=require", "certificate required"),
                                ("sslmode=disable", "connection without TLS refused")):
            p = psql(conninfo)
            if p.returncode == 0 or words not in p.stderr:
                raise Failure("%s: expected a refusal naming %r: %r %r" %
                              (conninfo, words, p.stdout, p.stderr))
    finally:
        if server.stop() != 0:
            raise Failure("the server with client certificates did not stop with status 0")
    # A revocation list of the CA (openssl ca, its database beside the certificates) revoking
    # "revoked": with TRIBUTARY_TLS_CRL that certificate is refused, the others as before.
    with open(path("ca.cnf"), "w") as f:
        f.write("[ca]\ndefault_ca = c\n[c]\ndatabase = %s\ncrlnumber = %s\ndefault_md = sha256\n"
                "default_crl_days = 2\n" % (path("index.txt"), path("crlnumber")))
    open(path("index.txt"), "w").close()
    with open(path("crlnumber"), "w") as f:
        f.write("01\n")
    signer = ["-config", path("ca.cnf"), "-keyfile", path("ca.key"), "-cert", path("ca.pem")]
    openssl("ca", *signer, "-revoke", path("revoked.pem"))
    openssl("ca", *signer, "-gencrl", "-out", path("ca.crl"))
    server = Server(binary, warehouse, free_port(),
                    env=dict(tls, TRIBUTARY_TLS_CA=path("ca.pem"), TRIBUTARY_TLS_CRL=path("ca.crl")))
    try:
        p = psql(cert("client"))
        if p.returncode != 0 or p.stdout.strip() != "in":
            raise Failure("with a CRL, a certificate it does not revoke: %r %r" %
                          (p.stdout, p.stderr))
        p = psql(cert("revoked"))
        if p.returncode == 0 or "revoked" not in p.stderr:
            raise Failure("with a CRL, the certificate it revokes: %r %r" % (p.stdout, p.stderr))
        # A certificate revoked later: a new list, then SIGHUP (PostgreSQL's reload) and the
        # next connection with it is refused, without a restart.
        if psql(cert("later")).stdout.strip() != "in":
            raise Failure("a certificate not revoked yet was refused")
        openssl("ca", *signer, "-revoke", path("later.pem"))
        openssl("ca", *signer, "-gencrl", "-out", path("ca.crl"))
        server.proc.send_signal(signal.SIGHUP)
        deadline = time.time() + 10
        while psql(cert("later")).returncode == 0:
            if time.time() > deadline:
                raise Failure("after SIGHUP the newly revoked certificate still gets in")
            time.sleep(0.2)
        p = psql(cert("later"))
        if "revoked" not in p.stderr or psql(cert("client")).stdout.strip() != "in":
            raise Failure("after SIGHUP: %r; the other certificate: %r" %
                          (p.stderr, psql(cert("client")).stderr))
    finally:
        server.stop()
    server = Server(binary, warehouse, free_port(), env=dict(tls, TRIBUTARY_TLS_REQUIRED="true"))
    try:
        if psql("sslmode=require").stdout.strip() != "in" or \
                "connection without TLS refused" not in psql("sslmode=disable").stderr:
            raise Failure("TRIBUTARY_TLS_REQUIRED: TLS in, plain refused")
    finally:
        server.stop()
    for env, words in (({"TRIBUTARY_TLS_CA": path("ca.pem")}, ["TRIBUTARY_TLS_CA", "certificate"]),
                       (dict(tls, TRIBUTARY_TLS_CA=path("none.pem")), [path("none.pem")]),
                       (dict(tls, TRIBUTARY_TLS_REQUIRED="maybe"), ["TRIBUTARY_TLS_REQUIRED"]),
                       (dict(tls, TRIBUTARY_TLS_CRL=path("ca.crl")), ["TRIBUTARY_TLS_CRL"]),
                       (dict(tls, TRIBUTARY_TLS_CA=path("ca.pem"), TRIBUTARY_TLS_CRL=path("ca.pem")),
                        [path("ca.pem"), "revocation"])):
        expect_start_refused(binary, warehouse, env, words)
    print("  ok  client certificates: the CA's certificate with CN tributary gets in without a "
          "password; another CN, another CA, none, one the CA's revocation list revokes "
          "(TRIBUTARY_TLS_CRL, read again at SIGHUP), and plain connections are refused; "
          "TRIBUTARY_TLS_REQUIRED")


# Run by Debian's python3 (python3-psycopg, scripts/setup.sh installs it): psycopg 3 speaks the
# extended protocol through libpq and reads and writes every type's binary format itself, an
# implementation independent of the server's.
PSYCOPG_CLIENT = r"""
import datetime, decimal, sys, zoneinfo
import psycopg
conn = psycopg.connect("host=127.0.0.1 port=%s user=tributary dbname=default" % sys.argv[1],
                       autocommit=True)
conn.execute("CREATE TABLE typed (id BIGINT, i INT, s SMALLINT, r FLOAT, d DOUBLE, b BOOLEAN, "
             "str STRING, v VARCHAR(10), dec DECIMAL(38, 10), small DECIMAL(5, 3), dt DATE, "
             "ts TIMESTAMP(6), tm TIME(3), ltz TIMESTAMP_LTZ(3), by BYTES, "
             "PRIMARY KEY (id) NOT ENFORCED)")
rows = [
    (1, 7, 3, 1.5, 2.25, True, "h\u00e9llo", "ten chars!", decimal.Decimal("-1234.5670000000"),
     decimal.Decimal("0.001"), datetime.date(2024, 2, 29),
     datetime.datetime(2024, 2, 29, 12, 34, 56, 123456)),
    (2, -2147483648, -32768, -0.0, 1e300, False, "", "a", decimal.Decimal("0E-10"),
     decimal.Decimal("-99.999"), datetime.date(1969, 12, 31),
     datetime.datetime(1999, 12, 31, 23, 59, 59, 999999)),
    (3, 2147483647, 32767, 3.25, -1e-300, True, "x" * 1000,
     None, decimal.Decimal("1234567890123456789012345678.0123456789"), decimal.Decimal("12.3"),
     datetime.date(2000, 1, 1), datetime.datetime(1970, 1, 1, 0, 0, 0, 1)),
]
for ph in ("%b", "%t"):  # every parameter binary, then every one text
    for row in rows:
        marks = ", ".join([ph] * 8 + ["CAST(%t AS DECIMAL(38, 10))", "CAST(%t AS DECIMAL(5, 3))",
                                      "CAST(%t AS DATE)", ph])
        conn.execute("INSERT INTO typed (id, i, s, r, d, b, str, v, dec, small, dt, ts, tm, ltz, "
                     "by) VALUES (" + marks + ", TIME '01:02:03.456', "
                     "TO_TIMESTAMP_LTZ(86400123, 3), " + ph + ")",
                     (row[0] + (10 if ph == "%t" else 0),) + row[1:] + (b"\x00\xff\x10",))
for binary in (True, False):
    got = conn.execute("SELECT * FROM typed ORDER BY id", binary=binary).fetchall()
    want = []
    for base in (0, 10):
        for row in rows:
            want.append((row[0] + base,) + row[1:] + (
                datetime.time(1, 2, 3, 456000),
                datetime.datetime(1970, 1, 2, 0, 0, 0, 123000, tzinfo=datetime.timezone.utc),
                b"\x00\xff\x10"))
    if got != want:
        for g, w in zip(got, want):
            if g != w:
                print("binary=%s got  %r\n want %r" % (binary, g, w))
        sys.exit(1)
    # Parameters compare in both formats.
    for ph in ("%b", "%t"):
        ids = conn.execute("SELECT id FROM typed WHERE ts = " + ph + " AND i = " + ph +
                           " AND str = " + ph + " AND by = " + ph + " ORDER BY id",
                           (rows[0][11], 7, "h\u00e9llo", b"\x00\xff\x10"),
                           binary=binary).fetchall()
        if ids != [(1,), (11,)]:
            print("WHERE with %s parameters: %r" % (ph, ids))
            sys.exit(1)
# TIMESTAMP_LTZ in another session zone: text is the wall time there with its offset
# (05:30:00.123+05:30), binary the instant; both read back as the same instant.
conn.execute("SET 'table.local-time-zone' = 'Asia/Kolkata'")
for binary in (True, False):
    got = conn.execute("SELECT ltz FROM typed WHERE id = 1", binary=binary).fetchone()[0]
    if got != datetime.datetime(1970, 1, 2, 0, 0, 0, 123000, tzinfo=datetime.timezone.utc):
        print("TIMESTAMP_LTZ in Asia/Kolkata, binary=%s: %r" % (binary, got))
        sys.exit(1)
conn.execute("RESET 'table.local-time-zone'")
# timestamptz parameters (tz-aware datetimes), binary and text: the instant, whatever the
# session's zone; compared with TIMESTAMP_LTZ columns and written into them.
east = datetime.timezone(datetime.timedelta(hours=5, minutes=30))
instant = datetime.datetime(2024, 3, 1, 12, 0, 0, 250000, tzinfo=east)
for zone in ("Asia/Tokyo", "UTC"):
    conn.execute("SET 'table.local-time-zone' = '%s'" % zone)
    for k, ph in enumerate(("%b", "%t")):
        key = 100 + k + (10 if zone == "UTC" else 0)
        conn.execute("INSERT INTO typed (id, ltz) VALUES (%s, " + ph + ")", (key, instant))
        got = conn.execute("SELECT ltz FROM typed WHERE id = %s", (key,)).fetchone()[0]
        if got != instant:
            print("timestamptz %s in %s: %r" % (ph, zone, got))
            sys.exit(1)
        # (Rows computed as they are read are in the session's zone too.)
        text = conn.execute("SELECT CAST(ltz AS STRING) FROM typed WHERE id = %s",
                            (key,)).fetchone()[0]
        wall = instant.astimezone(zoneinfo.ZoneInfo(zone)).strftime("%Y-%m-%d %H:%M:%S.%f")
        if text != wall[:-3]:
            print("CAST(ltz AS STRING) in %s: %r, not %r" % (zone, text, wall[:-3]))
            sys.exit(1)
        n = conn.execute("SELECT COUNT(*) FROM typed WHERE ltz = " + ph, (instant,)).fetchone()[0]
        if n < k + 1:
            print("timestamptz %s compared in %s: %d" % (ph, zone, n))
            sys.exit(1)
conn.execute("RESET 'table.local-time-zone'")
conn.execute("DROP TABLE typed")
print("ok")
"""


def run_psycopg(script, server, what):
    """Runs `script` (it prints "ok") with Debian's python3 against the server."""
    p = subprocess.run(["/usr/bin/python3", "-c", script, str(server.port)],
                       capture_output=True, text=True, timeout=120)
    if p.returncode != 0 or p.stdout.strip() != "ok":
        raise Failure("%s: %s %s" % (what, p.stdout, p.stderr))


def binary_formats(server):
    """psycopg 3 writes every parameter in the binary format and in text, and reads results in
    both: the values it gets back are the ones it wrote."""
    run_psycopg(PSYCOPG_CLIENT, server, "psycopg's binary formats")
    run_psycopg(PSYCOPG_BINARY_COPY, server, "COPY in the binary format through psycopg")
    run_psycopg(ASYNCPG_CLIENT, server, "asyncpg (prepared statements described, binary COPY)")
    jdbc_client(server)
    print("  ok  psycopg 3 (Debian's) writes and reads every type in the binary format and in "
          "text, bytea and timestamptz included; COPY FROM STDIN and "
          "TO STDOUT in the binary format, a malformed field refused naming its line; asyncpg "
          "loads 1,000 rows by binary COPY and runs statements with typed parameters; pgjdbc "
          "(Debian's) connects, sets its parameters, batches typed INSERTs and reads a "
          "server-prepared query in the binary format, and browses the warehouse through "
          "DatabaseMetaData as PostgreSQL answers it")


def jdbc_client(server):
    """pgjdbc: tests/server/JdbcClient.java, compiled and run against the server."""
    jar = "/usr/share/java/postgresql.jar"
    out = tempfile.mkdtemp(prefix="tributary-jdbc-")
    try:
        source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "JdbcClient.java")
        subprocess.run(["javac", "-d", out, "-cp", jar, source], check=True, timeout=120)
        p = subprocess.run(["java", "-cp", jar + ":" + out, "JdbcClient", str(server.port)],
                           capture_output=True, text=True, timeout=120)
        if p.returncode != 0 or p.stdout.strip() != "jdbc ok":
            raise Failure("pgjdbc: %s %s" % (p.stdout, p.stderr))
    finally:
        shutil.rmtree(out, ignore_errors=True)


# COPY in the binary format, written and read by psycopg 3's own binary encoders and decoders.
PSYCOPG_BINARY_COPY = r"""
import datetime, decimal, sys
import psycopg
conn = psycopg.connect("host=127.0.0.1 port=%s user=tributary dbname=default" % sys.argv[1],
                       autocommit=True)
conn.execute("CREATE TABLE bcopy (id BIGINT, i INT, s SMALLINT, r FLOAT, d DOUBLE, b BOOLEAN, "
             "str STRING, dec DECIMAL(12, 3), dt DATE, ts TIMESTAMP(6), by BYTES, "
             "ltz TIMESTAMP_LTZ(3), PRIMARY KEY (id) NOT ENFORCED)")
types = ["int8", "int4", "int2", "float4", "float8", "bool", "text", "numeric", "date",
         "timestamp", "bytea", "timestamptz"]
utc = datetime.timezone.utc
rows = [(1, 7, -3, 1.5, 2.25, True, "h\u00e9llo", decimal.Decimal("-1234.567"),
         datetime.date(2024, 2, 29), datetime.datetime(2024, 1, 2, 3, 4, 5, 123000), b"\x00\xff",
         datetime.datetime(2024, 1, 2, 3, 4, 5, 123000, tzinfo=utc)),
        (2, None, None, None, None, None, None, None, None, None, None, None),
        (3, -2147483648, 32767, -0.25, 1e300, False, "", decimal.Decimal("0.001"),
         datetime.date(1969, 12, 31), datetime.datetime(1999, 12, 31, 23, 59, 59), b"",
         datetime.datetime(1969, 12, 31, 23, 59, 59, tzinfo=utc))]
cur = conn.cursor()
with cur.copy("COPY bcopy FROM STDIN (FORMAT BINARY)") as cp:
    cp.set_types(types)
    for r in rows:
        cp.write_row(r)
got = conn.execute("SELECT * FROM bcopy ORDER BY id").fetchall()
assert got == rows, got
with cur.copy("COPY (SELECT * FROM bcopy ORDER BY id) TO STDOUT (FORMAT BINARY)") as cp:
    cp.set_types(types)
    out = list(cp.rows())
assert out == rows, out
with cur.copy("COPY bcopy (id, str) TO STDOUT BINARY") as cp:
    cp.set_types(["int8", "text"])
    assert list(cp.rows()) == [(1, "h\u00e9llo"), (2, None), (3, "")]
# A field of the wrong size (an int4 where the column is BIGINT) fails the COPY naming its line
# and column; nothing of it is written.
try:
    with cur.copy("COPY bcopy (id) FROM STDIN (FORMAT BINARY)") as cp:
        cp.set_types(["int8"])
        cp.write_row((4,))
        cp.set_types(["int4"])
        cp.write_row((5,))
    raise SystemExit("a malformed binary field was taken")
except psycopg.errors.InvalidTextRepresentation as e:
    assert "line 2" in str(e) and "column id" in str(e), str(e)
assert conn.execute("SELECT COUNT(*) FROM bcopy").fetchone()[0] == 3
# A value longer than its VARCHAR(n) is refused (22001's message), not cut; in text too.
conn.execute("CREATE TABLE short (id BIGINT, v VARCHAR(3), PRIMARY KEY (id) NOT ENFORCED)")
for fmt in ("(FORMAT BINARY)", ""):
    try:
        with cur.copy("COPY short FROM STDIN " + fmt) as cp:
            if fmt:
                cp.set_types(["int8", "text"])
            cp.write_row((1, "abcd"))
        raise SystemExit("a value longer than VARCHAR(3) was taken " + fmt)
    except psycopg.errors.InvalidParameterValue as e:
        assert "too long" in str(e) and "column v" in str(e), str(e)
assert conn.execute("SELECT COUNT(*) FROM short").fetchone()[0] == 0
print("ok")
"""


# asyncpg (Debian's python3-asyncpg): its own protocol implementation, which prepares every
# statement and decodes rows by the columns a Describe of the statement gives, and bulk loads
# with COPY in the binary format (copy_records_to_table, its table and columns double-quoted).
ASYNCPG_CLIENT = r"""
import asyncio, datetime, decimal, sys
import asyncpg
async def main(port):
    conn = await asyncpg.connect(host="127.0.0.1", port=port, user="tributary",
                                 database="default")
    await conn.execute("CREATE TABLE ap (id BIGINT, v STRING, d DOUBLE, dt DATE, "
                       "PRIMARY KEY (id) NOT ENFORCED)")
    rows = [(i, "v%d" % i, i * 0.5, datetime.date(2024, 1, 1 + i % 28)) for i in range(1000)]
    status = await conn.copy_records_to_table("ap", records=rows, columns=["id", "v", "d", "dt"])
    assert status == "COPY 1000", status
    got = await conn.fetch("SELECT id, v, d, dt FROM ap ORDER BY id")
    assert [tuple(r) for r in got] == rows, got[:3]
    r = await conn.fetchrow("SELECT COUNT(*) AS c, SUM(id) AS s, MAX(dt) AS m FROM ap")
    assert (r["c"], r["s"], r["m"]) == (1000, 499500, datetime.date(2024, 1, 28)), r
    # Parameters are described with the types their context gives them (id = $1: int8), so
    # asyncpg sends Python's values in their binary forms; one nothing types is text.
    assert await conn.fetchval("SELECT v FROM ap WHERE id = $1", 7) == "v7"
    got = await conn.fetch("SELECT id FROM ap WHERE v = $1 OR v = $2 ORDER BY id", "v3", "v4")
    assert [r["id"] for r in got] == [3, 4], got
    await conn.execute("UPDATE ap SET v = $1, d = d * $2 WHERE id = $3", "seven", 4.0, 7)
    assert tuple(await conn.fetchrow("SELECT v, d FROM ap WHERE id = 7")) == ("seven", 14.0)
    await conn.execute("INSERT INTO ap VALUES ($1, $2, $3, $4)", 5000, "new", -1.25,
                       datetime.date(2025, 6, 30))
    await conn.executemany("INSERT INTO ap (id, dt) VALUES ($1, $2)",
                           [(5001 + i, datetime.date(2025, 7, 1 + i)) for i in range(3)])
    got = await conn.fetch("SELECT id, v, d, dt FROM ap WHERE dt >= $1 AND id <> $2 "
                           "ORDER BY id LIMIT $3", datetime.date(2025, 6, 30), 5001, 10)
    assert [tuple(r) for r in got] == [(5000, "new", -1.25, datetime.date(2025, 6, 30)),
                                       (5002, None, None, datetime.date(2025, 7, 2)),
                                       (5003, None, None, datetime.date(2025, 7, 3))], got
    await conn.execute("DELETE FROM ap WHERE id >= $1", 5001)
    assert await conn.fetchval("SELECT COUNT(*) FROM ap") == 1001
    assert await conn.fetchval("SELECT $1 || v FROM ap WHERE id = $2", "x", 3) == "xv3"
    # psql's catalog queries through a described statement: their columns, text; a statement
    # that only mentions pg_catalog in a string is the SQL engine's.
    got = await conn.fetch("SELECT n.nspname AS \"Name\" FROM pg_catalog.pg_namespace n "
                           "WHERE n.nspname !~ '^pg_' AND n.nspname <> 'information_schema' "
                           "ORDER BY 1")
    assert [r["Name"] for r in got] == ["default"], got
    await conn.execute("INSERT INTO ap (id, v) VALUES ($1, 'see pg_catalog.pg_class')", 6000)
    assert await conn.fetchval("SELECT v FROM ap WHERE id = $1", 6000) == "see pg_catalog.pg_class"
    await conn.execute("DELETE FROM ap WHERE id = $1", 6000)
    # A prepared SHOW is described with its one column (SQLAlchemy's dialect asks so).
    assert await conn.fetchval("SHOW standard_conforming_strings") == "on"
    try:
        await conn.fetchval("SELECT $0")
        raise SystemExit("$0 was taken")
    except asyncpg.PostgresError as e:
        assert "$0" in str(e), e
    # timestamptz: aware datetimes into a TIMESTAMP_LTZ column, the instant kept.
    await conn.execute("CREATE TABLE ev (id INT, at TIMESTAMP_LTZ(6), PRIMARY KEY (id) NOT ENFORCED)")
    at = datetime.datetime(2024, 5, 6, 7, 8, 9, 123456, tzinfo=datetime.timezone.utc)
    await conn.execute("INSERT INTO ev VALUES ($1, $2)", 1, at)
    assert await conn.fetchval("SELECT at FROM ev WHERE at >= $1", at) == at
    # numeric: Decimals in numeric's binary form, written in exactly (not as strings, which an
    # INSERT into a DECIMAL column refuses).
    await conn.execute("CREATE TABLE money (id INT, amount DECIMAL(12, 4), "
                       "PRIMARY KEY (id) NOT ENFORCED)")
    await conn.executemany("INSERT INTO money VALUES ($1, $2)",
                           [(1, decimal.Decimal("12.5")), (2, decimal.Decimal("-0.0015")),
                            (3, decimal.Decimal("1E+3"))])
    got = await conn.fetch("SELECT id, amount FROM money WHERE amount < $1 ORDER BY id",
                           decimal.Decimal("100"))
    assert [tuple(r) for r in got] == [(1, decimal.Decimal("12.5000")),
                                       (2, decimal.Decimal("-0.0015"))], got
    try:
        await conn.fetchval("SELECT v FROM ap WHERE id = $1", "7")
        raise SystemExit("a string was sent for an int8 parameter")
    except asyncpg.DataError:
        pass  # (asyncpg itself refuses it, as against PostgreSQL)
    # A cached statement whose table gains a column: PostgreSQL's "cached plan must not change
    # result type" with its routine, on which asyncpg prepares it again by itself.
    one = "SELECT * FROM ap WHERE id = 1"
    assert len(await conn.fetchrow(one)) == 4
    await conn.execute("ALTER TABLE ap ADD (extra INT)")
    assert len(await conn.fetchrow(one)) == 5
    await conn.close()
asyncio.run(main(int(sys.argv[1])))
print("ok")
"""


PSYCOPG_SUBSCRIBER = r"""
import sys, threading, time
import psycopg
dsn = "host=127.0.0.1 port=%s user=tributary dbname=default" % sys.argv[1]
w = psycopg.connect(dsn, autocommit=True)
w.execute("CREATE TABLE ext_subs (id INT, v STRING, PRIMARY KEY (id) NOT ENFORCED)")
w.execute("INSERT INTO ext_subs VALUES (%s, %s), (%s, %s)", (1, "a", 2, "b"))
r = psycopg.connect(dsn, autocommit=True)
r.execute("SET 'execution.runtime-mode' = 'streaming'")
r.execute("DECLARE c CURSOR FOR SELECT id, v FROM ext_subs")
got = r.execute("FETCH 10 FROM c").fetchall()
if sorted(got) != [("+I", 1, "a"), ("+I", 2, "b")]:
    print("first FETCH: %r" % got)
    sys.exit(1)
def update():
    time.sleep(1.0)
    w.execute("UPDATE ext_subs SET v = %s WHERE id = %s", ("b2", 2))
threading.Thread(target=update).start()
started = time.time()
got = r.execute("FETCH 5 FROM c", binary=True).fetchall()  # waits for the UPDATE
if got != [("-U", 2, "b"), ("+U", 2, "b2")] or time.time() - started < 0.5:
    print("second FETCH: %r after %.2f s" % (got, time.time() - started))
    sys.exit(1)
r.execute("CLOSE c")
try:
    r.execute("FETCH 1 FROM c")
    print("FETCH after CLOSE answered")
    sys.exit(1)
except psycopg.errors.InvalidCursorName:
    pass
r.execute("RESET 'execution.runtime-mode'")
w.execute("DROP TABLE ext_subs")
print("ok")
"""


def extended_subscription(server):
    """A subscription through the extended protocol (psycopg 3 sends every statement so):
    DECLARE, FETCH (in text, then binary, the second waiting for another connection's UPDATE)
    and CLOSE."""
    run_psycopg(PSYCOPG_SUBSCRIBER, server, "a subscription through psycopg")
    print("  ok  a subscription through the extended protocol (psycopg 3): DECLARE, a FETCH that "
          "waits for another connection's UPDATE, CLOSE")


def describe_commands(server):
    """psql's \\d, \\dt, \\dn and \\l through the server: tables, their columns, keys,
    comments and options, from the warehouse's catalog (a database is a schema)."""
    server.psql("CREATE TABLE described (id INT, name STRING COMMENT 'a name', amount DOUBLE "
                "NOT NULL, PRIMARY KEY (id) NOT ENFORCED) COMMENT 'described here' "
                "WITH ('bucket' = '3')")
    server.psql("CREATE DATABASE elsewhere")
    server.psql("CREATE TABLE elsewhere.events (ts TIMESTAMP(3), msg STRING)")

    def run_psql(cmd):  # not quiet: psql says "Did not find ..." only then
        return subprocess.run(["psql", "-X", "-h", "127.0.0.1", "-p", str(server.port), "-U",
                               "tributary", "-d", "default", "-c", cmd],
                              capture_output=True, text=True, timeout=60)

    def describe(cmd):
        p = run_psql(cmd)
        if p.returncode != 0 or p.stderr:
            raise Failure("psql %s: %d %r" % (cmd, p.returncode, p.stderr))
        return [" ".join(l.split()) for l in p.stdout.splitlines()]

    def expect(cmd, wanted, unwanted=()):
        got = describe(cmd)
        for w in wanted:
            if w not in got:
                raise Failure("psql %s: no line %r in %r" % (cmd, w, got))
        for u in unwanted:
            if any(u in l for l in got):
                raise Failure("psql %s: %r should not be there: %r" % (cmd, u, got))
    expect("\\dt", ["default | described | table | tributary"], unwanted=["events"])
    expect("\\d described", ['Table "default.described"',
                              "id | INT | | not null |", "name | STRING | | |",
                              "amount | DOUBLE | | not null |", "Indexes:",
                              '"described_pkey" PRIMARY KEY, lsm (id)'])
    expect("\\d+ described", ["name | STRING | | | | extended | | | a name",
                               "Options: bucket=3", "Access method: paimon"])
    expect("\\dt+ described", ["default | described | table | tributary | permanent | paimon "
                                "| | described here"])
    expect("\\d elsewhere.events", ['Table "elsewhere.events"', "ts | TIMESTAMP(3) | | |"],
           unwanted=["Indexes:"])
    expect("\\dt elsewhere.*", ["elsewhere | events | table | tributary"],
           unwanted=["described"])
    expect("\\dn", ["default | tributary", "elsewhere | tributary"])
    expect("\\l", ["default | tributary | UTF8 | C | C | | libc |",
                    "elsewhere | tributary | UTF8 | C | C | | libc |"])
    p = run_psql("\\d nowhere")
    if 'Did not find any relation named "nowhere"' not in p.stderr:
        raise Failure("\\d of a missing table: %r" % p.stderr)
    expect_error(server, "SELECT * FROM pg_catalog.pg_proc", "0A000", "\\dt")
    # information_schema, as in `tributary sql`: a database is a schema, types as DESCRIBE
    # writes them, the primary key a constraint.
    got = server.psql("SELECT table_schema, table_name, table_type FROM "
                      "information_schema.tables WHERE table_name IN ('described', 'events') "
                      "ORDER BY 1, 2").stdout.split()
    if got != ["default|described|BASE", "TABLE", "elsewhere|events|BASE", "TABLE"]:
        raise Failure("information_schema.tables: %r" % got)
    got = server.psql("SELECT column_name, ordinal_position, is_nullable, data_type, comment "
                      "FROM information_schema.columns WHERE table_name = 'described' "
                      "ORDER BY ordinal_position").stdout.splitlines()
    if got != ["id|1|NO|INT|", "name|2|YES|STRING|a name", "amount|3|NO|DOUBLE|"]:
        raise Failure("information_schema.columns: %r" % got)
    got = server.psql("SELECT c.constraint_name, k.column_name FROM "
                      "information_schema.table_constraints c JOIN "
                      "information_schema.key_column_usage k ON c.constraint_name = "
                      "k.constraint_name WHERE c.constraint_type = 'PRIMARY KEY' AND "
                      "c.table_name = 'described'").stdout.split()
    if got != ["described_pkey|id"]:
        raise Failure("information_schema primary keys: %r" % got)
    server.psql("DROP TABLE elsewhere.events")
    server.psql("DROP DATABASE elsewhere")
    print("  ok  psql's \\d, \\d+, \\dt, \\dt+, \\dn and \\l describe the warehouse's "
          "tables; other pg_catalog queries are refused (0A000); information_schema's tables, "
          "columns and primary keys are read through the SQL engine")


def psql_copy(server, sql, data, expect_ok=True):
    p = subprocess.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p",
                        str(server.port), "-U", "tributary", "-d", "default", "-c", sql],
                       input=data, capture_output=True, text=True, timeout=120)
    if expect_ok and p.returncode != 0:
        raise Failure("%s: %s" % (sql, p.stderr))
    return p


def run_threads(target, n):
    """Runs target(0) ... target(n - 1) on threads of their own and waits for them."""
    threads = [threading.Thread(target=target, args=(w,)) for w in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)


def shared_writers(server, binary, warehouse):
    """COPYs into one table from several connections go through the table's one writer (and its
    hot tier log): none fails on a commit race, every row is in, at most one APPEND snapshot
    each; the writer follows the table through a failed COPY, ALTER TABLE and a DROP and CREATE
    of the same name."""
    server.psql("CREATE TABLE sw (id BIGINT, v STRING, PRIMARY KEY (id) NOT ENFORCED) "
                "WITH ('bucket' = '2', 'changelog-producer' = 'lookup')")
    errors = []

    def copier(w):
        try:
            for k in range(8):
                base = w * 10000 + k * 100
                psql_copy(server, "COPY sw FROM STDIN CSV",
                          "".join("%d,w%d-%d\n" % (base + i, w, k) for i in range(100)))
        except Failure as e:
            errors.append(str(e))

    run_threads(copier, 4)
    if errors:
        raise Failure("concurrent COPYs: %s" % errors[0])
    got = lines(server.psql("SELECT COUNT(*) FROM sw"))
    appends = lines(server.psql("SELECT COUNT(*) FROM sw$snapshots WHERE commit_kind = 'APPEND'"))
    # The hot tier commits the COPYs' log entries in rounds: at most one APPEND snapshot each.
    if got != ["3200"] or not 1 <= int(appends[0]) <= 32:
        raise Failure("4 x 8 COPYs of 100 rows: %r rows, %r APPEND snapshots" % (got, appends))
    # A failed COPY leaves nothing in the shared writer for the next one.
    p = psql_copy(server, "COPY sw FROM STDIN CSV", "90001,a\n90002,b,extra\n", expect_ok=False)
    if p.returncode == 0:
        raise Failure("a COPY with a bad line succeeded")
    psql_copy(server, "COPY sw FROM STDIN CSV", "90003,c\n")
    got = lines(server.psql("SELECT id FROM sw WHERE id > 90000 ORDER BY id"))
    if got != ["90003"]:
        raise Failure("after a failed COPY, the next one committed %r" % got)
    # A new column: the writer opens again on the new schema.
    server.psql("ALTER TABLE sw ADD n INT")
    psql_copy(server, "COPY sw FROM STDIN CSV", "90004,d,4\n")
    got = lines(server.psql("SELECT n FROM sw WHERE id = 90004"))
    if got != ["4"]:
        raise Failure("COPY after ALTER TABLE ADD: %r" % got)
    # Dropped and created again: the new table's own writer.
    server.psql("DROP TABLE sw")
    server.psql("CREATE TABLE sw (id BIGINT, v STRING, PRIMARY KEY (id) NOT ENFORCED)")
    psql_copy(server, "COPY sw FROM STDIN CSV", "1,x\n")
    got = lines(server.psql("SELECT id, v FROM sw"))
    if got != ["1|x"]:
        raise Failure("COPY into a table created again: %r" % got)
    # INSERTs take the same writers: from 4 connections at once, one APPEND snapshot each.
    server.psql("CREATE TABLE si (id BIGINT, v STRING, PRIMARY KEY (id) NOT ENFORCED) "
                "WITH ('bucket' = '2')")

    def inserter(w):
        try:
            c = RawClient(server.port)
            for k in range(10):
                c.query("INSERT INTO si VALUES (%d, 'a'), (%d, 'b')" % (w * 100 + 2 * k,
                                                                      w * 100 + 2 * k + 1))
            c.close()
        except Failure as e:
            errors.append(str(e))

    run_threads(inserter, 4)
    got = lines(server.psql("SELECT COUNT(*) FROM si"))
    appends = lines(server.psql("SELECT COUNT(*), COUNT(DISTINCT commit_user) FROM si$snapshots "
                                "WHERE commit_kind = 'APPEND'"))
    if errors or got != ["80"] or not appends[0].endswith("|1") or \
            not 1 <= int(appends[0].split("|")[0]) <= 40:
        raise Failure("4 x 10 INSERTs: %r rows, %r APPEND snapshots and their commit users "
                      "(one writer: one user), errors %r" % (got, appends, errors[:1]))
    # A statement whose commit fails (a sum overflowing) leaves the shared writer for the next.
    server.psql("CREATE TABLE sa (k INT, n INT, PRIMARY KEY (k) NOT ENFORCED) WITH ("
                "'merge-engine' = 'aggregation', 'fields.n.aggregate-function' = 'sum')")
    server.psql("INSERT INTO sa VALUES (1, 2147483647)")
    p = server.psql("INSERT INTO sa VALUES (1, 1)", expect_ok=False)
    if "ERROR" not in p.stderr:
        raise Failure("an overflowing sum was committed: %r" % p.stderr)
    server.psql("INSERT INTO sa VALUES (2, 5)")
    got = lines(server.psql("SELECT k, n FROM sa ORDER BY k"))
    if got != ["1|2147483647", "2|5"]:
        raise Failure("after a failed INSERT through the shared writer: %r" % got)
    # A COPY whose client stalls holds no writer (its rows wait in its own until CopyDone): an
    # INSERT from another connection goes on.
    slow = RawClient(server.port)
    slow.sock.sendall(message("Q", b"COPY si FROM STDIN CSV\0"))
    while read_message(slow.sock)[0] != "G":
        pass
    slow.sock.sendall(message("d", b"500,slow\n"))
    started = time.time()
    server.psql("INSERT INTO si VALUES (501, 'fast')")
    waited = time.time() - started
    slow.sock.sendall(message("c", b""))
    while read_message(slow.sock)[0] != "Z":
        pass
    slow.close()
    got = lines(server.psql("SELECT id, v FROM si WHERE id >= 500 ORDER BY id"))
    if got != ["500|slow", "501|fast"] or waited > 3:
        raise Failure("an INSERT beside a stalled COPY: %r after %.1f s" % (got, waited))
    print("  ok  shared writers: 4 connections x 8 COPYs and 4 x 10 INSERTs into one table, at "
          "most one APPEND snapshot each; a failed COPY, a failed INSERT, ALTER TABLE and DROP / CREATE "
          "followed; an INSERT beside a stalled COPY went on after %.1f s" % waited)


def quoted_identifiers(server):
    """Identifiers in double quotes, as PostgreSQL's clients write them (a mixed-case table, a
    column with a space), in DDL, queries and COPY's names; `tributary sql` keeps refusing them."""
    server.psql('CREATE TABLE "Quoted" ("id" INT, "the value" STRING, PRIMARY KEY ("id") '
                'NOT ENFORCED)')
    server.psql('INSERT INTO "Quoted" VALUES (1, \'a\')')
    psql_copy(server, 'COPY "Quoted" ("id", "the value") FROM STDIN', "2\tb\n")
    got = server.psql('SELECT "id", "the value" FROM "default"."Quoted" ORDER BY 1').stdout.split()
    if got != ["1|a", "2|b"]:
        raise Failure("double-quoted identifiers: %r" % got)
    got = server.psql('COPY "Quoted" ("the value") TO STDOUT').stdout.split()
    if got != ["a", "b"]:
        raise Failure("COPY TO of double-quoted names: %r" % got)
    print("  ok  identifiers in double quotes (PostgreSQL's) in DDL, queries and COPY")


def copy_in_and_out(server, binary, warehouse):
    """COPY FROM STDIN (CSV and text) in one commit, a bad line committing nothing, and COPY TO
    STDOUT of a table and of a query."""
    server.psql("CREATE TABLE c (id BIGINT, name STRING, amount DOUBLE, day DATE, "
                "PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '4')")
    rows = 100000
    csv = "".join('%d,"name %d, with ""quotes""",%d.25,2024-01-%02d\n' % (i, i, i, i % 28 + 1)
                  if i % 1000 else "%d,,,\n" % i for i in range(rows))
    p = subprocess.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p",
                        str(server.port), "-U", "tributary", "-d", "default", "-c",
                        "COPY c FROM STDIN WITH (FORMAT csv)"],
                       input=csv, capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        raise Failure("COPY of %d CSV rows: %s" % (rows, p.stderr))
    got = lines(server.psql("SELECT COUNT(*), SUM(id), COUNT(name), MAX(day) FROM c"))
    if got != ["%d|%d|%d|2024-01-28" % (rows, rows * (rows - 1) // 2, rows - rows // 1000)]:
        raise Failure("after COPY of %d rows: %r" % (rows, got))
    got = lines(server.psql("SELECT name, amount FROM c WHERE id = 7"))
    if got != ['name 7, with "quotes"|7.25']:
        raise Failure("a quoted CSV field after COPY: %r" % got)
    snapshots = lines(server.psql("SELECT COUNT(*) FROM c$snapshots WHERE commit_kind = 'APPEND'"))
    if snapshots != ["1"]:
        raise Failure("COPY committed %r APPEND snapshots, not one" % snapshots)
    # The text format: tabs, \N, backslash escapes; a column list.
    text = "100001\tline\\none\\ttab\n100002\t\\N\n\\.\n"
    p = subprocess.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p",
                        str(server.port), "-U", "tributary", "-d", "default", "-c",
                        "COPY c (id, name) FROM STDIN"],
                       input=text, capture_output=True, text=True, timeout=60)
    if p.returncode != 0:
        raise Failure("COPY in the text format: %s" % p.stderr)
    got = lines(server.psql("SELECT id, name IS NULL, LENGTH(name) FROM c WHERE id > 100000 "
                            "ORDER BY id"))
    if got != ["100001|f|12", "100002|t|"]:
        raise Failure("rows of a text-format COPY: %r" % got)
    # A bad line: an error naming it, and nothing of the COPY committed.
    p = subprocess.run(["psql", "-X", "-q", "-v", "VERBOSITY=verbose", "-h", "127.0.0.1", "-p",
                        str(server.port), "-U", "tributary", "-d", "default", "-c",
                        "COPY c FROM STDIN CSV"],
                       input="200001,a,1.5,2024-02-01\n200002,b,not a number,2024-02-01\n",
                       capture_output=True, text=True, timeout=60)
    if "22P02" not in p.stderr or "line 2" not in p.stderr or "amount" not in p.stderr:
        raise Failure("a bad COPY line: %r" % p.stderr)
    if lines(server.psql("SELECT COUNT(*) FROM c WHERE id > 200000")) != ["0"]:
        raise Failure("a failed COPY committed rows")
    # COPY TO STDOUT, of a table and of a query.
    p = subprocess.run(["psql", "-X", "-q", "-h", "127.0.0.1", "-p", str(server.port), "-U",
                        "tributary", "-d", "default", "-c",
                        "COPY (SELECT id, name, amount FROM c WHERE id IN (7, 1000, 100001) "
                        "ORDER BY id) TO STDOUT WITH (FORMAT csv, HEADER true)"],
                       capture_output=True, text=True, timeout=60)
    want = ["id,name,amount", '7,"name 7, with ""quotes""",7.25', "1000,,",
            '100001,"line\none\ttab",']
    if p.returncode != 0 or p.stdout.split("\n")[:-1] != ["id,name,amount",
                                                           '7,"name 7, with ""quotes""",7.25',
                                                           "1000,,", '100001,"line',
                                                           'one\ttab",']:
        raise Failure("COPY (query) TO STDOUT CSV: %r %r (want %r)" % (p.stdout, p.stderr, want))
    p = subprocess.run(["psql", "-X", "-q", "-h", "127.0.0.1", "-p", str(server.port), "-U",
                        "tributary", "-d", "default", "-c", "COPY t (id, ok) TO STDOUT"],
                       capture_output=True, text=True, timeout=60)
    if p.returncode != 0 or "1\tt\n" not in p.stdout or "2\tf\n" not in p.stdout:
        raise Failure("COPY t TO STDOUT: %r %r" % (p.stdout, p.stderr))


def copy_extended_protocol(server):
    """COPY sent through the extended query protocol, as libpq's PQexecParams sends it (Parse,
    Bind, Describe, Execute and Sync at once; CopyDone then a Sync of its own): rows in, a bad
    line committing nothing, a CopyFail, and COPY (query) TO STDOUT. libpq (libpq5, psql's
    library) through ctypes."""
    import ctypes
    import ctypes.util
    name = ctypes.util.find_library("pq")
    if not name:
        raise Failure("libpq (libpq5) not found")
    lib = ctypes.CDLL(name)
    ptr = ctypes.c_void_p
    lib.PQconnectdb.restype = ptr
    lib.PQexecParams.restype = ptr
    lib.PQexecParams.argtypes = [ptr, ctypes.c_char_p, ctypes.c_int, ptr, ptr, ptr, ptr,
                                 ctypes.c_int]
    lib.PQresultStatus.argtypes = [ptr]
    lib.PQresultErrorMessage.argtypes = [ptr]
    lib.PQresultErrorMessage.restype = ctypes.c_char_p
    lib.PQcmdStatus.argtypes = [ptr]
    lib.PQcmdStatus.restype = ctypes.c_char_p
    lib.PQputCopyData.argtypes = [ptr, ctypes.c_char_p, ctypes.c_int]
    lib.PQputCopyEnd.argtypes = [ptr, ctypes.c_char_p]
    lib.PQgetResult.restype = ptr
    lib.PQgetResult.argtypes = [ptr]
    lib.PQgetCopyData.argtypes = [ptr, ctypes.POINTER(ctypes.c_char_p), ctypes.c_int]
    lib.PQfreemem.argtypes = [ptr]
    lib.PQfinish.argtypes = [ptr]
    conn = lib.PQconnectdb(("host=127.0.0.1 port=%d user=tributary dbname=default" %
                            server.port).encode())
    copy_in, copy_out, ok, fatal = 4, 3, 1, 7

    def execute(sql):
        return lib.PQexecParams(conn, sql.encode(), 0, None, None, None, None, 0)

    def drain():
        while lib.PQgetResult(conn):
            pass

    def copy(data, fail=None):
        r = execute("COPY ce FROM STDIN WITH (FORMAT csv)")
        if lib.PQresultStatus(r) != copy_in:
            raise Failure("COPY by PQexecParams: status %d, %r" %
                          (lib.PQresultStatus(r), lib.PQresultErrorMessage(r)))
        lib.PQputCopyData(conn, data, len(data))
        lib.PQputCopyEnd(conn, fail)
        r = lib.PQgetResult(conn)
        got = (lib.PQresultStatus(r), lib.PQcmdStatus(r), lib.PQresultErrorMessage(r))
        drain()
        return got

    try:
        server.psql("CREATE TABLE ce (id INT, v STRING, PRIMARY KEY (id) NOT ENFORCED)")
        got = copy(b"1,a\n2,b\n3,c\n")
        if got[:2] != (ok, b"COPY 3"):
            raise Failure("COPY through the extended protocol: %r" % (got,))
        got = copy(b"4,d\nx,e\n")
        if got[0] != fatal or b"line 2" not in got[2]:
            raise Failure("a bad line of an extended-protocol COPY: %r" % (got,))
        got = copy(b"5,f\n", b"the client gave up")
        if got[0] != fatal or b"the client gave up" not in got[2]:
            raise Failure("CopyFail of an extended-protocol COPY: %r" % (got,))
        if lines(server.psql("SELECT id, v FROM ce ORDER BY id")) != ["1|a", "2|b", "3|c"]:
            raise Failure("after extended-protocol COPYs: %r" %
                          lines(server.psql("SELECT id, v FROM ce ORDER BY id")))
        r = execute("COPY (SELECT id, v FROM ce WHERE id > 1 ORDER BY id) TO STDOUT")
        if lib.PQresultStatus(r) != copy_out:
            raise Failure("COPY TO STDOUT by PQexecParams: status %d" % lib.PQresultStatus(r))
        out = b""
        buf = ctypes.c_char_p()
        while True:
            n = lib.PQgetCopyData(conn, ctypes.byref(buf), 0)
            if n < 0:
                break
            out += ctypes.string_at(buf, n)
            lib.PQfreemem(buf)
        r = lib.PQgetResult(conn)
        if out != b"2\tb\n3\tc\n" or lib.PQcmdStatus(r) != b"COPY 2":
            raise Failure("COPY TO STDOUT through the extended protocol: %r %r" %
                          (out, lib.PQcmdStatus(r)))
        drain()
        # The connection goes on: a query after the COPYs.
        r = execute("SELECT 1")
        if lib.PQresultStatus(r) != 2:  # PGRES_TUPLES_OK
            raise Failure("a query after extended-protocol COPYs: %r" %
                          lib.PQresultErrorMessage(r))
    finally:
        lib.PQfinish(conn)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    args = ap.parse_args()
    binary = os.path.abspath(args.binary)
    if shutil.which("psql") is None:
        print("FAIL pg_wire_test: psql is not installed (scripts/setup.sh installs "
              "postgresql-client)")
        return 1
    root = tempfile.mkdtemp(prefix="tributary-serve-")
    warehouse = os.path.join(root, "warehouse")
    server = None
    try:
        server = Server(binary, warehouse, free_port())
        server.psql("CREATE TABLE t (id INT, name STRING, amount DOUBLE, ok BOOLEAN, "
                    "PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '2')")
        p = server.psql("INSERT INTO t VALUES (1, 'a', 1.5, TRUE), (2, 'b', 2.5, FALSE), "
                        "(3, NULL, 3.5, TRUE)", extra=("-e",))
        server.psql("UPDATE t SET amount = 20.5 WHERE id = 2")
        server.psql("DELETE FROM t WHERE id = 3")
        got = lines(server.psql("SELECT id, name, amount, ok FROM t ORDER BY id"))
        if got != ["1|a|1.5|t", "2|b|20.5|f"]:
            raise Failure("SELECT through the server: %r" % got)
        # The command tags psql prints without -q.
        p = subprocess.run(["psql", "-X", "-h", "127.0.0.1", "-p", str(server.port), "-U",
                            "tributary", "-d", "default", "-c",
                            "INSERT INTO t VALUES (4, 'd', 4.5, TRUE)"],
                           capture_output=True, text=True, timeout=60)
        if p.stdout.strip() != "INSERT 0 1":
            raise Failure("INSERT's command tag: %r %r" % (p.stdout, p.stderr))
        # Several statements in one query; NULL comes back as NULL.
        got = lines(server.psql("INSERT INTO t VALUES (5, NULL, 5.5, FALSE); "
                                "SELECT COALESCE(name, 'null!') FROM t WHERE id = 5"))
        if got != ["null!"]:
            raise Failure("two statements in one query: %r" % got)
        # What the server committed is in the lake: the CLI reads it (a read of a system table
        # through the server commits what the hot tier holds of the table first).
        server.psql("SELECT COUNT(*) FROM t$snapshots")
        cli = subprocess.run([binary, "sql", "--warehouse", warehouse, "--format", "csv", "-e",
                              "SELECT id, amount FROM t ORDER BY id"],
                             capture_output=True, text=True, timeout=60)
        if cli.returncode != 0 or cli.stdout.split() != ["id,amount", "1,1.5", "2,20.5", "4,4.5",
                                                         "5,5.5"]:
            raise Failure("the CLI reads the server's writes: %r %r" % (cli.stdout, cli.stderr))
        # Errors carry SQLSTATE codes; the connection goes on after them.
        expect_error(server, "SELECT * FROM missing", "42P01", "missing")
        expect_error(server, "SELEC 1", "42601", "did you mean SELECT")
        expect_error(server, "SELECT nocol FROM t", "42703", "nocol")
        expect_error(server, "SELECT 1 / 0", "22012", "division by zero")
        expect_error(server, "CREATE TABLE t (x INT)", "42P07", "t")
        p = server.psql("SELECT * FROM missing; SELECT 1", expect_ok=False)
        if "42P01" not in p.stderr or lines(p) != []:
            raise Failure("a failed statement stops its query: %r %r" % (p.stdout, p.stderr))
        got = lines(server.psql("SELECT COUNT(*) FROM t"))
        if got != ["4"]:
            raise Failure("COUNT(*) after errors: %r" % got)
        # Session options are the connection's own.
        got = lines(server.psql("SET 'table.local-time-zone' = 'Asia/Shanghai'; "
                                "SELECT CAST(TO_TIMESTAMP_LTZ(0, 3) AS STRING)"))
        if got != ["1970-01-01 08:00:00.000"]:
            raise Failure("a session option through the server: %r" % got)
        # Not supported yet: refused, never ignored.
        expect_error(server, "COPY t TO STDOUT WITH (FORMAT binary, DELIMITER ',')", "22023",
                     "binary")
        expect_error(server, "COPY t FROM '/etc/passwd'", "0A000", "STDIN")
        copy_in_and_out(server, binary, warehouse)
        copy_extended_protocol(server)
        quoted_identifiers(server)
        shared_writers(server, binary, warehouse)
        expect_error(server, "SET 'execution.runtime-mode' = 'streaming'; SELECT * FROM t",
                     "0A000", "subscriptions")
        subscription(server)
        cancel_requests(server)
        show_stats(server)
        load(server)
        raw_extended_protocol(server.port)
        describe_commands(server)
        binary_formats(server)
        extended_subscription(server)
        server_jobs(server)
        # Refused at startup (FATAL; psql shows the message, not the code).
        p = server.psql("SELECT 1", expect_ok=False, user="postgres")
        if p.returncode == 0 or 'FATAL:  role "postgres" does not exist' not in p.stderr:
            raise Failure("another user is refused: %r" % p.stderr)
        p = server.psql("SELECT 1", expect_ok=False, db="nowhere")
        if p.returncode == 0 or 'FATAL:  database "nowhere" does not exist' not in p.stderr:
            raise Failure("a missing database is refused: %r" % p.stderr)
        for flags, words in ((["--warehouse", warehouse, "--listen", "0.0.0.0:%d" % free_port()],
                              "SCRAM-SHA-256"),
                             (["--warehouse", "s3://bucket/w"], "--data-dir is needed")):
            r = subprocess.run([binary, "serve"] + flags,
                               capture_output=True, text=True, timeout=30)
            if r.returncode == 0 or words not in r.stderr:
                raise Failure("serve %s: expected a refusal naming %r: %r" %
                              (flags, words, r.stderr))
        status = server.stop()
        server = None
        if status != 0:
            raise Failure("the server's exit status after SIGTERM: %d" % status)
        kill_under_load(binary, os.path.join(root, "killed"))
        scram_authentication(binary, root)
        hot_tier(binary, root)
        large_statements(binary, root)
        tls_connections(binary, root)
        client_certificates(binary, root)
    except Failure as e:
        print("FAIL pg_wire_test: %s" % e)
        return 1
    finally:
        if server is not None:
            server.proc.kill()
        shutil.rmtree(root, ignore_errors=True)
    print("pg_wire_test: psql created, wrote and read a table through the server; errors carry "
          "SQLSTATE codes; what is not supported yet is refused; SIGTERM stops it (exit 0); "
          "SCRAM-SHA-256 lets in the password alone; TLS with a verified certificate and channel "
          "binding")
    return 0


if __name__ == "__main__":
    sys.exit(main())
