// DuckDB's side of `make bench`, through the @duckdb/node-api npm package (it ships the native
// library). Per batch of BENCH_BATCH rows: an Appender fills a TEMP staging table (in memory, not
// logged), then one transaction INSERT ... SELECT ... ON CONFLICT (INSERT OR REPLACE for W1) moves
// the batch into the table and commits (DuckDB fsyncs its WAL at commit). The batch's duplicate
// keys are reduced first (newest wins), since DuckDB cannot update a row twice in one statement.
//   node duckdb_bench.mjs W1|W2|W3|W4|W5 <dir>
// The generators mirror bench_common.h exactly; keep them in step.
import { DuckDBInstance } from '@duckdb/node-api';
import fs from 'node:fs';
import path from 'node:path';

const SYS = 'duckdb';
const env = (k, d) => (process.env[k] ? Number(process.env[k]) : d);
const P = {
  w1Rows: env('W1_ROWS', 1000000),
  batch: env('BENCH_BATCH', 100000),
  w2Keys: env('W2_KEYS', 1000000),
  w2Events: env('W2_EVENTS', 4000000),
  w3Keys: env('W3_KEYS', 1000000),
  w4Lookups: env('W4_LOOKUPS', 1000000),
  w4Seconds: env('W4_SECONDS', 10),
  w5Repeat: env('W5_REPEAT', 3),
  j1Orders: env('J1_ORDERS', 1000000),
  j1Customers: env('J1_CUSTOMERS', 100000),
};
const keyspace = () => Math.max(1, Math.floor(P.w1Rows / 2));

// mulberry32, as bench::Rng.
class Rng {
  constructor(seed) { this.s = seed >>> 0; }
  next() {
    this.s = (this.s + 0x6d2b79f5) >>> 0;
    let t = this.s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t = (t + Math.imul(t ^ (t >>> 7), t | 61)) ^ t;
    return (t ^ (t >>> 14)) >>> 0;
  }
}
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

class W1Generator {
  constructor(ks) { this.ks = ks; this.keys = new Rng(42); this.cols = new Rng(43); }
  next(index) {
    const id = 2 * (this.keys.next() % this.ks);
    const a = this.cols.next() % 1000000;
    const c = (this.cols.next() % 1000000) / 100.0;
    return { id, a, b: index, c, s1: this.str(), s2: this.str(), s3: this.str() };
  }
  nextId() { return 2 * (this.keys.next() % this.ks); }
  str() {
    const len = 16 + (this.cols.next() % 9);
    let s = '';
    for (let i = 0; i < len; i += 4) {
      const r = this.cols.next();
      for (let j = 0; j < 4 && i + j < len; j++) s += ALPHABET[(r >>> (8 * j)) & 63];
    }
    return s;
  }
}

// As bench::J1Generator.
class J1Generator {
  constructor(customers) { this.customers = customers; this.rng = new Rng(45); }
  customer(i) {
    const nation = this.rng.next() % 25;
    const len = 16 + (this.rng.next() % 9);
    let name = '';
    for (let k = 0; k < len; k++) name += ALPHABET[this.rng.next() & 63];
    return { custkey: i, nation, name };
  }
  order(i) {
    const custkey = this.rng.next() % Math.floor(this.customers * 11 / 10);
    const amount = this.rng.next() % 10000;
    return { orderkey: i, custkey, amount };
  }
}
const J1_QUERY = 'SELECT COUNT(*), SUM(o.amount), SUM(c.nation) FROM orders o JOIN customer c ' +
                 'ON o.custkey = c.custkey';

function w4Keys() {
  const g = new W1Generator(keyspace());
  const ids = new Float64Array(P.w1Rows);
  for (let i = 0; i < P.w1Rows; i++) ids[i] = g.nextId();
  const rng = new Rng(7);
  const keys = new Float64Array(P.w4Lookups);
  for (let i = 0; i < P.w4Lookups; i++) {
    if (rng.next() % 10 === 0) keys[i] = 2 * (rng.next() % keyspace()) + 1;
    else keys[i] = ids[rng.next() % P.w1Rows];
  }
  return keys;
}

