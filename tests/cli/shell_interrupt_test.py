#!/usr/bin/env python3
"""Ctrl-C in the interactive shell (`tributary sql` on a terminal) cancels the running statement
and keeps the session: a long query is cancelled (its partial result is not printed as the
result), a later statement runs, and the session's SET state is still there. Ctrl-C at the
prompt drops what is being typed and keeps the shell; a comment-only line opens no continuation
prompt; a long result prints what fits the terminal. Runs the shell on a
pseudo-terminal; Ctrl-C is the terminal's interrupt character, sent as a user would.

Usage: shell_interrupt_test.py path/to/tributary. Exit status 1 on a failed check.
"""

import fcntl
import os
import pty
import select
import shutil
import struct
import subprocess
import sys
import tempfile
import termios
import time


def main():
    binary = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build/tributary")
    wh = tempfile.mkdtemp(prefix="tributary-shell-")
    try:
        values = ", ".join("(%d)" % i for i in range(2000))
        subprocess.run([binary, "sql", "--warehouse", wh, "-e",
                        "CREATE TABLE t (id INT); INSERT INTO t VALUES " + values],
                       check=True, capture_output=True)
        pid, fd = pty.fork()
        if pid == 0:
            os.environ["HOME"] = wh  # the history file goes there
            os.environ["LC_ALL"] = "C.UTF-8"  # a terminal's usual encoding
            os.execv(binary, [binary, "sql", "--warehouse", wh])
        out = b""

        def read_until(marker, timeout, start=0):
            """Reads until `marker` appears at or after out[start] (or the timeout)."""
            nonlocal out
            deadline = time.time() + timeout
            while time.time() < deadline:
                if marker in out[start:]:
                    return True
                r, _, _ = select.select([fd], [], [], 0.1)
                if r:
                    try:
                        chunk = os.read(fd, 65536)
                    except OSError:
                        break
                    if not chunk:
                        break
                    out += chunk
                    if marker in out[start:]:
                        return True
            return marker in out[start:]

        def send(text):
            os.write(fd, text.encode())

        failures = []
        read_until(b"tributary> ", 10)
        send("SET 'sql-client.display.max-column-width' = '5';\n")
        read_until(b"max-column-width = 5", 10)
        # 2000^3 rows to count: minutes of work, unless cancelled.
        send("SELECT COUNT(*) FROM t a, t b, t c;\n")
        time.sleep(1.5)
        start = time.time()
        send("\x03")  # Ctrl-C
        if not read_until(b"cancelled (Ctrl-C)", 30):
            failures.append("Ctrl-C did not cancel the query")
        elif time.time() - start > 20:
            failures.append("the query took %.0f s to notice Ctrl-C" % (time.time() - start))
        send("SELECT 'abcdefghij' AS s;\n")
        if not read_until(b"ab...", 15):
            failures.append("after Ctrl-C the shell did not run the next statement with the "
                            "session's SET state (expected the cell cut to 'ab...')")
        # A line of only a comment begins no statement: no continuation prompt.
        read_until(b"tributary> ", 15, len(out) - 11)
        mark = len(out)
        send("-- just a comment\n")
        read_until(b"tributary> ", 15, mark)
        if b"->" in out[mark:]:
            failures.append("a comment-only line opened a continuation prompt")
        # Ctrl-C at the prompt drops the statement being typed and keeps the shell; at an idle
        # prompt too (it used to end the shell). Each waits for the prompt that follows it.
        mark = len(out)
        send("SELECT\n")
        read_until(b"-> ", 15, mark)
        mark = len(out)
        send("\x03")
        if not read_until(b"tributary> ", 15, mark):
            failures.append("Ctrl-C during a statement being typed did not drop it")
        mark = len(out)
        send("\x03")
        read_until(b"tributary> ", 15, mark)
        send("SELECT 'klmnopqrst' AS s;\n")
        if not read_until(b"kl...", 15):
            failures.append("after Ctrl-C at the prompt the shell did not run the next statement "
                            "with the session's SET state (expected the cell cut to 'kl...')")
        # A long result prints what fits the terminal (24 rows here: 16 of them), then says how
        # many more there were; the option overrides it.
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        mark = len(out)
        send("SELECT id FROM t;\n")
        if not read_until(b"1984 more rows not shown (the first 16 fit the terminal", 15, mark):
            failures.append("a 2000-row result on a 24-row terminal was not cut to 16 rows")
        mark = len(out)
        send("SET 'sql-client.display.max-rows' = '3';\nSELECT id FROM t;\n")
        if not read_until(b"1997 more rows not shown ('sql-client.display.max-rows' = 3)", 15,
                          mark):
            failures.append("'sql-client.display.max-rows' did not override the terminal's cut")
        # Typed UTF-8 reaches the statement whole (the shell decodes keys itself to watch for
        # Ctrl-C while it waits for one).
        mark = len(out)
        send("SELECT '\u65e5\u672c' AS s;\n")
        if not read_until("| \u65e5\u672c |".encode(), 15, mark):
            failures.append("a typed UTF-8 literal did not come back whole")
        send("quit\n")
        time.sleep(0.5)
        try:
            os.kill(pid, 9)
        except ProcessLookupError:
            pass
        os.waitpid(pid, 0)
        text = out.decode(errors="replace")
        # History of the session's statements, in ~/.tributary_history (HOME is the warehouse).
        history = os.path.join(wh, ".tributary_history")
        if not os.path.exists(history) or "abcdefghij" not in open(history, errors="replace").read():
            failures.append("the statements were not written to ~/.tributary_history")
        if "8000000000" in text:
            failures.append("the cancelled query printed a count")
        for f in failures:
            print("FAIL " + f)
            print(text[-2000:])
        if failures:
            return 1
        if os.environ.get("VERBOSE"):
            print(text)
        print("shell_interrupt_test: all passed")
        return 0
    finally:
        shutil.rmtree(wh, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
