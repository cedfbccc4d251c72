#!/usr/bin/env python3
"""No table option read by a raw string outside src/options/ (issue 35, part 5).

    raw_options_test.py SOURCE_DIR

Code reads a table option through a typed key of src/options/option_keys.h
(options::Get / IsSet / GetOrDefault): the value typed as the option table types it, the default
from the option table alone. This fails on the raw forms that restated keys, types and defaults:
`schema.Option("key")`, `OptionIsTrue(schema, "key")`, and hints looked up as
`dynamic_options.find("key")` / `.count("key")`. Allowed: src/options/ itself, tests, and
src/common/schema.cc (TableSchema's own bucket accessors, in a module below options/).
Python 3 standard library.
"""
import os
import re
import sys

PATTERNS = [
    re.compile(r'\bOption\("'),
    re.compile(r'\bOptionIsTrue\('),
    re.compile(r'dynamic_options\.(?:find|count)\("'),
]
ALLOWED = {os.path.join("src", "common", "schema.cc")}


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    root = sys.argv[1]
    found = []
    scanned = 0
    for dirpath, _, files in os.walk(os.path.join(root, "src")):
        rel_dir = os.path.relpath(dirpath, root)
        if rel_dir.split(os.sep)[:2] == ["src", "options"]:
            continue
        for f in files:
            if not f.endswith((".cc", ".h")) or f.endswith(("_test.cc", "_fuzzer.cc")):
                continue
            rel = os.path.join(rel_dir, f)
            if rel in ALLOWED:
                continue
            scanned += 1
            with open(os.path.join(dirpath, f), errors="replace") as fh:
                for n, line in enumerate(fh, 1):
                    if line.lstrip().startswith("//"):
                        continue
                    if any(p.search(line) for p in PATTERNS):
                        found.append("%s:%d: %s" % (rel, n, line.strip()))
    for f in found:
        print("FAIL a table option read by a raw string (use a key of "
              "src/options/option_keys.h): " + f)
    if found:
        return 1
    print("raw_options_test: %d files, every table option read through a typed key" % scanned)
    return 0


if __name__ == "__main__":
    sys.exit(main())