function gcd(a, b) { while (b) [a, b] = [b, a % b]; return a; }
function w3Stride(keys) { let p = 1000003; while (gcd(p, keys) !== 1) p += 2; return p; }
// (j * stride + writer * 12345) % keys, exactly (j * stride can pass 2^53).
function w3Key(keys, stride, writer, j) {
  return Number((BigInt(j) * BigInt(stride) + BigInt(writer * 12345)) % BigInt(keys));
}

// ------------------------------------------------------------------------------------------
const seconds = (t0) => Number(process.hrtime.bigint() - t0) / 1e9;
const now = () => process.hrtime.bigint();
const rssKb = () => process.resourceUsage().maxRSS;
function dirBytes(dir) {
  let n = 0;
  for (const f of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, f.name);
    n += f.isDirectory() ? dirBytes(p) : fs.statSync(p).size;
  }
  return n;
}
function percentile(v, q) {
  if (v.length === 0) return 0;
  const s = Float64Array.from(v).sort();
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
}
function print(rec) { process.stdout.write(JSON.stringify(rec) + '\n'); }

async function open(dir) {
  fs.mkdirSync(dir, { recursive: true });
  const inst = await DuckDBInstance.create(path.join(dir, 'db.duckdb'));
  const con = await inst.connect();
  return { inst, con };
}
async function scalar(con, sql) {
  const r = await con.runAndReadAll(sql);
  const v = r.getRows()[0][0];
  return v === null ? 0 : v;
}
async function version(con) { return String(await scalar(con, 'SELECT version()')); }

async function w1(dir) {
  const t0 = now();
  const { con } = await open(dir);
  await con.run('CREATE TABLE t (id BIGINT PRIMARY KEY, a BIGINT, b BIGINT, c DOUBLE, ' +
                's1 VARCHAR, s2 VARCHAR, s3 VARCHAR)');
  await con.run('CREATE TEMP TABLE stage (id BIGINT, a BIGINT, b BIGINT, c DOUBLE, ' +
                's1 VARCHAR, s2 VARCHAR, s3 VARCHAR)');
  const ap = await con.createAppender('stage', 'main', 'temp');
  const gen = new W1Generator(keyspace());
  for (let i = 0; i < P.w1Rows; i++) {
    const r = gen.next(i);
    ap.appendBigInt(BigInt(r.id));
    ap.appendBigInt(BigInt(r.a));
    ap.appendBigInt(BigInt(r.b));
    ap.appendDouble(r.c);
    ap.appendVarchar(r.s1);
    ap.appendVarchar(r.s2);
    ap.appendVarchar(r.s3);
    ap.endRow();
    if ((i + 1) % P.batch === 0 || i + 1 === P.w1Rows) {
      ap.flushSync();
      await con.run('BEGIN');
      await con.run('INSERT OR REPLACE INTO t SELECT * FROM stage ' +
                    'QUALIFY row_number() OVER (PARTITION BY id ORDER BY b DESC) = 1');
      await con.run('COMMIT');
      await con.run('DELETE FROM stage');
    }
  }
  ap.closeSync();
  const secs = seconds(t0);
  print({ sys: SYS, w: 'W1', case: 'upsert', rows: P.w1Rows, secs, rate: P.w1Rows / secs,
          bytes: dirBytes(dir), rss_kb: rssKb(), version: await version(con) });
}

async function w4(dir) {
  const { con } = await open(dir);
  const q = await con.prepare('SELECT a, b, c, s1, s2, s3 FROM t WHERE id = $1');
  const keys = w4Keys();
  const lat = [];
  let hits = 0;
  const t0 = now();
  for (let i = 0; i < keys.length; i++) {
    const t = now();
    q.bindBigInt(1, BigInt(keys[i]));
    const r = await q.runAndReadAll();
    if (r.getRows().length > 0) hits++;
    lat.push(seconds(t));
    if ((lat.length & 255) === 0 && seconds(t0) >= P.w4Seconds) break;
  }
  const secs = seconds(t0);
  print({ sys: SYS, w: 'W4', case: 'prepared SELECT ... WHERE id = $1', ops: lat.length, hits,
          secs, rate: lat.length / secs, p50_us: percentile(lat, 0.5) * 1e6,
          p99_us: percentile(lat, 0.99) * 1e6, rss_kb: rssKb() });
}

