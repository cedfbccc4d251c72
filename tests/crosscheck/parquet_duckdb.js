// Cross-check of Tributary's Parquet writer against DuckDB's reader (and of Tributary's reader
// against DuckDB's writer). For every <name>.json in the directory argv[2] (written by
// ParquetCrossCheck.DISABLED_WriteFilesForDuckDB with <name>.parquet):
//   1. reads <name>.parquet with read_parquet and compares every value with the expected rows;
//   2. checks the field ids (parquet_schema) and the codec (parquet_metadata);
//   3. rewrites the file with DuckDB's writer as duckdb-<name>.parquet for the C++ side.
// Values are compared in a canonical text form: booleans "true"/"false", integers and
// decimals as DuckDB prints them, FLOAT/DOUBLE as the hex of the 64-bit IEEE value, BYTES as
// upper-case hex, DATE as days since 1970-01-01, TIME as milliseconds of the day, TIMESTAMP as
// nanoseconds since the epoch (microseconds when DuckDB reads a column with microsecond
// precision). Run by parquet_duckdb.sh; needs NODE_PATH with @duckdb/node-api.
'use strict';
const assert = require('assert');
const fs = require('fs');
const path = require('path');
const duckdb = require('@duckdb/node-api');

const dir = process.argv[2];

function quote(s) {
  return "'" + s.replace(/'/g, "''") + "'";
}

function ident(s) {
  return '"' + s.replace(/"/g, '""') + '"';
}

function expression(column, duckType) {
  const c = ident(column.name);
  switch (column.kind) {
    case 'float': return c;  // compared as IEEE bits in JS
    case 'bytes': return `hex(${c})`;
    case 'date': return `CAST(${c} - DATE '1970-01-01' AS VARCHAR)`;
    case 'time':
      return `CAST(hour(${c}) * 3600000 + minute(${c}) * 60000 + microsecond(${c}) // 1000 AS VARCHAR)`;
    case 'timestamp':
      return duckType.startsWith('TIMESTAMP_NS') ? `CAST(epoch_ns(${c}) AS VARCHAR)`
                                                 : `CAST(epoch_us(${c}) AS VARCHAR)`;
    default: return `CAST(${c} AS VARCHAR)`;
  }
}

function floatHex(x) {
  const b = Buffer.alloc(8);
  b.writeDoubleBE(x);
  return b.toString('hex').toUpperCase();
}

function floorDiv(a, b) {
  const q = a / b;
  return (a % b !== 0n && (a < 0n) !== (b < 0n)) ? q - 1n : q;
}

async function check(conn, name) {
  const expected = JSON.parse(fs.readFileSync(path.join(dir, name + '.json'), 'utf8'));
  const file = path.join(dir, name + '.parquet');
  const src = `read_parquet(${quote(file)}, file_row_number = true)`;

  const described = await conn.runAndReadAll(`DESCRIBE SELECT * FROM ${src}`);
  const duckTypes = {};
  for (const row of described.getRows()) duckTypes[row[0]] = String(row[1]);

  const exprs = expected.columns.map((c) => expression(c, duckTypes[c.name]));
  const result = await conn.runAndReadAll(
      `SELECT ${exprs.join(', ')} FROM ${src} ORDER BY file_row_number`);
  const rows = result.getRows();
  assert.strictEqual(rows.length, expected.rows.length, `${name}: row count`);
  for (let i = 0; i < rows.length; ++i) {
    expected.columns.forEach((column, c) => {
      let got = rows[i][c];
      let want = expected.rows[i][c];
      if (want === null || got === null) {
        assert.strictEqual(got, want, `${name} row ${i} ${column.name}`);
        return;
      }
      if (column.kind === 'float') got = floatHex(got);
      if (column.kind === 'timestamp' && !duckTypes[column.name].startsWith('TIMESTAMP_NS')) {
        want = floorDiv(BigInt(want), 1000n).toString();
      }
      assert.strictEqual(String(got), want,
          `${name} row ${i} column ${column.name} (${duckTypes[column.name]})`);
    });
  }

  const ids = await conn.runAndReadAll(
      `SELECT name, field_id FROM parquet_schema(${quote(file)}) WHERE name <> 'paimon_schema'`);
  const byName = {};
  for (const row of ids.getRows()) byName[row[0]] = Number(row[1]);
  for (const column of expected.columns) {
    assert.strictEqual(byName[column.name], column.id, `${name}: field id of ${column.name}`);
  }
  const codecs = await conn.runAndReadAll(
      `SELECT DISTINCT compression FROM parquet_metadata(${quote(file)})`);
  const want = {none: 'UNCOMPRESSED', snappy: 'SNAPPY', gzip: 'GZIP', zstd: 'ZSTD',
                lz4_raw: 'LZ4_RAW'}[expected.codec];
  assert.deepStrictEqual(codecs.getRows().map((r) => String(r[0])), [want], `${name}: codec`);

  // DuckDB's own writer, for the C++ reader. COMPRESSION names as DuckDB spells them.
  const out = path.join(dir, 'duckdb-' + name + '.parquet');
  const codec = {none: 'uncompressed', snappy: 'snappy', gzip: 'gzip', zstd: 'zstd',
                 lz4_raw: 'lz4_raw'}[expected.codec];
  await conn.run(`COPY (SELECT * EXCLUDE (file_row_number) FROM ${src} ORDER BY file_row_number)
      TO ${quote(out)} (FORMAT parquet, COMPRESSION ${codec}, PARQUET_VERSION V2,
      ROW_GROUP_SIZE 1000)`);
  console.log(`parquet_duckdb: ${name}: ${rows.length} rows match`);
}

async function main() {
  const instance = await duckdb.DuckDBInstance.create(':memory:');
  const conn = await instance.connect();
  const names = fs.readdirSync(dir).filter((f) => f.endsWith('.json'))
      .map((f) => f.slice(0, -'.json'.length)).sort();
  assert.ok(names.length > 0, 'no files to check');
  for (const name of names) await check(conn, name);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
