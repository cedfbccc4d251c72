#!/usr/bin/env python3
"""Turns the JSON lines of the bench programs (bench_common.h) into markdown tables.

    python3 bench/report.py results.jsonl

Every ratio is "Tributary ÷ system" as a speed: above 1.00x Tributary is faster, below it is
slower (for times and latencies: the system's time divided by Tributary's). Machine, versions and
settings come from the environment run.sh sets (BENCH_*), and from the records.
"""
import json
import os
import sys

SYSTEMS = ["tributary", "rocksdb", "sqlite", "postgresql", "duckdb"]
NAMES = {"tributary": "Tributary", "rocksdb": "RocksDB", "sqlite": "SQLite",
         "postgresql": "PostgreSQL", "duckdb": "DuckDB"}
PEERS = SYSTEMS[1:]

SETTINGS = {
    "tributary": "library API, one process; deduplicate engine, 'bucket'='4' (and '-1'); Parquet "
                 "data files (zstd); default write-buffer-size 256 MiB; commit (fsync of data "
                 "files, manifests and snapshot) every BENCH_BATCH rows; W1: compaction in the "
                 "background (WriteOptions::async_compaction), the last commit waits for it and "
                 "for the one it picks next (CommitAndWaitForCompaction, as Paimon's writers at "
                 "the end of input); W2/W3: compaction at each commit as the picker says; "
                 "buckets flushed and compacted, splits "
                 "read, on every core; "
                 "W5 scans read column batches (TableScan::NextColumns); W2/W3 check reads stream "
                 "(ScanOptions::max_batch_rows); jemalloc with one arena per physical core (src/malloc_conf.cc, linked into every bench program)",
    "rocksdb": "defaults + 10-bit bloom filter, 256 MiB block cache; one WriteBatch per BENCH_BATCH rows, "
               "WriteOptions.sync=true (WAL fsync per batch); merge operators for W2/W3; "
               "jemalloc (as Tributary)",
    "sqlite": "journal_mode=WAL, synchronous=FULL, cache_size 256 MiB; one transaction per "
              "BENCH_BATCH rows of prepared INSERT ... ON CONFLICT DO UPDATE; jemalloc",
    "postgresql": "private cluster on 127.0.0.1, fsync=on, synchronous_commit=on, "
                  "shared_buffers=256MB, max_wal_size=4GB; per batch one transaction: COPY into a "
                  "TEMP staging table, INSERT ... SELECT (batch duplicates reduced, newest wins) "
                  "ON CONFLICT DO UPDATE; client over TCP (libpq)",
    "duckdb": "DuckDB's C API from C++ (libduckdb.so of the npm platform package); per batch an "
              "Appender into a TEMP staging table, then one transaction INSERT OR REPLACE / ON "
              "CONFLICT DO UPDATE (WAL fsync at commit); W4 a prepared statement",
}


def parse(lines):
    """The JSON records among `lines` (other output is skipped)."""
    recs = []
    for line in lines:
        line = line.strip()
        if line.startswith("{"):
            try:
                recs.append(json.loads(line))
            except json.JSONDecodeError:
                pass
    return recs


def load(path):
    with open(path) as f:
        return parse(f)


def si(x):
    if x is None:
        return "—"
    for unit, div in (("M", 1e6), ("k", 1e3)):
        if abs(x) >= div:
            return f"{x / div:.3g}{unit}"
    return f"{x:.3g}"


def mib(n):
    return "—" if n is None else f"{n / 2**20:.1f} MiB"


def rss(kb):
    return "—" if kb is None else f"{kb / 1024:.0f} MiB"


def ratio(x):
    if x is None:
        return "—"
    return f"**{x:.2f}x**" if x >= 0.1 else f"**{x:.2g}x**"


def ms(s):
    if s is None:
        return "—"
    if s < 1e-3:
        return f"{s * 1e6:.0f} µs"
    return f"{s * 1e3:.1f} ms" if s < 10 else f"{s:.1f} s"


class Results:
    def __init__(self, recs):
        self.recs = recs

    def get(self, sys_, w, case=None):
        for r in self.recs:
            if r.get("sys") == sys_ and r.get("w") == w and (case is None or r.get("case") == case):
                return r
        return None

    def all(self, w):
        return [r for r in self.recs if r.get("w") == w]

    def errors(self, w):
        return [r for r in self.recs if r.get("w") == w and "error" in r]


def notes_for(res, w, out):
    for r in res.errors(w):
        who = NAMES.get(r["sys"], r["sys"])
        case = f" ({r['case']})" if r.get("case") else ""
        verb = "cannot run" if r["sys"] == "tributary" else "could not run"
        out.append(f"- **{who}{case} {verb} {w}**: {r['error']}")
    for s in SYSTEMS:
        if not any(r.get("sys") == s and r.get("w") == w for r in res.recs):
            out.append(f"- {NAMES[s]}: no result for {w} (not run; see the log).")


