// Cross-check of Tributary's Arrow IPC streams (src/format/arrow/) against apache-arrow, the
// Apache Arrow project's JavaScript implementation. Reads tributary-<codec>.arrows from the
// directory in argv[2], compares every value with expectedRow(i) (exactly: 64-bit integers,
// timestamps and decimals from their raw buffers); then writes arrowjs-<codec>.arrows with the
// same rows, built by arrow-js, for the C++ side. Run by arrow_js.sh; needs NODE_PATH with
// apache-arrow, and the zstd and lz4 commands (the codecs registered for compressed bodies).
'use strict';
const assert = require('assert');
const childProcess = require('child_process');
const fs = require('fs');
const path = require('path');
const arrow = require('apache-arrow');

const dir = process.argv[2];
const kRows = 300;
const kCodecs = {none: null, lz4: arrow.CompressionType.LZ4_FRAME, zstd: arrow.CompressionType.ZSTD};

const run = (cmd, args) => (data) =>
  new Uint8Array(childProcess.execFileSync(cmd, args, {input: Buffer.from(data)}));
arrow.compressionRegistry.set(arrow.CompressionType.ZSTD,
                              {encode: run('zstd', ['-c', '-q']), decode: run('zstd', ['-d', '-c', '-q'])});
arrow.compressionRegistry.set(arrow.CompressionType.LZ4_FRAME,
                              {encode: run('lz4', ['-c', '-q']), decode: run('lz4', ['-d', '-c', '-q'])});

// Mirrors CrossCheckRow() in src/format/arrow/ipc_test.cc, each value in the form canonical()
// gives: 64-bit integers, decimals' unscaled values and timestamps (in their column's unit) as
// decimal strings, dates as days, binaries as hex.
function expectedRow(i) {
  const n = BigInt(i);
  const row = {id: String((n - 150n) * 61000000000007n)};
  const names = ['flag', 'i8', 'i16', 'i32', 'f', 'd', 'dec', 's', 'bin', 'day', 't', 'ts3', 'ts6',
                 'ts9', 'ltz', 'arr', 'm', 'r'];
  if (i % 7 === 3) {
    for (const name of names) row[name] = null;
    return row;
  }
  const arr = [];
  for (let j = 0; j < i % 4; j++) arr.push(j === 1 ? null : i * (j + 1));
  const m = [];
  for (let j = 0; j < i % 3; j++) m.push(['k' + j, j * 1.5]);
  Object.assign(row, {
    flag: i % 2 === 0,
    i8: (i % 256) - 128,
    i16: i * 100 - 15000,
    i32: i * 7919 - 1000000,
    f: i * 0.5,
    d: i / 8 - 3,
    dec: String(n * 123456789012345n - 7n),
    s: 'name-' + i + '\u00e9',
    bin: Buffer.from([i % 256, (i * 7) % 256]).toString('hex'),
    day: i * 365 - 20000,
    t: i * 1000 + 7,
    ts3: String(1700000000000n + n),
    ts6: String((1700000000000n - 150n + n) * 1000n + (n * 1000n % 1000000n) / 1000n),
    ts9: String((-5n + n) * 1000000n + n * 17n),
    ltz: String((-86400000n + n * 3600000n) * 1000n + n),
    arr,
    m,
    r: {a: i, b: i % 5 === 0 ? null : 'b' + i},
  });
  return row;
}

// The value of column `name` at `i`, in expectedRow's form; raw buffers where arrow-js would
// round (it gives timestamps as float milliseconds).
function canonical(table, name, i) {
  const vector = table.getChild(name);
  if (!vector.isValid(i)) return null;
  let at = i;
  let data = null;
  for (const d of vector.data) {
    if (at < d.length) { data = d; break; }
    at -= d.length;
  }
  const type = vector.type;
  const raw = (k) => data.values[data.offset + k];
  switch (type.typeId) {
    case arrow.Type.Int:
      return type.bitWidth === 64 ? String(raw(at)) : raw(at);
    case arrow.Type.Decimal: {
      let v = 0n;
      for (let w = 3; w >= 0; w--) v = (v << 32n) | BigInt(data.values[(data.offset + at) * 4 + w]);
      return String(BigInt.asIntN(128, v));
    }
    case arrow.Type.Timestamp:
      return String(raw(at));
    case arrow.Type.Date:
      return raw(at);
    case arrow.Type.Binary:
      return Buffer.from(vector.get(i)).toString('hex');
    case arrow.Type.List:
      return [...vector.get(i)];
    case arrow.Type.Map:
      return [...vector.get(i)].map(([k, v]) => [k, v]);
    case arrow.Type.Struct:
      return vector.get(i).toJSON();
    default:
      return vector.get(i);
  }
}

// The format says a compressed buffer begins with its length once decompressed; arrow-js reads
// past it (it decompresses whole), so that length is checked here, against the zstd and lz4
// commands' output.
function checkLengthPrefixes(file, decode) {
  const reader = new arrow.MessageReader(fs.readFileSync(file));
  let checked = 0;
  for (let r = reader.next(); !r.done; r = reader.next()) {
    const message = r.value;
    const body = reader.readMessageBody(message.bodyLength);
    if (message.headerType !== arrow.MessageHeader.RecordBatch) continue;
    for (const {offset, length} of message.header().buffers) {
      if (length === 0) continue;
      const view = Buffer.from(body.buffer, body.byteOffset + offset, length);
      const said = view.readBigInt64LE(0);
      if (said === -1n) continue;
      assert.strictEqual(BigInt(decode(view.subarray(8)).length), said, `${file} buffer at ${offset}`);
      checked++;
    }
  }
  assert.ok(checked > 0, `${file}: no compressed buffer`);
}