async function w5Scans(con, phase) {
  const rows = Number(await scalar(con, 'SELECT COUNT(*) FROM t'));
  const queries = [['count', 'SELECT COUNT(*) FROM t'], ['sum', 'SELECT SUM(a) FROM t'],
                   ['filter', 'SELECT * FROM t WHERE a < 10000']];
  for (const [name, sql] of queries) {
    const times = [];
    let result = 0;
    for (let rep = 0; rep < P.w5Repeat; rep++) {
      const t = now();
      const r = await con.runAndReadAll(sql);
      const got = r.getRows();
      result = name === 'filter' ? got.length : Number(got[0][0]);
      times.push(seconds(t));
    }
    const secs = percentile(times, 0.5);
    print({ sys: SYS, w: 'W5', case: `${name} ${phase}`, secs, result, rate: rows / secs,
            rss_kb: rssKb() });
  }
}

async function w5(dir) {
  const { con } = await open(dir);
  await w5Scans(con, 'before');
  const before = dirBytes(dir);
  const t = now();
  await con.run('CHECKPOINT');
  print({ sys: SYS, w: 'W5', case: 'compact', how: 'CHECKPOINT', secs: seconds(t),
          bytes_before: before, bytes_after: dirBytes(dir) });
  await w5Scans(con, 'after');
}

async function w2(dir) {
  const t0 = now();
  const { con } = await open(dir);
  await con.run('CREATE TABLE w2 (id BIGINT PRIMARY KEY, s BIGINT, m BIGINT)');
  await con.run('CREATE TEMP TABLE stage2 (id BIGINT, v BIGINT)');
  const ap = await con.createAppender('stage2', 'main', 'temp');
  const rng = new Rng(44);
  for (let i = 0; i < P.w2Events; i++) {
    const id = rng.next() % P.w2Keys;
    const v = rng.next() % 1000;
    ap.appendBigInt(BigInt(id));
    ap.appendBigInt(BigInt(v));
    ap.endRow();
    if ((i + 1) % P.batch === 0 || i + 1 === P.w2Events) {
      ap.flushSync();
      await con.run('BEGIN');
      await con.run('INSERT INTO w2 SELECT id, SUM(v)::BIGINT, MAX(v) FROM stage2 GROUP BY id ' +
                    'ON CONFLICT (id) DO UPDATE SET s = s + excluded.s, ' +
                    'm = greatest(m, excluded.m)');
      await con.run('COMMIT');
      await con.run('DELETE FROM stage2');
    }
  }
  ap.closeSync();
  const secs = seconds(t0);
  const check = `keys=${await scalar(con, 'SELECT COUNT(*) FROM w2')}` +
                ` sum_s=${await scalar(con, 'SELECT SUM(s) FROM w2')}` +
                ` sum_m=${await scalar(con, 'SELECT SUM(m) FROM w2')}`;
  print({ sys: SYS, w: 'W2', case: 'sum+max', rows: P.w2Events, secs, rate: P.w2Events / secs,
          bytes: dirBytes(dir), rss_kb: rssKb(), check,
          how: 'Appender, then INSERT ... SELECT SUM, MAX GROUP BY ... ON CONFLICT' });
}