def check_agreement(rows, field, what, out):
    vals = {NAMES[r["sys"]]: r.get(field) for r in rows if r.get(field) is not None}
    if len(set(map(str, vals.values()))) > 1:
        out.append(f"- ⚠ {what} differ between systems: " +
                   ", ".join(f"{k}: {v}" for k, v in vals.items()))
    elif vals:
        out.append(f"- {what} agree across systems ({next(iter(vals.values()))}).")


def w1(res, out):
    out.append("## W1 upsert ingest")
    env = os.environ
    out.append(f"{env.get('W1_ROWS', '?')} rows, keys from a keyspace of half that (≈ half "
               f"updates), durable commit every {env.get('BENCH_BATCH', '?')} rows. Ratio = "
               "Tributary rows/s ÷ system rows/s.\n")
    fixed = res.get("tributary", "W1", "4 buckets")
    dyn = res.get("tributary", "W1", "dynamic (bucket=-1)")
    fr = fixed.get("rate") if fixed and "rate" in fixed else None
    dr = dyn.get("rate") if dyn and "rate" in dyn else None
    out.append("| system | rows/s | Tributary 4 buckets ÷ it | Tributary dynamic ÷ it "
               "| bytes on disk | peak RSS |")
    out.append("| --- | ---: | ---: | ---: | ---: | ---: |")
    dv = res.get("tributary", "W1", "4 buckets, deletion vectors")
    for label, r in (("Tributary, 4 buckets", fixed),
                     ("Tributary, 4 buckets, deletion vectors", dv),
                     ("Tributary, dynamic bucket", dyn)):
        if r and "rate" in r:
            b = mib(r.get("bytes"))
            if r.get("live_bytes") is not None:
                b += f" ({mib(r['live_bytes'])} live)"
            out.append(f"| {label} | {si(r['rate'])} | | | {b} | {rss(r.get('rss_kb'))} |")
    for s in PEERS:
        r = res.get(s, "W1")
        if r and "rate" in r:
            out.append(f"| {NAMES[s]} | {si(r['rate'])} | "
                       f"{ratio(fr / r['rate'] if fr else None)} | "
                       f"{ratio(dr / r['rate'] if dr else None)} | {mib(r.get('bytes'))} | "
                       f"{rss(r.get('rss_kb'))} |")
    out.append("")
    notes = []
    notes_for(res, "W1", notes)
    notes.append("- Tributary's bytes are the whole table directory (files of older snapshots "
                 "stay until snapshot expiration) and, in parentheses, the files of the latest "
                 "snapshot. PostgreSQL's are pg_total_relation_size (no WAL); the others' are "
                 "their directory (WAL included). PostgreSQL's peak RSS is its backend's VmHWM "
                 "(shared buffers it touched included); DuckDB's is the node process's.")
    notes.append("- Deletion vectors: the same table with 'deletion-vectors.enabled' = 'true' "
                 "(merge-on-write): every commit compacts the buckets it wrote and marks the "
                 "rows it replaces, so W5's reads of it never merge.")
    notes.append("- 'bucket'='-1' (dynamic): new keys go to one bucket per writer thread (as "
                 "Paimon's parallel bucket assigners; `dynamic-bucket.initial-buckets` unset), "
                 "assigned through the table's key index (HASH index files).")
    out.extend(notes)
    out.append("")


def merge_workload(res, out, w, title, desc):
    out.append(f"## {w} {title}")
    out.append(desc + " Ratio = Tributary rows/s ÷ system rows/s.\n")
    t = res.get("tributary", w)
    tr = t.get("rate") if t and "rate" in t else None
    out.append("| system | rows/s | Tributary ÷ it | bytes on disk | peak RSS | how | check |")
    out.append("| --- | ---: | ---: | ---: | ---: | --- | --- |")
    for s in SYSTEMS:
        r = res.get(s, w)
        if not r or "rate" not in r:
            continue
        rt = "" if s == "tributary" else ratio(tr / r["rate"] if tr else None)
        how = r.get("how", "merge engine" if s == "tributary" else "")
        out.append(f"| {NAMES[s]} | {si(r['rate'])} | {rt} | {mib(r.get('bytes'))} | "
                   f"{rss(r.get('rss_kb'))} | {how} | {r.get('check', '')} |")
    out.append("")
    notes = []
    notes_for(res, w, notes)
    check_agreement([r for r in res.all(w) if "check" in r], "check", "Final states", notes)
    out.extend(notes)
    out.append("")


