#!/usr/bin/env python3
"""No source file over 1,000 lines, no function over 200 (issue 35, part 7).

    sizes_test.py SOURCE_DIR

Scans src/**/*.cc and *.h (tests, benchmarks and fuzzers excepted; the declarative option table
src/options/options_table.cc excepted, as a table, not code). A function is a definition that
starts at column 0 (its signature on one or two lines, ending in '{') and ends at the next '}'
at column 0, as .clang-format lays out every top-level function and member definition here.
Python 3 standard library.
"""
import os
import re
import sys

MAX_FILE_LINES = 1000
MAX_FUNCTION_LINES = 200
EXEMPT = {os.path.join("src", "options", "options_table.cc")}
START = re.compile(r"^[A-Za-z_].*\)\s*(const)?\s*(override)?\s*(noexcept)?\s*\{$")
CONTINUED = re.compile(r"^\s+.*\)\s*(const)?\s*(override)?\s*\{$")
NOT_FUNCTION = ("namespace", "struct", "class", "enum", "union", "extern")


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    root = sys.argv[1]
    failures, files = [], 0
    for dirpath, _, names in os.walk(os.path.join(root, "src")):
        for name in sorted(names):
            if not name.endswith((".cc", ".h")):
                continue
            if name.endswith(("_test.cc", "_benchmark.cc", "_fuzzer.cc")):
                continue
            rel = os.path.relpath(os.path.join(dirpath, name), root)
            if rel in EXEMPT:
                continue
            files += 1
            with open(os.path.join(dirpath, name), errors="replace") as f:
                lines = f.read().split("\n")
            if len(lines) > MAX_FILE_LINES:
                failures.append("%s has %d lines (at most %d)" % (rel, len(lines),
                                                                   MAX_FILE_LINES))
            start = None
            for i, line in enumerate(lines):
                if start is None:
                    if START.match(line) and not line.startswith(NOT_FUNCTION):
                        start = i
                    elif (CONTINUED.match(line) and i > 0 and re.match(r"^[A-Za-z_]", lines[i - 1])
                          and not lines[i - 1].startswith(NOT_FUNCTION)
                          and not lines[i - 1].rstrip().endswith((";", "}", "{"))):
                        start = i - 1
                elif line == "}":
                    length = i - start + 1
                    if length > MAX_FUNCTION_LINES:
                        failures.append("%s:%d: a function of %d lines (at most %d): %s" % (
                            rel, start + 1, length, MAX_FUNCTION_LINES, lines[start][:80]))
                    start = None
    for f in failures:
        print("FAIL " + f)
    if failures:
        return 1
    print("sizes_test: %d files, none over %d lines, no function over %d" % (
        files, MAX_FILE_LINES, MAX_FUNCTION_LINES))
    return 0


if __name__ == "__main__":
    sys.exit(main())