async function w3(dir) {
  const t0 = now();
  const { con } = await open(dir);
  await con.run('CREATE TABLE w3 (id BIGINT PRIMARY KEY, c1 BIGINT, c2 BIGINT, c3 BIGINT, ' +
                'c4 BIGINT, c5 BIGINT, c6 BIGINT)');
  await con.run('CREATE TEMP TABLE stage3 (id BIGINT, x BIGINT, y BIGINT)');
  const ap = await con.createAppender('stage3', 'main', 'temp');
  const stride = w3Stride(P.w3Keys);
  const next = [0, 0, 0];
  while (next[2] < P.w3Keys) {
    for (let w = 0; w < 3; w++) {
      const end = Math.min(P.w3Keys, next[w] + P.batch);
      for (let j = next[w]; j < end; j++) {
        const key = w3Key(P.w3Keys, stride, w, j);
        ap.appendBigInt(BigInt(key));
        ap.appendBigInt(BigInt(key * 10 + 2 * w + 1));
        ap.appendBigInt(BigInt(key * 10 + 2 * w + 2));
        ap.endRow();
      }
      next[w] = end;
      ap.flushSync();
      const x = `c${2 * w + 1}`, y = `c${2 * w + 2}`;
      await con.run('BEGIN');
      await con.run(`INSERT INTO w3 (id, ${x}, ${y}) SELECT id, x, y FROM stage3 ` +
                    `ON CONFLICT (id) DO UPDATE SET ${x} = excluded.${x}, ${y} = excluded.${y}`);
      await con.run('COMMIT');
      await con.run('DELETE FROM stage3');
    }
  }
  ap.closeSync();
  const secs = seconds(t0);
  const check = `keys=${await scalar(con, 'SELECT COUNT(*) FROM w3')}` +
                ` sum=${await scalar(con, 'SELECT SUM(c1) + SUM(c2) + SUM(c3) + SUM(c4) + ' +
                                          'SUM(c5) + SUM(c6) FROM w3')}`;
  print({ sys: SYS, w: 'W3', case: '3 writers', rows: 3 * P.w3Keys, secs,
          rate: (3 * P.w3Keys) / secs, bytes: dirBytes(dir), rss_kb: rssKb(), check,
          how: "Appender, then INSERT ... ON CONFLICT of the writer's two columns" });
}

async function j1(dir) {
  const { con } = await open(dir);
  await con.run('CREATE TABLE customer (custkey BIGINT PRIMARY KEY, nation BIGINT, name VARCHAR)');
  await con.run('CREATE TABLE orders (orderkey BIGINT PRIMARY KEY, custkey BIGINT, amount BIGINT)');
  const g = new J1Generator(P.j1Customers);
  let ap = await con.createAppender('customer');
  for (let i = 0; i < P.j1Customers; i++) {
    const c = g.customer(i);
    ap.appendBigInt(BigInt(c.custkey));
    ap.appendBigInt(BigInt(c.nation));
    ap.appendVarchar(c.name);
    ap.endRow();
  }
  ap.closeSync();
  ap = await con.createAppender('orders');
  for (let i = 0; i < P.j1Orders; i++) {
    const o = g.order(i);
    ap.appendBigInt(BigInt(o.orderkey));
    ap.appendBigInt(BigInt(o.custkey));
    ap.appendBigInt(BigInt(o.amount));
    ap.endRow();
  }
  ap.closeSync();
  await con.run('CHECKPOINT');
  const times = [];
  let check = '';
  for (let rep = 0; rep < P.w5Repeat; rep++) {
    const t = now();
    const r = (await con.runAndReadAll(J1_QUERY)).getRows()[0];
    times.push(seconds(t));
    check = `count=${r[0]} sum_amount=${r[1]} sum_nation=${r[2]}`;
  }
  print({ sys: SYS, w: 'J1', case: 'join', secs: percentile(times, 0.5), check,
          how: 'SQL over tables loaded by the Appender, after CHECKPOINT', rss_kb: rssKb() });
}

const [workload, dir] = process.argv.slice(2);
const fns = { W1: w1, W2: w2, W3: w3, W4: w4, W5: w5, J1: j1 };
if (!fns[workload] || !dir) {
  console.error('usage: node duckdb_bench.mjs W1|W2|W3|W4|W5|J1 <dir>');
  process.exit(2);
}
await fns[workload](dir);