function readStream(file) {
  const table = arrow.tableFromIPC(fs.readFileSync(file));
  assert.strictEqual(table.numRows, kRows, file);
  const names = table.schema.fields.map((f) => f.name);
  for (let i = 0; i < kRows; i++) {
    const got = {};
    for (const name of names) got[name] = canonical(table, name, i);
    assert.deepStrictEqual(got, expectedRow(i), `${file} row ${i}`);
  }
  return table.schema;
}

// ---- The same rows, built by arrow-js ----

function validity(rows) {
  const bits = new Uint8Array(Math.ceil(rows.length / 8));
  rows.forEach((v, i) => { if (v !== null) bits[i >> 3] |= 1 << (i & 7); });
  return bits;
}

// A flat column from typed values (exact: no conversion by arrow-js builders).
function flat(type, rows, Typed, toRaw) {
  const values = new Typed(rows.length);
  rows.forEach((v, i) => { if (v !== null) values[i] = toRaw(v); });
  return arrow.makeVector(arrow.makeData({type, length: rows.length, nullBitmap: validity(rows),
                                          data: values}));
}

function built(type, rows) {
  const builder = arrow.makeBuilder({type, nullValues: [null]});
  for (const v of rows) builder.append(v === null ? null : v);
  return builder.finish().toVector();
}

function decimals(type, rows) {
  const words = new Uint32Array(rows.length * 4);
  rows.forEach((v, i) => {
    if (v === null) return;
    let u = BigInt.asUintN(128, BigInt(v));
    for (let w = 0; w < 4; w++) { words[i * 4 + w] = Number(u & 0xffffffffn); u >>= 32n; }
  });
  return arrow.makeVector(arrow.makeData({type, length: rows.length, nullBitmap: validity(rows),
                                          data: words}));
}

function writeStream(file, codec) {
  const rows = [];
  for (let i = 0; i < kRows; i++) rows.push(expectedRow(i));
  const col = (name) => rows.map((r) => r[name]);
  const {TimeUnit} = arrow;
  const item = new arrow.Field('item', new arrow.Int32(), true);
  const entries = new arrow.Field('entries', new arrow.Struct([
    new arrow.Field('key', new arrow.Utf8(), false), new arrow.Field('value', new arrow.Float64(), true)]), false);
  const struct = new arrow.Struct([new arrow.Field('a', new arrow.Int32(), true),
                                   new arrow.Field('b', new arrow.Utf8(), true)]);
  const vectors = {
    id: flat(new arrow.Int64(), col('id'), BigInt64Array, BigInt),
    flag: built(new arrow.Bool(), col('flag')),
    i8: flat(new arrow.Int8(), col('i8'), Int8Array, Number),
    i16: flat(new arrow.Int16(), col('i16'), Int16Array, Number),
    i32: flat(new arrow.Int32(), col('i32'), Int32Array, Number),
    f: flat(new arrow.Float32(), col('f'), Float32Array, Number),
    d: flat(new arrow.Float64(), col('d'), Float64Array, Number),
    dec: decimals(new arrow.Decimal(3, 20, 128), col('dec')),
    s: built(new arrow.Utf8(), col('s')),
    bin: built(new arrow.Binary(), col('bin').map((h) => (h === null ? null : Buffer.from(h, 'hex')))),
    day: flat(new arrow.DateDay(), col('day'), Int32Array, Number),
    t: flat(new arrow.TimeMillisecond(), col('t'), Int32Array, Number),
    ts3: flat(new arrow.Timestamp(TimeUnit.MILLISECOND), col('ts3'), BigInt64Array, BigInt),
    ts6: flat(new arrow.Timestamp(TimeUnit.MICROSECOND), col('ts6'), BigInt64Array, BigInt),
    ts9: flat(new arrow.Timestamp(TimeUnit.NANOSECOND), col('ts9'), BigInt64Array, BigInt),
    ltz: flat(new arrow.Timestamp(TimeUnit.MICROSECOND, 'UTC'), col('ltz'), BigInt64Array, BigInt),
    arr: built(new arrow.List(item), col('arr')),
    m: built(new arrow.Map_(entries), col('m').map((m) => (m === null ? null : new Map(m)))),
    r: built(struct, col('r')),
  };
  const fields = Object.entries(vectors).map(
      ([name, v]) => new arrow.Field(name, v.type, name !== 'id'));
  const table = new arrow.Table(new arrow.Schema(fields), vectors);
  const writer = new arrow.RecordBatchStreamWriter({compressionType: codec});
  fs.writeFileSync(file, writer.writeAll(table).toUint8Array(true));
  readStream(file);  // arrow-js reads back what it wrote, as the C++ side will
}

for (const [name, codec] of Object.entries(kCodecs)) {
  const file = path.join(dir, `tributary-${name}.arrows`);
  readStream(file);
  if (codec !== null) checkLengthPrefixes(file, arrow.compressionRegistry.get(codec).decode);
  console.log(`arrow-js read ${file}: ${kRows} rows OK`);
}
// arrow-js 21 writes a compressed buffer's compressed length where the format wants its length
// once decompressed (its reader never looks), so its compressed streams are not the format's and
// Tributary refuses them as damaged, as Arrow's C++ reader would: only its plain stream is read.
writeStream(path.join(dir, 'arrowjs-none.arrows'), null);
