#!/usr/bin/env python3
"""The module layers point only downward (src/README.md, src/sql/README.md).

    layers_test.py SOURCE_DIR BUILD_DIR

The modules and their order are read from CMakeLists.txt's tributary_module(...) lines (lowest
first). Fails when
  - a source file of a module includes a header of a module later in the order, or
  - a module's static library (BUILD_DIR/libtributary_<m>.a) needs a symbol that only a later
    module defines (nm): a call upward that the include check could miss (a header declaring
    what a higher module implements).
Python 3 standard library and binutils' nm.
"""
import os
import re
import subprocess
import sys


def modules(src):
    text = open(os.path.join(src, "CMakeLists.txt")).read()
    out = []
    for m in re.finditer(r"^tributary_module\((\w+)(?:\s+DIR\s+(\S+))?", text, re.M):
        out.append((m.group(1), m.group(2) or m.group(1)))
    return out


def symbols(lib, flag):
    out = subprocess.run(["nm", "-C", flag, lib], capture_output=True, text=True,
                         check=True).stdout
    got = set()
    for line in out.splitlines():
        line = line.strip()
        if flag == "-u":
            if line.startswith("U "):
                got.add(line[2:])
        else:
            parts = line.split(" ", 2)
            if len(parts) == 3 and parts[1] in "TWBDRV":
                got.add(parts[2])
    return got


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    src, build = sys.argv[1:]
    mods = modules(src)
    if len(mods) < 10:
        sys.exit("found only %d modules in CMakeLists.txt" % len(mods))
    rank = {d: i for i, (_, d) in enumerate(mods)}
    failures = []
    # Includes: "<dir>/x.h" of a later module's folder (the longest folder name that matches).
    folders = sorted(rank, key=len, reverse=True)
    inc = re.compile(r'#include "([^"]+)"')
    for i, (name, d) in enumerate(mods):
        root = os.path.join(src, "src", d)
        for dirpath, _, files in os.walk(root):
            for f in files:
                if not f.endswith((".cc", ".h")):
                    continue
                path = os.path.join(dirpath, f)
                for header in inc.findall(open(path, errors="replace").read()):
                    owner = next((o for o in folders if header.startswith(o + "/")), None)
                    if owner is not None and rank[owner] > i:
                        failures.append("%s (module %s) includes %s of the later module %s" % (
                            os.path.relpath(path, src), name, header, mods[rank[owner]][0]))
    # Symbols.
    defined, needed = {}, {}
    for name, _ in mods:
        lib = os.path.join(build, "libtributary_%s.a" % name)
        if not os.path.exists(lib):
            failures.append("%s is missing" % lib)
            continue
        defined[name] = symbols(lib, "--defined-only")
        needed[name] = symbols(lib, "-u")
    names = [n for n, _ in mods]
    for i, name in enumerate(names):
        below = set()
        for n in names[:i + 1]:
            below |= defined.get(n, set())
        for later in names[i + 1:]:
            up = sorted(s for s in needed.get(name, ()) if s in defined.get(later, ()) and
                        s not in below)
            if up:
                failures.append("libtributary_%s needs %d symbols only the later module %s "
                                "defines, e.g. %s" % (name, len(up), later, up[:3]))
    for f in failures:
        print("FAIL " + f)
    if failures:
        return 1
    print("layers_test: %d modules, includes and symbols point only downward" % len(mods))
    return 0


if __name__ == "__main__":
    sys.exit(main())