def w4(res, out):
    out.append("## W4 point lookups")
    out.append(f"Up to {os.environ.get('W4_LOOKUPS', '?')} lookups of random keys (10% misses) "
               f"on the W1 table, one thread, each system stopped after "
               f"{os.environ.get('W4_SECONDS', '?')} s. Ratio = Tributary lookups/s ÷ system "
               "lookups/s.\n")
    t = res.get("tributary", "W4", "TableLookup::Get") or res.get("tributary", "W4")
    tr = t.get("rate") if t and "rate" in t else None
    out.append("| system | how | lookups done | hits | lookups/s | p50 | p99 | Tributary ÷ it "
               "| peak RSS |")
    out.append("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for s in SYSTEMS:
        rows = [r for r in res.all("W4") if r.get("sys") == s and "rate" in r]
        for r in rows:
            rt = "" if s == "tributary" else ratio(tr / r["rate"] if tr else None)
            out.append(f"| {NAMES[s]} | {r.get('case', '')} | {r['ops']} | {r['hits']} | "
                       f"{si(r['rate'])} | {ms(r['p50_us'] / 1e6)} | {ms(r['p99_us'] / 1e6)} | "
                       f"{rt} | {rss(r.get('rss_kb'))} |")
    out.append("")
    notes = []
    notes_for(res, "W4", notes)
    notes.append("- Tributary is measured twice: `TableLookup::Get` (the point-lookup API: a "
                 "pinned snapshot, the key's bucket, a binary search in each file whose key range "
                 "holds the key, files decoded once into a process-wide cache; the ratios use it) "
                 "and through the SQL engine: SQLite's statement `SELECT a, b, c, s1, s2, s3 "
                 "FROM w1_fixed WHERE id = ?` prepared once (`sql::Prepare`: a whole-key "
                 "lookup keeps its TableLookup; each run checks for a newer snapshot, one stat "
                 "while nothing is committed) and run per key.")
    out.extend(notes)
    out.append("")


def w5(res, out):
    out.append("## W5 scans")
    out.append("On the W1 table (4 buckets for Tributary), before and after a full compaction. "
               f"Median of {os.environ.get('W5_REPEAT', '?')} runs. Each cell: time (Tributary "
               "÷ system as a speed: the system's time ÷ Tributary's). `count` = COUNT(*), "
               "`sum` = SUM(a), `filter` = every column of the rows with a < 10000 (1%), "
               "fetched by the client. Tributary answers count from file metadata when that is "
               "exact (as SQL's COUNT(*) does: append tables, and primary-key buckets of one "
               "file after compaction), else by a scan; sum and filter are scans through the API "
               "(a projection of one column, a filter predicate).\n")
    present = [s for s in SYSTEMS if res.get(s, "W5", "count before")]
    out.append("| query | " + " | ".join(NAMES[s] for s in present) + " |")
    out.append("| --- |" + " ---: |" * len(present))
    notes = []
    for phase in ("before", "after", "before dv", "after dv"):
        if phase.endswith("dv") and not res.get("tributary", "W5", f"count {phase}"):
            continue
        for q in ("count", "sum", "filter"):
            case = f"{q} {phase}"
            # The deletion-vector table's rows are compared with the peers' on the same rows.
            t = res.get("tributary", "W5", case)
            cells = []
            for s in present:
                r = res.get(s, "W5", case if s == "tributary" else case.replace(" dv", ""))
                if not r or "secs" not in r:
                    cells.append("—")
                    continue
                cell = ms(r["secs"])
                if s != "tributary" and t and "secs" in t:
                    cell += f" ({ratio(r['secs'] / t['secs'])})"
                elif s == "tributary" and r.get("rate"):
                    cell += f" ({si(r['rate'])} rows/s)"
                cells.append(cell)
            label = case.replace(" dv", ", deletion-vector table")
            out.append(f"| {label} | " + " | ".join(cells) + " |")
            rows = [r for r in (res.get(s, "W5", case if s == "tributary" else
                                        case.replace(" dv", "")) for s in present) if r]
            vals = {NAMES[r["sys"]]: r.get("result") for r in rows}
            if len(set(vals.values())) > 1:
                notes.append(f"- ⚠ results of `{case}` differ: " +
                             ", ".join(f"{k}: {v}" for k, v in vals.items()))
        if phase.startswith("before"):
            cells = []
            for s in present:
                r = res.get(s, "W5", "compact" + (" dv" if s == "tributary" and
                                                   phase.endswith("dv") else ""))
                if r and "secs" in r:
                    cells.append(f"{ms(r['secs'])}, {mib(r.get('bytes_before'))} → "
                                 f"{mib(r.get('bytes_after'))}")
                else:
                    cells.append("—")
            out.append("| *compaction" + (", deletion-vector table" if phase.endswith("dv") else "") + "* | " + " | ".join(cells) + " |")
    out.append("")
    hows = [f"{NAMES[s]}: {res.get(s, 'W5', 'compact')['how']}" for s in present
            if res.get(s, "W5", "compact")]
    notes.append("- Compaction: " + "; ".join(hows) + ".")
    # The median is of warm runs (each system's caches hold what the first run read); the first
    # run of each query shows the cold cost.
    firsts = []
    for q in ("sum", "filter"):
        for phase in ("before", "after"):
            cells = [f"{NAMES[s]} {ms(res.get(s, 'W5', f'{q} {phase}')['first_secs'])}"
                     for s in present
                     if "first_secs" in (res.get(s, "W5", f"{q} {phase}") or {})]
            if cells:
                firsts.append(f"{q} {phase}: " + ", ".join(cells))
    if firsts:
        notes.append("- First run of each query (the medians above are of warm runs, each "
                     "system's caches holding what it read first): " + "; ".join(firsts) + ".")
    r = res.get("tributary", "W5", "count before")
    if r:
        notes.append(f"- Results (count / sum / filter rows, before): " + " / ".join(
            str(res.get("tributary", "W5", f"{q} before").get("result")) for q in
            ("count", "sum", "filter")) + "; every system's are compared above and a ⚠ line "
            "says when they differ.")
    notes_for(res, "W5", notes)
    out.extend(notes)
    out.append("")


def j1(res, out):
    out.append("## J1 join")
    out.append(f"orders ({os.environ.get('J1_ORDERS', '?')} rows) JOIN customer "
               f"({os.environ.get('J1_CUSTOMERS', '?')} rows) ON custkey, COUNT(*) and two SUMs "
               "over the joined rows (about 9% of the orders join no customer). Median of "
               f"{os.environ.get('W5_REPEAT', '?')} runs. Ratio = the system's time ÷ "
               "Tributary's.")
    out.append("")
    out.append("| system | time | Tributary ÷ it | peak RSS | how |")
    out.append("| --- | ---: | ---: | ---: | --- |")
    t = res.get("tributary", "J1", "join")
    rows = []
    for s in ("tributary", "sqlite", "duckdb"):
        r = res.get(s, "J1", "join")
        if not r or "secs" not in r:
            continue
        rows.append(r)
        cell = "" if s == "tributary" or not t else ratio(r["secs"] / t["secs"])
        out.append(f"| {NAMES[s]} | {ms(r['secs'])} | {cell} | {rss(r.get('rss_kb'))} | "
                   f"{r.get('how', '')} |")
    out.append("")
    notes = []
    check_agreement(rows, "check", "Results", notes)
    for r in res.errors("J1"):
        notes.append(f"- **{NAMES.get(r['sys'], r['sys'])} could not run J1**: {r['error']}")
    out.extend(notes)
    out.append("")


def s1(res, out):
    """S1 (issue 34): the warehouse on the test S3 server against local disk, same run."""
    recs = {r.get("case"): r for r in res.all("S1")}
    if not recs:
        return
    out.append("## S1 object storage")
    w1r = recs.get("W1 4 buckets") or {}
    out.append(f"W1 ({w1r.get('w1_rows', '?')} rows, a commit every {w1r.get('batch', '?')}, "
               "4 buckets) and W5 (median of "
               f"{w1r.get('w5_repeat', '?')} runs) with the warehouse on the test S3 server "
               "(s3rver behind tests/crash/s3rver's proxy, loopback) against the same on local "
               "disk, in the same run. Ratio = S3 ÷ local as a speed (1.00x: as fast as local "
               "disk). s3rver is a single-threaded Node.js server on this machine: the figures "
               "measure the client's request pattern more than S3's latency.\n")
    out.append("| what | local | S3 | S3 ÷ local | first run: local, S3 (ratio) | check |")
    out.append("| --- | ---: | ---: | ---: | ---: | --- |")
    if "local_rate" in w1r:
        out.append(f"| W1 upsert ingest, rows/s | {si(w1r['local_rate'])} | "
                   f"{si(w1r['s3_rate'])} | {ratio(w1r['ratio'])} | | "
                   f"commits {w1r.get('local_commits')} / {w1r.get('commits')} |")
    for phase in ("before", "after"):
        for q in ("count", "sum", "filter"):
            r = recs.get(f"W5 {q} {phase}")
            if not r:
                continue
            first = ""
            if r.get("first_ratio") is not None:
                first = (f"{ms(r['local_first_secs'])}, {ms(r['s3_first_secs'])} "
                         f"({ratio(r['first_ratio'])})")
            check = "same" if r.get("same") else \
                f"⚠ differ: {r.get('local_result')} / {r.get('s3_result')}"
            out.append(f"| W5 {q} {phase} compaction | {ms(r['local_secs'])} | "
                       f"{ms(r['s3_secs'])} | {ratio(r['ratio'])} | {first} | {check} |")
        r = recs.get("W5 compact")
        if phase == "before" and r:
            out.append(f"| *W5 full compaction* | {ms(r['local_secs'])} | {ms(r['s3_secs'])} | "
                       f"{ratio(r['ratio'])} | | |")
    out.append("")
    notes = []
    if "requests" in w1r:
        m = ", ".join(f"{k} {v}" for k, v in w1r.get("methods", {}).items())
        notes.append(f"- Requests per commit: **{w1r['requests_per_commit']:.1f}** (W1's "
                     f"{w1r['requests']} requests ÷ its {w1r['commits']} commits; catalog open, "
                     f"table creation and compaction included: {m}).")
    r = recs.get("W5 requests")
    if r:
        per = r.get("requests_per_repeated_query", {})
        notes.append(f"- W5 on S3: {r['requests']} requests for {r['queries']} queries and a "
                     "full compaction. A repeated query (its data files in the file cache) "
                     "costs " + ", ".join(f"{q} {n:.1f}" for q, n in per.items()) +
                     " requests (each query alone, 1 and 5 runs a phase on the compacted "
                     "table, the difference ÷ the 8 extra runs): finding and reading the latest "
                     "snapshot, which a local warehouse does with a few system calls.")
    p = recs.get("poll")
    if p and p.get("requests_per_look") is not None:
        notes.append(f"- Streaming poll with nothing new: **{p['requests_per_look']:.2f} "
                     f"requests per look** ({p['requests'][1]} − {p['requests'][0]} requests "
                     f"of a streaming SELECT idle {p['idle_ms'][1]} ms and {p['idle_ms'][0]} ms, "
                     f"÷ {p['looks']} looks: the HEADs of the next snapshot; nominal "
                     f"{p['nominal_looks']:.0f} at the default 50 ms interval).")
    r = recs.get("load")
    if r:
        notes.append(f"- Load average during S1: {r['start']} at the start, {r['end']} at the "
                     "end.")
    for e in res.errors("S1"):
        notes.append(f"- **S1 could not run**: {e['error']}")
    out.extend(notes)
    out.append("")


def peak_rss(res, s, w):
    """A system's highest peak RSS (KiB) over its records of workload w."""
    vals = [r["rss_kb"] for r in res.all(w) if r.get("sys") == s and r.get("rss_kb")]
    return max(vals) if vals else None


def targets(res, out):
    """The targets of bench/README.md ("Targets"), each MET / NOT MET / NOT RUN in this run."""
    out.append("## Targets")
    out.append("Each target is a ratio to a peer in this run (bench/README.md, \"Targets\"). "
               "Speed ratios as above (above 1.00x Tributary is faster); memory and disk as "
               "Tributary's figure ÷ the smallest peer's (below the goal is met).\n")
    out.append("| target | Tributary | peer | ratio | goal | status |")
    out.append("| --- | ---: | ---: | ---: | ---: | --- |")
    tally = {"MET": 0, "NOT MET": 0, "NOT RUN": 0}

    def row(name, t, peer_label, p, r, goal, at_least=True, fmt=si, goal_text=None):
        if r is None:
            status = "NOT RUN"
        else:
            status = "MET" if (r >= goal if at_least else r <= goal) else "NOT MET"
        tally[status] += 1
        sign = "≥" if at_least else "≤"
        out.append(f"| {name} | {fmt(t) if t is not None else '—'} | "
                   f"{peer_label}{' ' + fmt(p) if p is not None else ''} | "
                   f"{ratio(r) if r is not None else '—'} | {goal_text or f'{sign} {goal}x'} | "
                   f"**{status}** |")

    def rate(s, w, case=None):
        r = res.get(s, w, case)
        return r.get("rate") if r else None

    def best_rate(w):
        best = None
        for s in PEERS:
            v = rate(s, w)
            if v and (best is None or v > best[1]):
                best = (s, v)
        return best

    for w, case, what in (("W1", "4 buckets", "W1 upsert ingest, rows/s"),
                          ("W2", None, "W2 aggregation, rows/s"),
                          ("W3", None, "W3 partial update, rows/s")):
        t = rate("tributary", w, case)
        best = best_rate(w)
        r = t / best[1] if t and best else None
        row(what + " ÷ best peer", t, NAMES[best[0]] if best else "—", best[1] if best else None,
            r, 1.5)
    t = rate("tributary", "W4", "TableLookup::Get")
    p = rate("rocksdb", "W4")
    row("W4 TableLookup::Get ÷ RocksDB Get, lookups/s", t, "RocksDB", p,
        t / p if t and p else None, 1)
    t = rate("tributary", "W4", "SQL prepared SELECT ... WHERE id = ?")
    p = rate("sqlite", "W4")
    row("W4 SQL `WHERE id = ?` path ÷ SQLite prepared SELECT", t, "SQLite", p,
        t / p if t and p else None, 0.5)
    for phase, goal in (("after", 1), ("before", 0.5)):
        for q in ("count", "sum", "filter"):
            t = res.get("tributary", "W5", f"{q} {phase}")
            d = res.get("duckdb", "W5", f"{q} {phase}")
            ts = t.get("secs") if t else None
            ds = d.get("secs") if d else None
            row(f"W5 {q} {phase} compaction ÷ DuckDB (time)", ts, "DuckDB", ds,
                ds / ts if ts and ds else None, goal, fmt=ms)
    # Deletion vectors (issue 37): every W5 query before compaction at least DuckDB's speed,
    # and W1's ingest at 0.6x or more of W1 without them.
    for q in ("count", "sum", "filter"):
        t = res.get("tributary", "W5", f"{q} before dv")
        d = res.get("duckdb", "W5", f"{q} before")
        ts = t.get("secs") if t else None
        ds = d.get("secs") if d else None
        row(f"W5 {q} before compaction, deletion-vector table ÷ DuckDB (time)", ts, "DuckDB", ds,
            ds / ts if ts and ds else None, 1, fmt=ms)
    t = rate("tributary", "W1", "4 buckets, deletion vectors")
    p = rate("tributary", "W1", "4 buckets")
    row("W1 with deletion vectors ÷ W1 without, rows/s", t, "Tributary", p,
        t / p if t and p else None, 0.6)
    w6 = res.get("tributary", "W6", "changelog")
    pg6 = res.get("postgresql", "W6")
    t = w6.get("changes_per_sec") if w6 else None
    p = pg6.get("changes_per_sec") if pg6 else None
    row("W6 changelog: changes/s ÷ PostgreSQL logical decoding", t, "PostgreSQL", p,
        t / p if t and p else None, 1)
    p99 = w6.get("p99_ms") if w6 else None
    row("W6 changelog: p99 commit-to-consumer latency (÷ the 200 ms limit)",
        p99 / 1e3 if p99 is not None else None, "—", None,
        p99 / 200 if p99 is not None else None, 1, at_least=False, fmt=ms,
        goal_text="≤ 200 ms")
    w7 = res.get("tributary", "W7", "job")
    pg7 = res.get("postgresql", "W7")
    t = w7.get("rows_per_sec") if w7 else None
    p = pg7.get("rows_per_sec") if pg7 else None
    row("W7 streaming job: rows/s ÷ PostgreSQL logical decoding applied", t, "PostgreSQL", p,
        t / p if t and p else None, 1)
    p99 = w7.get("p99_ms") if w7 else None
    limit = interval_ms(w7.get("interval")) + 200 if w7 else None
    row("W7 streaming job: p99 source-commit-to-sink latency (÷ the interval + 200 ms)",
        p99 / 1e3 if p99 is not None else None, "—", None,
        p99 / limit if p99 is not None and limit else None, 1, at_least=False, fmt=ms,
        goal_text="≤ interval + 200 ms")
    # A job keeps up with W1's ingest for a stateless projection (issue 36): its latency stays
    # within the interval + 200 ms instead of growing.
    w7p = res.get("tributary", "W7", "projection")
    p99 = w7p.get("p99_ms") if w7p else None
    limit = interval_ms(w7p.get("interval")) + 200 if w7p else None
    row("W7 projection job keeping up with W1's ingest: p99 source-commit-to-sink "
        "(÷ the interval + 200 ms)", p99 / 1e3 if p99 is not None else None, "—", None,
        p99 / limit if p99 is not None and limit else None, 1, at_least=False, fmt=ms,
        goal_text="≤ interval + 200 ms")
    # R3: many active partitions x buckets against one partition, same run (issue 38).
    one = res.get("tributary", "R3", "1 x 4")
    many = res.get("tributary", "R3", "500 x 4")
    t = many.get("secs") if many else None
    p = one.get("secs") if one else None
    row("R3 500 x 4 partitions x buckets ÷ 1 x 4, time", t, "1 x 4", p,
        t / p if t and p else None, 2, at_least=False, fmt=ms)
    t = many.get("rss_kb") if many else None
    p = one.get("rss_kb") if one else None
    row("R3 500 x 4 ÷ 1 x 4, peak RSS", t, "1 x 4", p, t / p if t and p else None, 1.5,
        at_least=False, fmt=lambda kb: f"{kb / 1024:.0f} MiB")
    # S1: object storage against local disk, same run (issue 34).
    s1w1 = res.get("tributary", "S1", "W1 4 buckets") or {}
    row("S1 W1 ingest on S3 ÷ local disk, rows/s", s1w1.get("s3_rate"), "local",
        s1w1.get("local_rate"), s1w1.get("ratio"), 0.5)
    for phase in ("before", "after"):
        for q in ("count", "sum", "filter"):
            r = res.get("tributary", "S1", f"W5 {q} {phase}") or {}
            row(f"S1 W5 {q} {phase} compaction, repeated, on S3 ÷ local (time)",
                r.get("s3_secs"), "local", r.get("local_secs"), r.get("ratio"), 0.8, fmt=ms)
    # SV: W1 and W4 through `tributary serve` over libpq, against PostgreSQL's (issue 39).
    t = rate("tributary", "SV1")
    p = rate("postgresql", "W1")
    row("SV W1 through the server (COPY) ÷ PostgreSQL W1 (COPY), rows/s", t, "PostgreSQL", p,
        t / p if t and p else None, 1)
    t = rate("tributary", "SV4")
    p = rate("postgresql", "W4")
    row("SV W4 through the server (prepared SELECT) ÷ PostgreSQL's, lookups/s", t, "PostgreSQL",
        p, t / p if t and p else None, 1)
    sv6 = res.get("tributary", "SV6") or {}
    pg6 = res.get("postgresql", "W6") or {}
    t, p = sv6.get("changes_per_sec"), pg6.get("changes_per_sec")
    row("SV W6 through the server (subscription) ÷ PostgreSQL logical decoding, changes/s", t,
        "PostgreSQL", p, t / p if t and p else None, 1)
    t, p = sv6.get("p99_ms"), pg6.get("p99_ms")
    row("SV W6 through the server: p99 commit-to-subscriber latency ÷ PostgreSQL's",
        t / 1e3 if t is not None else None, "PostgreSQL", p / 1e3 if p is not None else None,
        t / p if t and p else None, 2, at_least=False, fmt=ms)
    # Memory: Tributary's peak RSS against the smallest peer's, workload by workload.
    for w in ("W1", "W2", "W3", "W4", "W5", "J1"):
        t = peak_rss(res, "tributary", w)
        if w == "W1":  # the 4-bucket table, as W1's speed target
            t = (res.get("tributary", "W1", "4 buckets") or {}).get("rss_kb")
        peers = [(s, peak_rss(res, s, w)) for s in PEERS if peak_rss(res, s, w)]
        if not t or not peers:
            continue
        s, p = min(peers, key=lambda x: x[1])
        row(f"{w} peak RSS ÷ smallest peer's", t * 1024, NAMES[s], p * 1024, t / p, 1.5,
            at_least=False, fmt=lambda b: mib(b))
    out.append("")
    out.append(f"{tally['MET']} met, {tally['NOT MET']} not met, {tally['NOT RUN']} not run.")
    # Disk: flagged, not a target (Tributary keeps older snapshots' files until expiration).
    flags = []
    for w in ("W1", "W2", "W3"):
        r = res.get("tributary", w, "4 buckets" if w == "W1" else None)
        if not r or not r.get("bytes"):
            continue
        peers = [(s, res.get(s, w)["bytes"]) for s in PEERS
                 if res.get(s, w) and res.get(s, w).get("bytes")]
        if not peers:
            continue
        s, p = min(peers, key=lambda x: x[1])
        x = r["bytes"] / p
        mark = "⚠ " if x > 1.5 else ""
        live = f" ({mib(r['live_bytes'])} live: {r['live_bytes'] / p:.2f}x)" \
            if r.get("live_bytes") else ""
        flags.append(f"- {mark}{w} bytes on disk: Tributary {mib(r['bytes'])}{live}, smallest "
                     f"peer {NAMES[s]} {mib(p)}: {x:.2f}x" + (" (above 1.5x)" if x > 1.5 else ""))
    if flags:
        out.append("")
        out.extend(flags)
    out.append("")


def w6(res, out):
    out.append("## W6 changelog")
    out.append(f"W1's upserts ({os.environ.get('W6_ROWS', 'W1_ROWS / 5')} rows, half of them "
               f"updates) in commits of {os.environ.get('W6_BATCH', '2000')} rows while a "
               "consumer follows the change feed (Tributary's in another process, the peers' in "
               "a thread of the writing program): changes/s end to end (first "
               "write to last change read) and the latency from a commit's return to its first "
               "change at the consumer.\n")
    out.append("| system | changes | changes/s | p50 | p99 | peak RSS (writer) | how |")
    out.append("| --- | ---: | ---: | ---: | ---: | ---: | --- |")
    for s in SYSTEMS:
        r = res.get(s, "W6")
        if not r or "changes_per_sec" not in r:
            continue
        count = r.get("changes") if "changes" in r else f"{r.get('puts')} puts"
        out.append(f"| {NAMES[s]} | {count} | {si(r['changes_per_sec'])} | "
                   f"{ms(r['p50_ms'] / 1e3)} | {ms(r['p99_ms'] / 1e3)} | "
                   f"{rss(r.get('rss_kb'))} | {r.get('how', '')} |")
    out.append("")
    notes = [f"- **{NAMES.get(r['sys'], r['sys'])} could not run W6**: {r['error']}"
             for r in res.errors("W6")]
    check_agreement([r for r in res.all("W6") if "changes" in r], "changes",
                    "Change counts (an update is two: the old row and the new)", notes)
    notes.append("- PostgreSQL runs W6 on its cluster restarted with wal_level = logical (the "
                 "other workloads run without it); its peak RSS is the writing backend's. "
                 "RocksDB's WAL holds no before-images: its feed hands out puts (an update is "
                 "one), so its rate is puts/s and no target compares with it.")
    out.extend(notes)
    out.append("")


def interval_ms(text):
    """'1 s', '500 ms' as milliseconds."""
    if not text:
        return 1000
    n, _, unit = text.strip().partition(" ")
    return float(n) * (1000 if unit.startswith("s") else 1)


def r3(res, out):
    rows = [r for r in (res.get("tributary", "R3", f"{n} x 4") for n in (1, 50, 500)) if r]
    if not rows:
        return
    out.append("## R3 many partitions x buckets")
    out.append("W1's rows and commit interval into `PARTITIONED BY (p)`, 'bucket' = '4', "
               "p = id % N: N x 4 active partitions x buckets, each case in a process of its "
               "own.\n")
    out.append("| partitions x buckets | rows/s | time | peak RSS | disk |")
    out.append("| --- | ---: | ---: | ---: | ---: |")
    for r in rows:
        out.append(f"| {r['case']} | {si(r['rate'])} | {ms(r['secs'])} | "
                   f"{r['rss_kb'] / 1024:.0f} MiB | {r['bytes'] / 1048576:.0f} MiB |")
    out.append("")


def w7(res, out):
    out.append("## W7 streaming job")
    out.append(f"W6's upserts ({os.environ.get('W7_ROWS', 'W1_ROWS / 5')} rows in commits of "
               f"{os.environ.get('W7_BATCH', '2000')}) into a source table while a job keeps a "
               "second table up to date: the rows whose b % 10 <> 0, joined with a 1,000-row "
               "dimension table. Rows/s end to end (first write to the last row in the sink) and "
               "the latency from a source commit's return to its rows committed in the sink.\n")
    out.append("| system | rows | sink commits | rows/s | p50 | p99 | how |")
    out.append("| --- | ---: | ---: | ---: | ---: | ---: | --- |")
    for s in SYSTEMS:
        for r in [x for x in res.all("W7") if x.get("sys") == s]:
            if "rows_per_sec" not in r:
                continue
            name = NAMES[s] + (" (projection of W1's ingest at "
                               f"{si(r['ingest_rows_per_sec'])} rows/s)"
                               if r.get("case") == "projection" else "")
            out.append(f"| {name} | {r.get('rows')} | "
                       f"{r.get('sink_commits', r.get('commits'))} | "
                       f"{si(r['rows_per_sec'])} | {ms(r['p50_ms'] / 1e3)} | "
                       f"{ms(r['p99_ms'] / 1e3)} | {r.get('how', '')} |")
    out.append("")
    notes = [f"- **{NAMES.get(r['sys'], r['sys'])} could not run W7**: {r['error']}"
             for r in res.errors("W7")]
    notes.append("- Tributary's job commits its sink every 'execution.checkpointing.interval' "
                 "(W7_INTERVAL, default 1 s); PostgreSQL's consumer applies each source "
                 "transaction in one transaction as it is decoded. Tributary's latency includes "
                 "the reader's discovery of the sink's snapshot (at most 50 ms).")
    out.extend(notes)
    out.append("")


def header(res, out):
    env = os.environ
    out.append("# Tributary against its peers")
    out.append("")
    out.append(f"- date: {env.get('BENCH_DATE', '?')}; Tributary commit "
               f"`{env.get('BENCH_COMMIT', '?')}`")
    out.append(f"- machine: {env.get('BENCH_MACHINE', '?')}; load average (1, 5, 15 min) "
               f"{env.get('BENCH_LOAD_START', '?')} at the start, "
               f"{env.get('BENCH_LOAD_END', '?')} at the end (other work on the machine)")
    versions = [f"Tributary {env.get('BENCH_COMMIT', '?')} ({env.get('BENCH_COMPILER', '?')}, "
                "Release)"]
    for s in PEERS:
        r = res.get(s, "W1")
        v = r.get("version") if r else None
        versions.append(f"{NAMES[s]} {v if v else '(not run)'}")
    versions.append(f"node {env.get('BENCH_NODE', '?')}")
    out.append("- versions: " + ", ".join(versions))
    out.append(f"- parameters: BENCH_SCALE={env.get('BENCH_SCALE', '?')}, "
               f"W1_ROWS={env.get('W1_ROWS')}, BENCH_BATCH={env.get('BENCH_BATCH')}, "
               f"W2_KEYS={env.get('W2_KEYS')}, W2_EVENTS={env.get('W2_EVENTS')}, "
               f"W3_KEYS={env.get('W3_KEYS')}, W4_LOOKUPS={env.get('W4_LOOKUPS')}, "
               f"W4_SECONDS={env.get('W4_SECONDS')}, W5_REPEAT={env.get('W5_REPEAT')}")
    out.append("- settings (equal durability: every batch is fsynced before the next starts):")
    for s in SYSTEMS:
        out.append(f"  - {NAMES[s]}: {SETTINGS[s]}")
    out.append("- **ratios are Tributary ÷ system as speeds: above 1.00x Tributary is faster.** "
               "Only ratios of one run mean anything on a shared machine.")
    out.append("")


def main():
    res = Results(load(sys.argv[1]))
    out = []
    header(res, out)
    w1(res, out)
    merge_workload(res, out, "W2", "aggregation",
                   f"{os.environ.get('W2_KEYS', '?')} keys, {os.environ.get('W2_EVENTS', '?')} "
                   "events (id, v); the table keeps SUM(v) and MAX(v) per key; durable commit "
                   f"every {os.environ.get('BENCH_BATCH', '?')} events.")
    merge_workload(res, out, "W3", "partial update",
                   f"{os.environ.get('W3_KEYS', '?')} keys; three writers take turns, one "
                   "durable batch each, each writing every key once with its own two of the six "
                   "columns.")
    w4(res, out)
    w5(res, out)
    j1(res, out)
    w6(res, out)
    w7(res, out)
    r3(res, out)
    s1(res, out)
    targets(res, out)
    print("\n".join(out))


if __name__ == "__main__":
    main()
